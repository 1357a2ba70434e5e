//! `memlane search`, `memlane reindex`, `memlane model import`.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use memlane::Error;
use memlane::config::{Intent, SearchProfile};
use memlane::index::store::{Indexes, Progress, ReconcileReport};
use memlane::limits;
use memlane::search::{SearchQuery, SearchResults};

use crate::cli::Ctx;
use crate::cli::commands::list::time_window;

/// Search memories by keyword and meaning
///
/// Fuses BM25 and vector similarity with weighted reciprocal-rank fusion, calibrates the result to
/// an absolute relevance, then applies the type profile, recency boost and supersession stages.
/// The indices are brought up to date with the files first.
#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {
    /// What to look for (any text; quotes mark a phrase)
    query: String,
    /// How many results (default: `search.limit`, 5)
    #[arg(short = 'n', long)]
    limit: Option<usize>,
    /// Only this type (repeatable)
    #[arg(short = 't', long = "type", value_name = "TYPE", value_delimiter = ',')]
    types: Vec<String>,
    /// Only memories with this tag (repeatable: any of them)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',')]
    tags: Vec<String>,
    /// Only this status
    #[arg(long, value_parser = ["active", "archived"])]
    status: Option<String>,
    /// Include archived memories
    #[arg(long)]
    include_archived: bool,
    /// Only memories created at or after this time (ISO-8601 date or timestamp)
    #[arg(long, value_name = "TIME")]
    after: Option<String>,
    /// Only memories created before this time
    #[arg(long, value_name = "TIME")]
    before: Option<String>,
    /// Only memories created within this long before now (`7d`, `12h`); overrides --after/--before
    #[arg(long, value_name = "AGE")]
    since: Option<String>,
    /// What kind of search: general, recall (favours exact words), exact, explore (favours meaning)
    #[arg(long, default_value = "general", value_name = "INTENT")]
    intent: String,
    /// Ranking profile (default: `search.profile`): balanced, ragdocs, mnestra, remindb, mira
    #[arg(long, value_name = "PROFILE")]
    profile: Option<String>,
    /// Return as many results as fit in this many tokens (at least one) instead of a count
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// Show every ranking stage's value for every result
    #[arg(long)]
    explain: bool,
    /// Do not count this search as a use of the results (no warming)
    #[arg(long)]
    no_touch: bool,
    /// Also return memories linked to the top N results, marked with the link that brought them
    #[arg(long, value_name = "N")]
    expand: Option<usize>,
}

/// Rebuild the search indices from the memory files
#[derive(Debug, clap::Args)]
pub(crate) struct ReindexArgs {}

/// Manage the local sentence-transformer model
#[derive(Debug, clap::Args)]
pub(crate) struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ModelCommand {
    /// Install a sentence-transformer model directory (model.safetensors, tokenizer.json,
    /// config.json) as the default local model
    Import {
        /// The model directory (e.g. all-MiniLM-L6-v2)
        dir: PathBuf,
    },
}

fn bad(msg: String) -> anyhow::Error {
    Error::Invalid(msg).into()
}

