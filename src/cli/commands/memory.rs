//! Commands on one memory: `add`, `show`, `edit`, `update`, `append`, `rm`, `mv`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use memlane::Error;
use memlane::model::MemoryName;
use memlane::model::time::format_timestamp;
use memlane::vault::{AddRequest, Memory, UpdateRequest, Vault, WriteOutcome, WriteStatus};
use serde_json::json;

use crate::cli::Ctx;

/// Create a memory
///
/// The content comes from the CONTENT argument, from `--file`, or from standard input (also
/// when CONTENT is `-`). `<private>…</private>` blocks and credentials are redacted before
/// anything is written; content that is empty after redaction is skipped.
#[derive(Debug, clap::Args)]
pub(crate) struct AddArgs {
    /// The new memory's name, e.g. `auth/jwt-plan` (folders are created as needed)
    name: String,
    /// The content (Markdown); `-` reads standard input
    content: Option<String>,
    /// Read the content from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
    /// The memory type (default: `default_type` from the config, `journal` built in)
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// A tag (repeatable; `a,b` adds both)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',')]
    tags: Vec<String>,
    /// Add it even when an existing memory is nearly the same (`lifecycle.dedup_threshold`)
    #[arg(long)]
    force: bool,
}

/// Print a memory
#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    name: String,
    /// Print the file exactly as it is on disk
    #[arg(long)]
    raw: bool,
    /// Do not count this read as a use (no warming)
    #[arg(long)]
    no_touch: bool,
}

/// Open a memory in `$VISUAL` / `$EDITOR`
///
/// The file is edited in a temporary copy; when the editor exits with changes, they are checked,
/// redacted and written atomically, with the old version kept in history.
#[derive(Debug, clap::Args)]
pub(crate) struct EditArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    name: String,
}

/// Replace a memory's content or change its metadata
///
/// By default CONTENT replaces the body and the frontmatter is kept; with `--raw` it replaces the
/// whole file (frontmatter included). The old version goes to history first.
#[derive(Debug, clap::Args)]
pub(crate) struct UpdateArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    name: String,
    /// The new content; `-` reads standard input
    content: Option<String>,
    /// Read the new content from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
    /// The content is the whole file, frontmatter included
    #[arg(long)]
    raw: bool,
    /// Change the type
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// Replace the tags with these (repeatable; `a,b` sets both)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',')]
    tags: Vec<String>,
    /// Add a tag (repeatable)
    #[arg(long = "add-tag", value_name = "TAG", value_delimiter = ',')]
    add_tags: Vec<String>,
    /// Remove a tag (repeatable)
    #[arg(long = "remove-tag", value_name = "TAG", value_delimiter = ',')]
    remove_tags: Vec<String>,
    /// Change the status
    #[arg(long, value_parser = ["active", "archived"])]
    status: Option<String>,
}

/// Add text to the end of a memory, after a blank line
#[derive(Debug, clap::Args)]
pub(crate) struct AppendArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    name: String,
    /// The text to append; `-` reads standard input
    content: Option<String>,
    /// Read the text from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
}

/// Move memories to the trash (`memlane trash restore` brings them back)
#[derive(Debug, clap::Args)]
pub(crate) struct RmArgs {
    /// The memories: names, `name.md`, `memory:name`, or ids
    #[arg(required = true)]
    names: Vec<String>,
}

/// Rename a memory (its id stays the same)
#[derive(Debug, clap::Args)]
pub(crate) struct MvArgs {
    /// The memory to rename
    from: String,
    /// The new name
    to: String,
}

/// Where content comes from: an argument, a file, or standard input.
fn read_content(
    ctx: &Ctx,
    arg: Option<&str>,
    file: Option<&Path>,
    stdin_allowed: bool,
) -> anyhow::Result<Option<String>> {
    if let Some(f) = file {
        if f == Path::new("-") {
            return ctx.read_stdin();
        }
        let bytes = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Invalid(format!("{} is not UTF-8 text", f.display())))?;
        return Ok(Some(text));
    }
    match arg {
        Some("-") => ctx.read_stdin(),
        Some(s) => Ok(Some(s.to_owned())),
        None if stdin_allowed => Ok(ctx.read_stdin()?.filter(|s| !s.is_empty())),
        None => Ok(None),
    }
}

fn no_content(what: &str) -> anyhow::Error {
    Error::Invalid(format!(
        "no content to {what}\n  hint: pass it as an argument, with `--file PATH`, or on standard input"
    ))
    .into()
}

