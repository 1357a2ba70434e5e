//! `doctor`: what is wrong with the config and the vault, each problem of a known kind.

use std::path::Path;

use crate::Error;
use crate::index::manifest::{Warning, WarningKind};
use crate::vault::{GitignoreAdvice, ScanProblem};

use super::Session;
use super::wire::{Doctor, Problem, ProblemKind};

/// How to finish a merge `memlane merge-file` could not settle: markers in the body, or keys
/// recorded under `merge_conflicts:` (`key`).
fn merged_conflict_hint(key: bool) -> &'static str {
    if key {
        "give each key listed under `merge_conflicts:` the value to keep, delete `merge_conflicts:`, then `git add` the file"
    } else {
        "edit the body to keep the right lines and remove the `<<<<<<<`, `=======` and `>>>>>>>` markers (or `memlane update NAME` with the resolved text), then `git add` the file"
    }
}

/// How to fix a vault's `.gitignore`.
fn gitignore_hint(advice: &GitignoreAdvice) -> String {
    match advice {
        GitignoreAdvice::Missing { .. } => {
            "run `memlane init` again to write it (it changes nothing else)".into()
        }
        GitignoreAdvice::Unmentioned { missing, .. } => format!(
            "add the line{} `{}` (or `!{}` to commit {} on purpose); `memlane init` writes them in new vaults",
            if missing.len() == 1 { "" } else { "s" },
            missing.join("`, `"),
            missing.join("`, `!"),
            if missing.len() == 1 { "it" } else { "them" },
        ),
    }
}

/// The report when one of memlane's own folders under `root` is a link or not a folder:
/// nothing else can be checked until it is fixed (every other operation refuses the vault).
/// `None` when the folders are sound.
pub fn unsafe_folders(root: &Path) -> Option<Doctor> {
    let found = crate::vault::folder_problems(root);
    if found.is_empty() {
        return None;
    }
    let problems = found
        .iter()
        .map(|e| {
            let (folder, path) = match e {
                Error::UnsafeFolder { folder, path, .. } => (folder.clone(), path.clone()),
                _ => (String::new(), root.to_owned()),
            };
            Problem {
                folder: Some(folder),
                path: Some(path.display().to_string()),
                hint: e.neutral_hint(),
                ..Problem::new(ProblemKind::UnsafeFolder, e.to_string())
            }
        })
        .collect();
    Some(Doctor::new(root, problems))
}

