//! `memlane doctor`: check the config and the vault.

use crate::cli::Ctx;
use crate::cli::hints;
use serde_json::json;

/// Check the config and the vault: hand-written files with problems, links to missing memories
#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {}

pub(crate) fn doctor(ctx: &mut Ctx, _args: &DoctorArgs) -> anyhow::Result<()> {
    let root = memlane::vault::locate(&ctx.location()?)?;
    let unsafe_folders = memlane::vault::folder_problems(&root);
    if !unsafe_folders.is_empty() {
        return unsafe_folder_report(ctx, &root, &unsafe_folders);
    }
    let vault = ctx.open_vault()?;
    let (idx, report) = ctx.open_reconciled(&vault)?;
    let mut problems: Vec<serde_json::Value> = Vec::new();
    let duplicates: Vec<(String, Vec<String>, String)> = idx
        .manifest()
        .duplicate_ids()
        .into_iter()
        .map(|(id, names)| {
            let message = memlane::index::store::duplicate_id_message(&id, &names);
            (id, names, message)
        })
        .collect();
    for p in &report.problems {
        if !duplicates.iter().any(|(_, _, m)| m == p) {
            let kind = if p.contains("unresolved merge conflict") {
                "merge_conflict"
            } else {
                "unreadable"
            };
            problems.push(json!({ "kind": kind, "message": p }));
        }
    }
    for (id, names, message) in duplicates {
        problems.push(
            json!({ "kind": "duplicate_id", "id": id, "memories": names, "message": message }),
        );
    }
    let intents = vault.intent_report();
    for name in intents.pending {
        problems.push(json!({ "kind": "interrupted_operation", "message": format!("an interrupted operation ({name}) waits to be rolled back by the next write") }));
    }
    for u in intents.untrusted {
        let hint =
            format!("inspect it, then delete it: {}", memlane::vault::remove_command(&u.path));
        let message = format!(
            "{} is not an undo log memlane wrote for you in this vault ({}); memlane never replays it",
            memlane::vault::shown_path(&u.path),
            u.why
        );
        problems.push(
            json!({ "kind": "untrusted_intent", "path": u.path, "message": message, "hint": hint }),
        );
    }
    for path in vault.stale_temp_files() {
        problems.push(json!({ "kind": "temp_file", "message": format!("{} is a temp file left by a killed writer; `memlane maintain` removes it", path.display()) }));
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
        problems.push(json!({ "kind": "link_outside_vault", "memory": link.name, "target": link.target, "message": message }));
    }
    if let Some(advice) = vault.gitignore_advice() {
        let hint = hints::gitignore_hint(&advice);
        problems.push(json!({ "kind": "gitignore", "message": advice.to_string(), "hint": hint }));
    }
    match memlane::gitmerge::merge_driver_missing(vault.root()) {
        Ok(Some(missing)) if !missing.is_empty() => {
            let what: Vec<String> = missing.iter().map(ToString::to_string).collect();
            problems.push(json!({
                "kind": "merge_driver",
                "message": format!("git merges memory files as plain text here, so a frontmatter both branches changed conflicts; missing: {}", what.join("; ")),
                "hint": "run `memlane init` in this clone (it only adds what is missing), and commit `.gitattributes`",
            }));
        }
        Ok(_) => {}
        Err(e) => ctx.out.warn(format!("cannot check the git merge driver: {e}")),
    }
    for u in vault.unreachable_files()? {
        problems.push(json!({ "kind": "unreachable", "message": u.to_string(), "hint": u.hint() }));
    }
    for (name, e) in idx.manifest().entries() {
        for w in &e.warnings {
            let conflicted = w.starts_with(memlane::vault::BODY_CONFLICT)
                || w.starts_with(memlane::vault::KEY_CONFLICT);
            if conflicted {
                let hint = hints::merged_conflict_hint(w.starts_with(memlane::vault::KEY_CONFLICT));
                problems.push(
                    json!({ "kind": "merge_conflict", "memory": name, "message": w, "hint": hint }),
                );
            } else {
                problems.push(json!({ "kind": "frontmatter", "memory": name, "message": w }));
            }
        }
    }
    for (src, missing) in idx.graph().dangling() {
        let target = missing.trim_start_matches("memory:");
        let successor = vault.successor_of(target);
        let message = match &successor {
            Some(s) => {
                format!("links to `{target}`, which no longer exists; its successor is `{s}`")
            }
            None => format!("links to `{target}`, which no longer exists"),
        };
        problems.push(json!({ "kind": "dead_link", "memory": src.trim_start_matches("memory:"), "target": target, "successor": successor, "message": message }));
    }
    let stats = idx.graph().stats();
    let summary = json!({
        "vault": vault.root(),
        "memories": idx.manifest().entries().len(),
        "chunks": idx.manifest().total_chunks(),
        "embedder": idx.embedder().id(),
        "graph": stats,
        "problems": problems,
    });
    if ctx.out.json {
        return ctx.out.json(&summary);
    }
    let mut text = format!(
        "vault     {}\nmemories  {} ({} chunks)\nembedder  {}\ngraph     {} memories, {} documents, {} entities, {} links\n",
        vault.root().display(),
        idx.manifest().entries().len(),
        idx.manifest().total_chunks(),
        idx.embedder().id(),
        stats.memories,
        stats.ghosts,
        stats.entities,
        stats.edges
    );
    if problems.is_empty() {
        text.push_str("no problems found\n");
    } else {
        text.push_str(&format!("{} problem(s):\n", problems.len()));
        for p in &problems {
            let who = p
                .get("memory")
                .and_then(|v| v.as_str())
                .map(|m| format!("{m}: "))
                .unwrap_or_default();
            text.push_str(&format!("  {who}{}\n", p["message"].as_str().unwrap_or_default()));
            if let Some(hint) = p.get("hint").and_then(|v| v.as_str()) {
                text.push_str(&format!("    hint: {hint}\n"));
            }
        }
    }
    ctx.out.text(&text)
}

/// What `doctor` says when one of memlane's own folders is a link or not a folder: nothing else
/// is read until it is fixed (every other command refuses the vault).
fn unsafe_folder_report(
    ctx: &mut Ctx,
    root: &std::path::Path,
    found: &[memlane::Error],
) -> anyhow::Result<()> {
    let problems: Vec<serde_json::Value> = found
        .iter()
        .map(|e| {
            let (folder, path) = match e {
                memlane::Error::UnsafeFolder { folder, path, .. } => (folder.clone(), path.clone()),
                _ => (String::new(), root.to_owned()),
            };
            json!({ "kind": "unsafe_folder", "folder": folder, "path": path, "message": e.to_string(), "hint": e.neutral_hint() })
        })
        .collect();
    if ctx.out.json {
        return ctx.out.json(&json!({ "vault": root, "problems": problems }));
    }
    let mut text = format!("vault     {}\n{} problem(s):\n", root.display(), problems.len());
    for p in &problems {
        text.push_str(&format!("  {}\n", p["message"].as_str().unwrap_or_default()));
        if let Some(hint) = p.get("hint").and_then(|v| v.as_str()) {
            text.push_str(&format!("    hint: {hint}\n"));
        }
    }
    text.push_str("nothing else is checked until this is fixed\n");
    ctx.out.text(&text)
}