/// Prints a write outcome as one readable line (or JSON).
pub(crate) fn print_outcome(ctx: &Ctx, o: &WriteOutcome) -> anyhow::Result<()> {
    if ctx.out.json {
        return ctx.out.json(o);
    }
    let line = match o.status {
        WriteStatus::Created => format!("created {} ({})", o.name, o.id),
        WriteStatus::Updated => format!("updated {}", o.name),
        WriteStatus::Unchanged => format!("unchanged {} (nothing to write)", o.name),
        WriteStatus::Skipped => {
            format!("skipped {}: {}", o.name, o.reason.as_deref().unwrap_or("nothing to store"))
        }
        WriteStatus::Deleted => {
            format!("deleted {} (in trash as {})", o.name, o.trash_entry.as_deref().unwrap_or("?"))
        }
        WriteStatus::Moved => format!("moved {} -> {}", o.from.as_deref().unwrap_or("?"), o.name),
        WriteStatus::Restored => format!("restored {}", o.name),
    };
    ctx.out.line(line)?;
    if o.private_blocks > 0 || !o.secrets.is_empty() || o.tags_dropped > 0 {
        let mut parts = Vec::new();
        if o.private_blocks > 0 {
            parts.push(format!(
                "{} private block{}",
                o.private_blocks,
                if o.private_blocks == 1 { "" } else { "s" }
            ));
        }
        for s in &o.secrets {
            parts.push(format!("{} {}", s.count, s.kind));
        }
        if o.tags_dropped > 0 {
            let n = o.tags_dropped;
            parts.push(format!("{n} tag{} dropped", if n == 1 { "" } else { "s" }));
        }
        ctx.out.line(format!("  redacted: {}", parts.join(", ")))?;
    }
    if let Some(v) = o.history_version {
        ctx.out.line(format!("  previous version kept as history version {v}"))?;
    }
    Ok(())
}

pub(crate) fn add(ctx: &mut Ctx, args: &AddArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let name = MemoryName::parse(&args.name).map_err(Error::from)?;
    if let Some(t) = &args.memory_type {
        vault.check_type(t)?;
    }
    let content = read_content(ctx, args.content.as_deref(), args.file.as_deref(), true)?
        .ok_or_else(|| no_content("add"))?;
    if !args.force && !vault.path_of(&name).exists() {
        let clean = memlane::privacy::sanitize(&content, vault.config.privacy.scrub_secrets);
        if !clean.is_empty() {
            // The duplicate check embeds: load the model while the indices open.
            memlane::index::select::prepare(&vault.config);
            let mut idx = ctx.open_indexes(&vault)?;
            ctx.report_reconcile(&vault, &idx.reconcile(&vault)?);
            let threshold = vault.config.lifecycle.dedup_threshold;
            if let Some((dup, sim)) = memlane::lifecycle::consolidate::find_duplicate(
                &vault,
                &idx,
                &clean.text,
                threshold,
            ) {
                return Err(Error::Invalid(format!(
                    "the content is {sim:.2} similar to the existing memory `{dup}`; nothing was written\n  hint: `memlane append {dup} …` or `memlane update {dup} …` to change it, or `--force` to add it anyway"
                ))
                .into());
            }
        }
    }
    let req =
        AddRequest { content, memory_type: args.memory_type.clone(), tags: args.tags.clone() };
    let outcome = vault.add(&name, &req)?;
    if outcome.status == WriteStatus::Created {
        let now = vault.clock.now();
        let cfg = &vault.config.lifecycle;
        // The memory is written: a usage state that cannot be (a full disk) is a warning, never
        // a failure reported for a memory that exists.
        let observed = memlane::lifecycle::UsageStore::update(vault.root(), |state| {
            state.touch_day(now);
            state.observe(&outcome.id, now, cfg);
        });
        if let Err(e) = observed {
            ctx.out.warn(format!(
                "{} was added, but the usage state could not be updated: {e}",
                outcome.name
            ));
        }
    }
    print_outcome(ctx, &outcome)
}

fn warn_memory(ctx: &Ctx, m: &Memory) {
    for w in &m.warnings {
        ctx.out.warn(format!("{}: {w}", m.name));
    }
}

