//! `memlane model pull` and `memlane model list`.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

use memlane::index::hub::{self, NoProgress};
use memlane::index::select::{Choice, choose};

use crate::cli::Ctx;

/// `memlane model pull [NAME]`.
pub(crate) fn pull(ctx: &mut Ctx, name: Option<&str>) -> anyhow::Result<()> {
    let target = memlane::ops::model::pull_target(name)?;
    let show = !ctx.out.quiet && !ctx.out.json && std::io::stderr().is_terminal();
    ctx.out.note(format!(
        "pulling {}@{} from {}",
        target.model.repo, target.model.revision, target.endpoint
    ));
    let report = if show {
        memlane::ops::model::pull(&target, &mut Bar::default())
    } else {
        memlane::ops::model::pull(&target, &mut NoProgress)
    }?;
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
    // The current vault's setting, when there is a vault here; else the user config's.
    let vault = ctx.open_vault().ok();
    let setting = match &vault {
        Some(v) => v.config.embedding.model.clone(),
        None => ctx
            .load_config(None)
            .map(|c| c.config.embedding.model)
            .unwrap_or_else(|_| "auto".into()),
    };
    let listed = memlane::ops::model::list(vault.as_ref().map(|v| v.root()), &setting)?;
    if ctx.out.json {
        return ctx.out.json(&listed);
    }
    if listed.models.is_empty() {
        if listed.vault.as_ref().is_some_and(|v| !v.builtin) {
            ctx.out.line("no models installed")?;
        } else {
            ctx.out.line("no models installed (search uses the built-in embedder)")?;
        }
    }
    let rows: Vec<Vec<String>> = listed
        .models
        .iter()
        .map(|m| {
            let mut notes = Vec::new();
            if m.auto {
                notes.push("auto".to_owned());
            }
            if m.used_by_vault {
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
    for p in &listed.interrupted {
        ctx.out.line(format!(
            "interrupted pull of {} ({} so far): run `memlane model pull {}` to resume",
            p.name,
            mb(p.bytes),
            p.name
        ))?;
    }
    if let Some(v) = &listed.vault {
        let what = if v.builtin {
            "the built-in embedder".to_owned()
        } else if matches!(choose(&v.setting), Choice::Static(_)) {
            format!("the static table {}", v.uses.display())
        } else {
            match listed.models.iter().find(|m| m.used_by_vault) {
                Some(m) => m.name.clone(),
                None => v.uses.display().to_string(),
            }
        };
        ctx.out.line(format!(
            "this vault ({}) uses {what} (`[embedding] model = \"{}\"`)",
            v.root.display(),
            v.setting
        ))?;
    }
    Ok(())
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
