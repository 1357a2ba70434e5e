//! `memlane model pull` and `memlane model list`.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use memlane::index::hub::{self, ModelRef};
use memlane::index::select::{Choice, choose};

use crate::cli::Ctx;
use crate::cli::error::CliError;

/// `memlane model pull [NAME]`.
pub(crate) fn pull(ctx: &mut Ctx, name: Option<&str>) -> anyhow::Result<()> {
    let name = name.unwrap_or(hub::DEFAULT_MODEL);
    let model = ModelRef::parse(name).map_err(CliError::Hub)?;
    let root = hub::models_root().ok_or(CliError::NoModelDir)?;
    let endpoint = hub::endpoint();
    let show = !ctx.out.quiet && !ctx.out.json && std::io::stderr().is_terminal();
    ctx.out.note(format!("pulling {}@{} from {endpoint}", model.repo, model.revision));
    let report = if show {
        hub::pull(&root, &model, &endpoint, &mut Bar::default())
    } else {
        hub::pull(&root, &model, &endpoint, &mut hub::NoProgress)
    };
    let report = report.map_err(CliError::Hub)?;
    if ctx.out.json {
        return ctx.out.json(&report);
    }
    if report.up_to_date {
        ctx.out.line(format!(
            "{} is up to date (commit {}) in {}",
            report.repo,
            short(&report.commit),
            report.dir.display()
        ))?;
    } else {
        let resumed = if report.resumed_bytes > 0 {
            format!(", resumed after {}", mb(report.resumed_bytes))
        } else {
            String::new()
        };
        ctx.out.line(format!(
            "installed {} (commit {}, {} downloaded{resumed}) in {}",
            report.repo,
            short(&report.commit),
            mb(report.downloaded_bytes),
            report.dir.display()
        ))?;
    }
    ctx.out.note(
        "`[embedding] model = \"auto\"` (the default) now uses it; each vault re-embeds its memories on its next command (or run `memlane reindex`)",
    );
    Ok(())
}

/// `memlane model list`.
pub(crate) fn list(ctx: &mut Ctx) -> anyhow::Result<()> {
    let root = hub::models_root().ok_or(CliError::NoModelDir)?;
    let models = hub::installed_models(&root);
    let interrupted = hub::interrupted_pulls(&root);
    // The current vault's setting, when there is a vault here; else the user config's.
    let vault = ctx.open_vault().ok();
    let setting = match &vault {
        Some(v) => v.config.embedding.model.clone(),
        None => ctx
            .load_config(None)
            .map(|c| c.config.embedding.model)
            .unwrap_or_else(|_| "auto".into()),
    };
    let choice = choose(&setting);
    let used = |dir: &std::path::Path| match &choice {
        Choice::Model(d) => same_dir(d, dir),
        Choice::Builtin => false,
    };
    if ctx.out.json {
        /// `model list --json`.
        #[derive(serde::Serialize)]
        struct Listed<'a, I: serde::Serialize, S: serde::Serialize> {
            models: Vec<Row<'a>>,
            interrupted: &'a I,
            vault: Option<VaultUse<'a, S>>,
        }
        #[derive(serde::Serialize)]
        struct Row<'a> {
            name: &'a str,
            dir: &'a std::path::Path,
            commit: Option<&'a str>,
            bytes: u64,
            auto: bool,
            used_by_vault: bool,
        }
        #[derive(serde::Serialize)]
        struct VaultUse<'a, S: serde::Serialize> {
            root: &'a std::path::Path,
            setting: &'a S,
            uses: &'a std::path::Path,
        }
        let uses = match &choice {
            Choice::Builtin => std::path::Path::new("builtin"),
            Choice::Model(d) => d.as_path(),
        };
        let models = models
            .iter()
            .map(|m| Row {
                name: &m.name,
                dir: &m.dir,
                commit: m.commit.as_deref(),
                bytes: m.bytes,
                auto: m.auto,
                used_by_vault: vault.is_some() && used(&m.dir),
            })
            .collect();
        let vault = vault.as_ref().map(|v| VaultUse { root: v.root(), setting: &setting, uses });
        return ctx.out.json(&Listed { models, interrupted: &interrupted, vault });
    }
    if models.is_empty() {
        ctx.out.line("no models installed (search uses the built-in embedder)")?;
    }
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            let mut notes = Vec::new();
            if m.auto {
                notes.push("auto".to_owned());
            }
            if vault.is_some() && used(&m.dir) {
                notes.push("used by this vault".to_owned());
            }
            vec![
                m.name.clone(),
                m.commit.as_deref().map(short).unwrap_or("imported").to_owned(),
                mb(m.bytes),
                notes.join(", "),
            ]
        })
        .collect();
    if !rows.is_empty() {
        ctx.out.text(&crate::cli::output::table(&["MODEL", "COMMIT", "SIZE", "NOTES"], &rows))?;
    }
    for p in &interrupted {
        ctx.out.line(format!(
            "interrupted pull of {} ({} so far): run `memlane model pull {}` to resume",
            p.name,
            mb(p.bytes),
            p.name
        ))?;
    }
    if let Some(v) = &vault {
        let what = match &choice {
            Choice::Builtin => "the built-in embedder".to_owned(),
            Choice::Model(d) => match models.iter().find(|m| same_dir(&m.dir, d)) {
                Some(m) => m.name.clone(),
                None => d.display().to_string(),
            },
        };
        ctx.out.line(format!(
            "this vault ({}) uses {what} (`[embedding] model = \"{setting}\"`)",
            v.root().display()
        ))?;
    }
    Ok(())
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// A one-line progress bar on stderr, redrawn at most ten times a second.
#[derive(Default)]
struct Bar {
    file: String,
    total: u64,
    done: u64,
    start_done: u64,
    started: Option<Instant>,
    drawn: Option<Instant>,
}

impl Bar {
    fn draw(&mut self, force: bool) {
        let now = Instant::now();
        if !force && self.drawn.is_some_and(|t| now - t < Duration::from_millis(100)) {
            return;
        }
        self.drawn = Some(now);
        let secs = self.started.map_or(0.0, |t| (now - t).as_secs_f64()).max(0.001);
        let rate = (self.done - self.start_done) as f64 / secs;
        let width = 30;
        let filled =
            (self.done.min(self.total) * width).checked_div(self.total).unwrap_or(0) as usize;
        let bar: String = "#".repeat(filled) + &"-".repeat(width as usize - filled);
        let total = if self.total > 0 { mb(self.total) } else { "?".to_owned() };
        let _ = write!(
            std::io::stderr().lock(),
            "\r\x1b[2K{:<28} [{bar}] {} / {total}  {}/s",
            self.file,
            mb(self.done),
            mb(rate as u64)
        );
    }
}

impl hub::Progress for Bar {
    fn start(&mut self, file: &str, total: u64, done: u64) {
        *self = Bar {
            file: file.to_owned(),
            total,
            done,
            start_done: done,
            started: Some(Instant::now()),
            drawn: None,
        };
        self.draw(true);
    }

    fn advance(&mut self, bytes: u64) {
        self.done += bytes;
        self.draw(false);
    }

    fn finish(&mut self) {
        self.draw(true);
        let _ = writeln!(std::io::stderr().lock());
    }
}