/// The JSON shape of one memory (see README).
pub(crate) fn memory_json(vault: &Vault, m: &Memory, with_content: bool) -> serde_json::Value {
    let mut v = json!({
        "name": m.name,
        "id": m.id,
        "type": m.memory_type,
        "status": m.status,
        "tags": m.meta.tags,
        "created_at": format_timestamp(m.created_at),
        "updated_at": format_timestamp(m.updated_at),
        "pinned": m.meta.pinned,
        "had_private_content": m.meta.had_private_content,
        "file_path": m.path,
        "size": m.size(),
        "warnings": m.warnings,
    });
    if with_content {
        let mut frontmatter: serde_json::Value = m
            .doc
            .mapping()
            .ok()
            .and_then(|map| serde_json::to_value(map).ok())
            .unwrap_or(serde_json::Value::Null);
        // Every value, as content is: a hand-written `note: <private>…</private>` or a secret in
        // any key never reaches the output. Tags are the redacted list (a tag redaction touches
        // is left out, not shown as a marker).
        memlane::privacy::redact_json(&mut frontmatter, vault.config.privacy.scrub_secrets);
        if let Some(map) = frontmatter.as_object_mut()
            && map.contains_key("tags")
        {
            map.insert("tags".into(), json!(m.meta.tags));
        }
        v["frontmatter"] = frontmatter;
        v["content"] = json!(m.redacted_content(vault.config.privacy.scrub_secrets));
    }
    v
}

/// A memory's temperature (after this read's warm-up) and MIRA importance (SPEC §7.6), both
/// rounded to three decimals. Importance needs the indices (links, entities); when they cannot
/// be opened it is left out with a warning rather than failing the read.
fn lifecycle_of(ctx: &Ctx, vault: &Vault, m: &Memory) -> (f64, Option<f64>) {
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let (store, reset) = match memlane::lifecycle::UsageStore::open(vault.root()) {
        Ok(s) => s,
        Err(e) => {
            ctx.out.warn(format!("cannot read the usage state: {e}"));
            return (round(vault.config.lifecycle.temperature_start), None);
        }
    };
    if let Some(r) = reset {
        ctx.out.warn(r.to_string());
    }
    let state = store.into_state();
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let temperature = round(state.temperature(m.id.as_str(), m.meta.pinned, now, cfg));
    let importance = ctx.open_reconciled(vault).map(|(idx, _)| {
        let source = memlane::lifecycle::ImportanceSource::new(&idx, &state, now, cfg.clock);
        source.importance(m.name.as_str()).map(|i| round(i.score))
    });
    match importance {
        Ok(i) => (temperature, i),
        Err(e) => {
            ctx.out.warn(format!("importance not shown: {e:#}"));
            (temperature, None)
        }
    }
}

pub(crate) fn show(ctx: &mut Ctx, args: &ShowArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    warn_memory(ctx, &m);
    if !args.no_touch {
        crate::cli::commands::lifecycle::touch(ctx, &vault, &[(m.id.to_string(), m.meta.pinned)])?;
    }
    if args.raw {
        if ctx.out.json {
            return ctx
                .out
                .json(&json!({ "name": m.name, "id": m.id, "file_path": m.path, "raw": m.raw }));
        }
        return ctx.out.text(&m.raw);
    }
    let (temperature, importance) = lifecycle_of(ctx, &vault, &m);
    if ctx.out.json {
        let mut v = memory_json(&vault, &m, true);
        v["temperature"] = json!(temperature);
        v["importance"] = json!(importance);
        return ctx.out.json(&v);
    }
    let mut head = vec![
        ("id", m.id.to_string()),
        ("type", m.memory_type.clone()),
        ("status", m.status.clone()),
    ];
    if !m.meta.tags.is_empty() {
        head.push(("tags", m.meta.tags.join(", ")));
    }
    head.push(("created", format_timestamp(m.created_at)));
    head.push(("updated", format_timestamp(m.updated_at)));
    if m.meta.pinned {
        head.push(("pinned", "yes".into()));
    }
    if let Some(s) = &m.meta.superseded_by {
        head.push(("superseded by", s.clone()));
    }
    head.push(("temperature", format!("{temperature:.2}")));
    if let Some(i) = importance {
        head.push(("importance", format!("{i:.2}")));
    }
    let mut text = format!("{}\n", m.name);
    for (k, v) in head {
        text.push_str(&format!("  {k:<11} {v}\n"));
    }
    text.push('\n');
    let content = m.redacted_content(vault.config.privacy.scrub_secrets);
    text.push_str(&content);
    if !content.is_empty() && !content.ends_with('\n') {
        text.push('\n');
    }
    ctx.out.text(&text)
}