pub(crate) fn search(ctx: &mut Ctx, args: &SearchArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    for t in &args.types {
        vault.check_type(t)?;
    }
    let intent: Intent = args.intent.parse().map_err(|_| {
        bad(format!(
            "unknown intent `{}`\n  hint: use general, recall, exact or explore",
            args.intent
        ))
    })?;
    let profile = args
        .profile
        .as_deref()
        .map(|p| {
            p.parse::<SearchProfile>().map_err(|_| {
                bad(format!(
                    "unknown profile `{p}`\n  hint: use balanced, ragdocs, mnestra, remindb or mira"
                ))
            })
        })
        .transpose()?;
    limits::check_opt("--limit", args.limit, 1, limits::MAX_RESULTS)?;
    limits::check_opt("--budget", args.budget, 1, limits::MAX_BUDGET_TOKENS)?;
    limits::check_opt("--expand", args.expand, 0, limits::MAX_EXPAND)?;
    let (after, before) =
        time_window(&vault, args.after.as_deref(), args.before.as_deref(), args.since.as_deref())?;
    // The query is embedded: load the model while the indices open.
    memlane::index::select::prepare(&vault.config);
    let (mut idx, _) = ctx.open_reconciled(&vault)?;
    let q = SearchQuery {
        text: args.query.clone(),
        limit: args.limit,
        types: args.types.clone(),
        tags: args.tags.clone(),
        statuses: args.status.iter().cloned().collect(),
        include_archived: args.include_archived,
        after,
        before,
        intent,
        budget: args.budget,
        profile,
    };
    let state = crate::cli::commands::lifecycle::temperatures(ctx, &vault)?;
    let run = |idx: &Indexes| {
        memlane::index::store::catch_index_panic(|| {
            memlane::search::search_with_usage(&vault, idx, &q, &state)
        })
    };
    let results = match run(&idx) {
        Some(r) => r?,
        None => {
            let (fresh, report) = Indexes::rebuild_after_failure(&vault, idx.embedder().clone())?;
            ctx.report_reconcile(&vault, &report);
            idx = fresh;
            run(&idx).ok_or_else(|| {
                memlane::index::store::IndexError::Unreadable(idx.dir().to_owned())
            })??
        }
    };
    if !args.no_touch && !results.hits.is_empty() {
        let used: Vec<(String, bool)> = results
            .hits
            .iter()
            .map(|h| (h.id.clone(), idx.manifest().entries.get(&h.name).is_some_and(|e| e.pinned)))
            .collect();
        crate::cli::commands::lifecycle::touch(ctx, &vault, &used)?;
    }
    let expanded = match args.expand {
        Some(n) if n > 0 => expand(&vault, &idx, &results, n),
        _ => Vec::new(),
    };
    print_results(ctx, &results, &expanded, args.explain)
}

/// A memory linked to one of the top hits (`--expand`).
#[derive(Debug, Clone, serde::Serialize)]
struct Expanded {
    memory_id: String,
    name: String,
    id: String,
    /// The hit's score × the link's weight and confidence.
    score: f64,
    content: String,
    #[serde(rename = "type")]
    memory_type: String,
    status: String,
    tags: Vec<String>,
    file_path: String,
    /// The hit that brought it.
    expanded_from: String,
    /// The link between them (in either direction).
    edge_type: String,
}

fn expand(
    vault: &memlane::vault::Vault,
    idx: &Indexes,
    r: &SearchResults,
    n: usize,
) -> Vec<Expanded> {
    let shown: std::collections::HashSet<&str> = r.hits.iter().map(|h| h.name.as_str()).collect();
    let mut best: std::collections::BTreeMap<String, Expanded> = Default::default();
    for hit in r.hits.iter().take(n) {
        for rel in idx.graph().neighbors(
            &format!("memory:{}", hit.name),
            1,
            &memlane::model::links::link_weight,
        ) {
            let Some(name) = rel.key.strip_prefix("memory:") else { continue };
            if shown.contains(name) {
                continue;
            }
            let Some(entry) = idx.manifest().entries.get(name) else { continue };
            if entry.status != "active" {
                continue;
            }
            let score = hit.score * f64::from(rel.score);
            if best.get(name).is_some_and(|e| e.score >= score) {
                continue;
            }
            let Ok(mname) = memlane::model::MemoryName::parse(name) else { continue };
            let Ok(m) = vault.load(&mname) else { continue };
            best.insert(
                name.to_owned(),
                Expanded {
                    memory_id: format!("memory:{name}"),
                    name: name.to_owned(),
                    id: entry.id.clone(),
                    score: (score * 10_000.0).round() / 10_000.0,
                    content: m.redacted_content(vault.config.privacy.scrub_secrets),
                    memory_type: entry.memory_type.clone(),
                    status: entry.status.clone(),
                    tags: entry.tags.clone(),
                    file_path: m.path.display().to_string(),
                    expanded_from: hit.name.clone(),
                    edge_type: rel.path.first().map(|(_, t)| t.clone()).unwrap_or_default(),
                },
            );
        }
    }
    let mut out: Vec<Expanded> = best.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    out
}

