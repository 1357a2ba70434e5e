//! Where results go: stdout, as readable text or as `--json`.
//!
//! Diagnostics never come through here; they go to stderr via `warn`. A closed pipe
//! (`memlane list | head`) surfaces as a `BrokenPipe` error that `main` turns into a quiet exit.

use std::io::Write as _;

use serde::Serialize;

/// What a piece of output is, for colour (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// A memory's name.
    Name,
    /// A memory type.
    Type,
    /// Tags.
    Tag,
    /// A score, temperature or importance.
    Score,
    /// A table header or a section heading.
    Heading,
}

impl Style {
    /// The ANSI SGR parameters: like rg and fd, bold for what you look for, plain colours for
    /// the rest, nothing that needs a 256-colour terminal.
    fn sgr(self) -> &'static str {
        match self {
            Style::Name => "1;35",
            Style::Type => "36",
            Style::Tag => "33",
            Style::Score => "32",
            Style::Heading => "1",
        }
    }
}

/// The output channel for results.
pub(crate) struct Out {
    pub json: bool,
    pub quiet: bool,
    /// Whether results are coloured (`--color`, `NO_COLOR`, and whether stdout is a terminal).
    pub color: bool,
    /// Whether [`Out::warn_unwritable`] has spoken (the warning is given once per command).
    pub unwritable_warned: std::cell::Cell<bool>,
    /// The command running (`trash list`): a debug build checks what it prints with `--json`
    /// against the shapes it declares (`crate::cli::json_output`).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub command: String,
}

impl Out {
    /// `text` in `style`, when colour is on.
    pub fn paint(&self, style: Style, text: impl AsRef<str>) -> String {
        let text = text.as_ref();
        if self.color && !text.is_empty() {
            format!("\x1b[{}m{text}\x1b[0m", style.sgr())
        } else {
            text.to_owned()
        }
    }

    /// Lays out rows as aligned columns (see [`table`]), the header and the styled columns in
    /// colour when it is on.
    pub fn table(&self, header: &[&str], rows: &[Vec<String>], styles: &[Option<Style>]) -> String {
        if !self.color {
            return table(header, rows);
        }
        let widths = column_widths(header, rows);
        let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
        let mut out = String::new();
        for (n, row) in std::iter::once(&header).chain(rows).enumerate() {
            let mut line = String::new();
            let mut pending = 0;
            for (i, cell) in row.iter().enumerate().take(widths.len()) {
                let style =
                    if n == 0 { Some(Style::Heading) } else { styles.get(i).copied().flatten() };
                if !cell.is_empty() {
                    line.push_str(&" ".repeat(pending));
                    pending = 0;
                    line.push_str(&match style {
                        Some(st) => self.paint(st, cell),
                        None => cell.clone(),
                    });
                }
                // Padding is written only before a later non-empty cell: no trailing spaces.
                pending += widths[i] - cell.chars().count() + 2;
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Prints text to stdout as is.
    pub fn text(&self, s: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(s.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// Prints one line to stdout.
    pub fn line(&self, s: impl AsRef<str>) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(s.as_ref().as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    }

    /// Prints a value as pretty JSON, its fractional numbers rounded to four decimals
    /// ([`memlane::ops::wire::tidy`]).
    pub fn json<T: Serialize + ?Sized>(&self, v: &T) -> anyhow::Result<()> {
        let mut v = serde_json::to_value(v)?;
        memlane::ops::wire::tidy(&mut v);
        self.json_exact(&v)
    }

    /// Prints a value as pretty JSON, numbers exactly as they are (`config`: a user's values).
    pub fn json_exact<T: Serialize + ?Sized>(&self, v: &T) -> anyhow::Result<()> {
        #[cfg(debug_assertions)]
        self.check_declared(&serde_json::to_value(v)?, false);
        let mut s = serde_json::to_string_pretty(v)?;
        s.push('\n');
        self.text(&s)
    }

    /// Prints a value as JSON on one line: one document of a stream (`watch --json`).
    pub fn json_line<T: Serialize + ?Sized>(&self, v: &T) -> anyhow::Result<()> {
        #[cfg(debug_assertions)]
        self.check_declared(&serde_json::to_value(v)?, true);
        self.line(serde_json::to_string(v)?)
    }

    /// Debug builds: stops with what is wrong when `value` is not a shape the running command
    /// declares, so every test that reads a command's `--json` holds it to its reference.
    #[cfg(debug_assertions)]
    fn check_declared(&self, value: &serde_json::Value, line: bool) {
        if let Err(problems) = crate::cli::json_output::check_printed(&self.command, value, line) {
            panic!(
                "`memlane {} --json` printed what src/cli/json_output.rs does not declare \
                 (document it on the declared type, then `cargo run -- generate docs --out-dir .`):\n{problems}",
                self.command
            );
        }
    }

    /// A note for a person on stderr (suppressed by `--quiet` and `--json`).
    pub fn note(&self, s: impl AsRef<str>) {
        if !self.quiet && !self.json {
            let _ = writeln!(std::io::stderr().lock(), "{}", s.as_ref());
        }
    }

    /// The one warning of a read that could not write into the vault (a read-only vault, a full
    /// disk): `why` says what the system reported. Said once, however many writes failed.
    pub fn warn_unwritable(&self, why: &str) {
        if !self.unwritable_warned.replace(true) {
            self.warn(memlane::index::store::unwritable_message(why));
        }
    }

    /// A warning on stderr (suppressed by `--quiet`).
    pub fn warn(&self, s: impl AsRef<str>) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "memlane: warning: {}", s.as_ref());
        }
    }
}

/// Each column's width in characters.
fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    widths
}

/// Lays out rows as aligned columns separated by two spaces (the last column is not padded).
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let widths = column_widths(header, rows);
    let mut out = String::new();
    let mut push_row = |cells: Vec<&str>| {
        let mut line = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&" ".repeat(widths[i] - c.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    push_row(header.to_vec());
    for r in rows {
        push_row(r.iter().map(String::as_str).collect());
    }
    out
}

/// A byte count for people: `812 B`, `4.2 KiB`.
pub(crate) fn human_size(n: u64) -> String {
    if n < 1024 { format!("{n} B") } else { format!("{:.1} KiB", n as f64 / 1024.0) }
}