pub(crate) fn edit(ctx: &mut Ctx, args: &EditArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| std::env::var("EDITOR").ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    let dir = std::env::temp_dir().join(format!("memlane-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!("{}.md", m.name.file_stem()));
    std::fs::write(&tmp, &m.raw).with_context(|| format!("cannot write {}", tmp.display()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("memlane-edit")
        .arg(&tmp)
        .status()
        .map_err(|e| Error::Editor {
            editor: editor.clone(),
            problem: format!("could not start: {e}"),
        })?;
    if !status.success() {
        return Err(Error::Editor {
            editor,
            problem: format!(
                "exited with {status}; nothing was changed (your edit is in {})",
                tmp.display()
            ),
        }
        .into());
    }
    let edited =
        std::fs::read_to_string(&tmp).with_context(|| format!("cannot read {}", tmp.display()))?;
    if edited == m.raw {
        let _ = std::fs::remove_dir_all(&dir);
        return print_outcome(ctx, &unchanged(&m));
    }
    let req =
        UpdateRequest { content: Some(edited), raw: true, action: "edit", ..Default::default() };
    match vault.update(&m, &req) {
        Ok(o) => {
            let _ = std::fs::remove_dir_all(&dir);
            print_outcome(ctx, &o)
        }
        Err(e) => Err(anyhow::Error::new(e)
            .context(format!("your edit was not saved; it is kept in {}", tmp.display()))),
    }
}

fn unchanged(m: &Memory) -> WriteOutcome {
    let mut out = WriteOutcome::new(WriteStatus::Unchanged, &m.name, &m.id);
    out.path = Some(m.path.clone());
    out
}

pub(crate) fn update(ctx: &mut Ctx, args: &UpdateArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let meta_change = args.memory_type.is_some()
        || !args.tags.is_empty()
        || !args.add_tags.is_empty()
        || !args.remove_tags.is_empty()
        || args.status.is_some();
    let content = read_content(ctx, args.content.as_deref(), args.file.as_deref(), !meta_change)?;
    if content.is_none() && !meta_change {
        return Err(no_content("update"));
    }
    if args.raw && content.is_none() {
        return Err(Error::Invalid("`--raw` needs the whole new file as content".into()).into());
    }
    let req = UpdateRequest {
        content,
        raw: args.raw,
        memory_type: args.memory_type.clone(),
        tags: (!args.tags.is_empty()).then(|| args.tags.clone()),
        add_tags: args.add_tags.clone(),
        remove_tags: args.remove_tags.clone(),
        status: args.status.clone(),
        action: if args.raw { "raw" } else { "update" },
    };
    print_outcome(ctx, &vault.update(&m, &req)?)
}

pub(crate) fn append(ctx: &mut Ctx, args: &AppendArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let text = read_content(ctx, args.content.as_deref(), args.file.as_deref(), true)?
        .ok_or_else(|| no_content("append"))?;
    print_outcome(ctx, &vault.append(&m, &text)?)
}

pub(crate) fn rm(ctx: &mut Ctx, args: &RmArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    // Resolve every name first: one unknown name deletes nothing.
    let memories = args.names.iter().map(|n| vault.resolve(n)).collect::<Result<Vec<_>, _>>()?;
    // All or nothing: a failure (or a kill) midway leaves every memory in place.
    let outcomes = vault.all_or_nothing("rm", || {
        memories.iter().map(|m| vault.delete(m)).collect::<Result<Vec<_>, _>>()
    })?;
    if ctx.out.json {
        return ctx.out.json(&outcomes);
    }
    for o in &outcomes {
        print_outcome(ctx, o)?;
    }
    Ok(())
}

pub(crate) fn mv(ctx: &mut Ctx, args: &MvArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.from)?;
    let to = MemoryName::parse(&args.to).map_err(Error::from)?;
    // Links to the old name follow the memory, in the same all-or-nothing operation.
    let (moved, relinked) = vault.all_or_nothing("mv", || {
        let moved = vault.rename(&m, &to)?;
        Ok((moved, vault.rewrite_links(&m.name, &to)?))
    })?;
    if ctx.out.json {
        return ctx.out.json(&json!({ "moved": moved, "relinked": relinked }));
    }
    print_outcome(ctx, &moved)?;
    for r in &relinked {
        ctx.out.line(format!("  rewrote links in {}", r.name))?;
    }
    Ok(())
}