fn print_results(
    ctx: &Ctx,
    r: &SearchResults,
    expanded: &[Expanded],
    explain: bool,
) -> anyhow::Result<()> {
    if ctx.out.json {
        let mut hits: Vec<serde_json::Value> = r
            .hits
            .iter()
            .map(|h| {
                let mut v = serde_json::to_value(h).expect("hits serialise");
                v["score"] = serde_json::json!((h.score * 10_000.0).round() / 10_000.0);
                if !explain {
                    v.as_object_mut().expect("object").remove("explain");
                }
                v
            })
            .collect();
        hits.extend(expanded.iter().map(|e| serde_json::to_value(e).expect("serialises")));
        return ctx.out.json(&hits);
    }
    if r.hits.is_empty() {
        ctx.out.note("no memory matches well enough (try other words, or `--explain`)");
        return Ok(());
    }
    let mut text = String::new();
    if explain {
        let terms: Vec<String> =
            r.query.terms.iter().map(|(t, w)| format!("{t} ({w:.2})")).collect();
        text.push_str(&format!("query: terms {}", terms.join(", ")));
        if !r.query.question_words.is_empty() {
            text.push_str(&format!("; question words {}", r.query.question_words.join(", ")));
        }
        if let Some((from, to)) = &r.query.time {
            text.push_str(&format!("; names the time {from} to {to}"));
        }
        text.push('\n');
    }
    for (i, h) in r.hits.iter().enumerate() {
        let place = if h.header_path.is_empty() {
            String::new()
        } else {
            format!(" › {}", h.header_path)
        };
        text.push_str(&format!(
            "{}. {}{}  [{:.2}]  {}",
            i + 1,
            h.name,
            place,
            h.score,
            h.memory_type
        ));
        if !h.tags.is_empty() {
            text.push_str(&format!("  #{}", h.tags.join(" #")));
        }
        text.push('\n');
        if let Some(s) = &h.superseded_by {
            text.push_str(&format!("   superseded by {s}\n"));
        }
        text.push_str(&format!("   {}\n", h.snippet));
        if explain {
            let e = &h.explain;
            let opt = |v: Option<usize>| v.map_or("-".to_owned(), |n| n.to_string());
            text.push_str(&format!(
                "   retrieve: bm25 rank {} score {}, vector rank {} similarity {}\n",
                opt(e.bm25_rank),
                e.bm25_score.map_or("-".to_owned(), |s| format!("{s:.3}")),
                opt(e.vector_rank),
                e.vector_similarity.map_or("-".to_owned(), |s| format!("{s:.3}")),
            ));
            text.push_str(&format!(
                "   fuse: lexical {:.3} (bm25 {:.3}, coverage {:.3}), vector {:.3}; thread context +{:.3} (best neighbour {:.3}); time ×{:.2} (closeness {:.2}) → fused {:.3}; rrf {:.5}\n   calibrate: evidence {:.3} (vector evidence {:.3}), gate {:.3} → calibrated {:.3}\n",
                e.lexical, e.bm25_norm, e.coverage, e.vector_score, e.context_bonus, e.context, e.time_factor, e.time_closeness, e.fused, e.rrf, e.evidence, e.vector_evidence, e.gate, e.calibrated
            ));
            let importance = match (e.importance, e.importance_factor) {
                (Some(i), Some(f)) => format!("; importance {i:.3} (×{f:.2})"),
                _ => String::new(),
            };
            text.push_str(&format!(
                "   type: weight {:.2} × decay {:.3} (age {:.1} d); recency +{:.3}; temperature {:.2} (×{:.2}){importance}; superseded ×{:.2}; expiry ×{:.2} → {:.3}\n",
                e.type_weight, e.type_decay, e.age_days, e.recency_bonus, e.temperature, e.temperature_factor,
                e.supersession_factor, e.expiry_factor, e.score
            ));
        }
    }
    for e in expanded {
        text.push_str(&format!(
            "+ {}  [{:.2}]  {}  ({} of {})\n",
            e.name, e.score, e.memory_type, e.edge_type, e.expanded_from
        ));
    }
    ctx.out.text(&text)
}

fn progress_printer(ctx: &Ctx) -> impl FnMut(Progress) + use<> {
    let show = !ctx.out.quiet && !ctx.out.json && std::io::stderr().is_terminal();
    let mut last = 0usize;
    move |p: Progress| {
        if !show || p.total == 0 {
            return;
        }
        let pct = p.done * 100 / p.total;
        if pct != last || p.done == p.total {
            last = pct;
            let width = 30;
            let filled = width * p.done / p.total;
            let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
            let mut err = std::io::stderr().lock();
            let _ = std::io::Write::write_fmt(
                &mut err,
                format_args!("\r[{bar}] {}/{} chunks", p.done, p.total),
            );
            if p.done == p.total {
                let _ = std::io::Write::write_all(&mut err, b"\n");
            }
        }
    }
}