/// Checks the vault: files that do not load, shared ids, interrupted or foreign undo logs,
/// temp files, links out of the vault, the `.gitignore`, the git merge driver, frontmatter
/// problems and links to memories that no longer exist.
pub fn check<S: Session>(s: &S) -> crate::Result<Doctor> {
    let vault = s.vault();
    let mut problems = Vec::new();
    let (_, scanned) = vault.scan()?;
    for p in scanned {
        // Unreachable files are listed below, with their hint.
        if let ScanProblem::Unreadable { name, error } = p {
            let kind = match error {
                Error::MergeConflict { .. } => ProblemKind::MergeConflict,
                _ => ProblemKind::Unreadable,
            };
            problems.push(Problem::new(kind, format!("{name}: {error}")));
        }
    }
    let (mut report, entries, dangling) = s.with_indexes(&|idx| {
        let report = Doctor {
            memories: Some(idx.manifest().len()),
            chunks: Some(idx.manifest().total_chunks()),
            embedder: Some(idx.embedder().id().to_string()),
            graph: Some(idx.graph().stats().into()),
            ..Doctor::new(vault.root(), Vec::new())
        };
        let entries: Vec<(String, Vec<Warning>)> = idx
            .manifest()
            .entries()
            .iter()
            .filter(|(_, e)| !e.warnings.is_empty())
            .map(|(n, e)| (n.clone(), e.warnings.clone()))
            .collect();
        let dangling = idx.graph().dangling();
        let dups = idx.manifest().duplicate_ids();
        Ok((report, (entries, dups), dangling))
    })?;
    let (warnings, duplicates) = entries;
    for (id, names) in duplicates {
        let message = crate::index::store::duplicate_id_message(&id, &names);
        problems.push(Problem {
            id: Some(id),
            memories: Some(names),
            ..Problem::new(ProblemKind::DuplicateId, message)
        });
    }
    let intents = vault.intent_report();
    for name in intents.pending {
        problems.push(Problem::new(
            ProblemKind::InterruptedOperation,
            format!("an interrupted operation ({name}) waits to be rolled back by the next write"),
        ));
    }
    for u in intents.untrusted {
        let message = format!(
            "{} is not an undo log memlane wrote for you in this vault ({}); memlane never replays it",
            crate::vault::shown_path(&u.path),
            u.why
        );
        problems.push(Problem {
            path: Some(u.path.display().to_string()),
            hint: Some(format!(
                "inspect it, then delete it: {}",
                crate::vault::remove_command(&u.path)
            )),
            ..Problem::new(ProblemKind::UntrustedIntent, message)
        });
    }
    for path in vault.stale_temp_files() {
        problems.push(Problem::new(
            ProblemKind::TempFile,
            format!(
                "{} is a temp file left by a killed writer; `memlane maintain` removes it",
                path.display()
            ),
        ));
    }
    for link in vault.escaping_links()? {
        let what = if link.folder { "folder" } else { "file" };
        let message = match &link.target {
            Some(t) => format!(
                "symbolic link to the {what} {}, outside the vault's memories; memlane does not read it",
                t.display()
            ),
            None => "symbolic link that resolves nowhere; memlane does not read it".to_owned(),
        };
        problems.push(Problem {
            memory: Some(link.name),
            target: link.target.map(|t| t.display().to_string()),
            ..Problem::new(ProblemKind::LinkOutsideVault, message)
        });
    }
    if let Some(advice) = vault.gitignore_advice() {
        problems.push(Problem {
            hint: Some(gitignore_hint(&advice)),
            ..Problem::new(ProblemKind::Gitignore, advice.to_string())
        });
    }
    match crate::gitmerge::merge_driver_missing(vault.root()) {
        Ok(Some(missing)) if !missing.is_empty() => {
            let what: Vec<String> = missing.iter().map(ToString::to_string).collect();
            problems.push(Problem {
                hint: Some("run `memlane init` in this clone (it only adds what is missing), and commit `.gitattributes`".into()),
                ..Problem::new(ProblemKind::MergeDriver, format!("git merges memory files as plain text here, so a frontmatter both branches changed conflicts; missing: {}", what.join("; ")))
            });
        }
        Ok(_) => {}
        Err(e) => s.warn(format!("cannot check the git merge driver: {e}")),
    }
    for u in vault.unreachable_files()? {
        problems.push(Problem {
            hint: Some(u.hint().to_owned()),
            ..Problem::new(ProblemKind::Unreachable, u.to_string())
        });
    }
    for (name, ws) in warnings {
        for w in ws {
            let problem = match w.kind {
                WarningKind::KeyConflict | WarningKind::BodyConflict => Problem {
                    hint: Some(merged_conflict_hint(w.kind == WarningKind::KeyConflict).to_owned()),
                    ..Problem::new(ProblemKind::MergeConflict, w.message)
                },
                WarningKind::Frontmatter => Problem::new(ProblemKind::Frontmatter, w.message),
            };
            problems.push(Problem { memory: Some(name.clone()), ..problem });
        }
    }
    for (src, missing) in dangling {
        let target = missing.trim_start_matches("memory:").to_owned();
        let successor = vault.successor_of(&target);
        let message = match &successor {
            Some(s) => {
                format!("links to `{target}`, which no longer exists; its successor is `{s}`")
            }
            None => format!("links to `{target}`, which no longer exists"),
        };
        problems.push(Problem {
            memory: Some(src.trim_start_matches("memory:").to_owned()),
            target: Some(target),
            successor,
            ..Problem::new(ProblemKind::DeadLink, message)
        });
    }
    report.problems = problems;
    Ok(report)
}