pub(crate) fn reindex(ctx: &mut Ctx, _args: &ReindexArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    // Start from nothing: a damaged store must not stop the rebuild that repairs it.
    Indexes::reset(&vault)?;
    let mut idx = ctx.open_indexes(&vault)?;
    let mut progress = progress_printer(ctx);
    let report = idx.rebuild(&vault, &mut progress)?;
    if let Some(d) = &report.repaired {
        ctx.out.warn(format!(
            "the search indices were damaged ({d}); rebuilt them from the memory files"
        ));
    }
    for p in &report.problems {
        ctx.out.warn(p);
    }
    if ctx.out.json {
        return ctx.out.json(&serde_json::json!({
            "memories": report.added,
            "chunks": report.chunks,
            "embedded": report.embedded,
            "reused": report.reused,
            "embedder": idx.embedder().id(),
            "elapsed_ms": report.elapsed_ms,
            "problems": report.problems,
        }));
    }
    ctx.out.line(format!(
        "indexed {} memories ({} chunks) with {} in {:.1} s",
        report.added,
        report.chunks,
        idx.embedder().id(),
        report.elapsed_ms as f64 / 1000.0
    ))
}

pub(crate) fn model(ctx: &mut Ctx, args: &ModelArgs) -> anyhow::Result<()> {
    match &args.command {
        ModelCommand::Import { dir } => {
            let dest = memlane::index::select::default_model_dir().ok_or_else(|| {
                bad("cannot find the user data directory for models\n  hint: set HOME".into())
            })?;
            let installed = memlane::index::select::import_model(dir, &dest)?;
            if ctx.out.json {
                return ctx.out.json(&serde_json::json!({ "installed": installed }));
            }
            ctx.out.line(format!(
                "installed the model from {} as {}",
                dir.display(),
                installed.display()
            ))?;
            ctx.out.note("`[embedding] model = \"auto\"` (the default) now uses it; run `memlane reindex` in each vault");
            Ok(())
        }
    }
}

impl Ctx {
    /// Opens the vault's indices with the configured embedder.
    pub fn open_indexes(&self, vault: &memlane::vault::Vault) -> anyhow::Result<Indexes> {
        let embedder = memlane::index::select::embedder_for(&vault.config)?;
        Ok(Indexes::open(vault, embedder)?)
    }

    /// Opens the vault's indices and brings them up to date, for a command that only reads:
    /// where the vault cannot be written they are built in memory (see
    /// [`Indexes::open_reconciled`]). The report is given to [`Ctx::report_reconcile`].
    pub fn open_reconciled(
        &self,
        vault: &memlane::vault::Vault,
    ) -> anyhow::Result<(Indexes, ReconcileReport)> {
        let embedder = memlane::index::select::embedder_for(&vault.config)?;
        let (idx, report) = Indexes::open_reconciled(vault, embedder)?;
        self.report_reconcile(vault, &report);
        Ok((idx, report))
    }

    /// Tells the user about work the reconcile did (on stderr, at info level), and starts the
    /// usage clock of memories seen for the first time.
    pub fn report_reconcile(&self, vault: &memlane::vault::Vault, r: &ReconcileReport) {
        if let Some(why) = &r.not_saved {
            self.out.warn_unwritable(why);
        }
        if !r.added_ids.is_empty() {
            let now = vault.clock.now();
            let cfg = &vault.config.lifecycle;
            let observed = memlane::lifecycle::UsageStore::update(vault.root(), |state| {
                for id in &r.added_ids {
                    state.observe(id, now, cfg);
                }
            });
            if let Err(e) = observed {
                match memlane::index::store::unwritable(&e) {
                    Some(why) => self.out.warn_unwritable(&why),
                    None => self.out.warn(format!("cannot record usage state: {e}")),
                }
            }
        }
        if let Some(d) = &r.repaired {
            self.out.warn(format!(
                "the search indices were damaged ({d}); rebuilt them from the memory files"
            ));
        }
        for p in &r.problems {
            self.out.warn(p);
        }
        if r.changed() {
            tracing::info!(
                added = r.added,
                updated = r.updated,
                removed = r.removed,
                rebuilt = r.rebuilt.as_deref().unwrap_or(""),
                ms = r.elapsed_ms,
                "indices updated"
            );
        }
    }
}
