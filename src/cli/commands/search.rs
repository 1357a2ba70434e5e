//! `memlane search`, `memlane reindex`, `memlane model import`.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use memlane::Error;
use memlane::index::store::{Indexes, Progress, ReconcileReport};
use memlane::search::{SearchQuery, SearchResults};

use memlane::limits;

use crate::cli::Ctx;
use crate::cli::output::Style;
use crate::cli::session::CliSession;
use memlane::ops::{self, Session as _};

/// Search memories by keyword and meaning
///
/// Scores every candidate twice, lexically (BM25 normalised to the best match, mixed with the
/// share of the query's terms it contains) and by vector similarity, and fuses the two scores as
/// a weighted mean (the weights depend on --intent); ranks are not fused. The fused score is
/// calibrated to an absolute relevance in [0, 1] (results below `search.score_threshold` are
/// dropped), then the type profile, recency boost, temperature and supersession stages reorder
/// what is left. The `ragdocs` profile ranks by weighted reciprocal-rank fusion instead. The
/// indices are brought up to date with the files first.
#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {
    /// What to look for (any text; quotes mark a phrase)
    query: String,
    /// How many results (default: `search.limit`, 5)
    #[arg(short = 'n', long)]
    limit: Option<usize>,
    /// Only this type (repeatable)
    #[arg(short = 't', long = "type", value_name = "TYPE", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::types))]
    types: Vec<String>,
    /// Only memories with this tag (repeatable: any of them)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    tags: Vec<String>,
    /// Only this status
    #[arg(long, value_parser = ["active", "archived"])]
    status: Option<String>,
    /// Include archived memories
    #[arg(long)]
    include_archived: bool,
    #[command(flatten)]
    window: crate::cli::args::TimeWindowArgs,
    /// What kind of search: general, recall (favours exact words), exact, explore (favours meaning)
    #[arg(long, default_value = "general", value_name = "INTENT", add = clap_complete::ArgValueCompleter::new(crate::cli::complete::intents))]
    intent: String,
    /// Ranking profile (default: `search.profile`): balanced, ragdocs, mnestra, remindb, mira
    #[arg(long, value_name = "PROFILE", add = clap_complete::ArgValueCompleter::new(crate::cli::complete::profiles))]
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
    /// Download a sentence-transformer from the Hugging Face Hub, verify it and make it the
    /// default local model (resumes an interrupted download)
    Pull {
        /// `organisation/name[@revision]` (default: sentence-transformers/all-MiniLM-L6-v2)
        name: Option<String>,
    },
    /// Show the installed models and which one this vault uses
    List,
}

fn bad(msg: String) -> anyhow::Error {
    Error::Invalid(msg).into()
}

pub(crate) fn search(ctx: &mut Ctx, args: &SearchArgs) -> anyhow::Result<()> {
    limits::check_opt("--limit", args.limit, 1, limits::MAX_RESULTS)?;
    limits::check_opt("--budget", args.budget, 1, limits::MAX_BUDGET_TOKENS)?;
    limits::check_opt("--expand", args.expand, 0, limits::MAX_EXPAND)?;
    let s = CliSession::open(ctx)?;
    let vault = s.vault();
    let window = args.window.window(vault)?;
    let query = SearchQuery {
        text: args.query.clone(),
        limit: args.limit,
        types: args.types.clone(),
        tags: args.tags.clone(),
        statuses: args.status.iter().cloned().collect(),
        include_archived: args.include_archived,
        after: window.after,
        before: window.before,
        intent: ops::search::intent(&args.intent)?,
        budget: args.budget,
        profile: args.profile.as_deref().map(ops::search::profile).transpose()?,
    };
    let req = ops::search::SearchRequest { query, touch: !args.no_touch, expand: args.expand };
    let found = ops::search::search(&s, &req)?;
    print_results(ctx, &found.results, &found.expanded, args.explain)
}

fn print_results(
    ctx: &Ctx,
    r: &SearchResults,
    expanded: &[ops::search::Expanded],
    explain: bool,
) -> anyhow::Result<()> {
    if ctx.out.json {
        let mut hits: Vec<serde_json::Value> =
            r.hits.iter().map(|h| ops::wire::hit(h, explain)).collect();
        hits.extend(expanded.iter().map(|e| serde_json::to_value(e).expect("serialises")));
        let below: Vec<serde_json::Value> =
            r.below_threshold.iter().map(|b| ops::wire::below(b, explain)).collect();
        return ctx.out.json(&serde_json::json!({ "results": hits, "below_threshold": below }));
    }
    if r.hits.is_empty() {
        if r.below_threshold.is_empty() {
            ctx.out.note("no memory matches (try other words)");
            return Ok(());
        }
        let closest: Vec<String> =
            r.below_threshold.iter().map(|b| format!("{} ({:.2})", b.name, b.score)).collect();
        ctx.out.note(format!(
            "no memory passed the threshold {:.2}; closest: {}\n  hint: try other words, or lower `search.score_threshold` (`--explain` shows how each was scored)",
            r.threshold,
            closest.join(", ")
        ));
        if !explain {
            return Ok(());
        }
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
        let out = &ctx.out;
        text.push_str(&format!(
            "{}. {}{}  [{}]  {}",
            i + 1,
            out.paint(Style::Name, &h.name),
            out.paint(Style::Heading, &place),
            out.paint(Style::Score, format!("{:.2}", h.score)),
            out.paint(Style::Type, &h.memory_type)
        ));
        if !h.tags.is_empty() {
            text.push_str(&format!(
                "  {}",
                out.paint(Style::Tag, format!("#{}", h.tags.join(" #")))
            ));
        }
        text.push('\n');
        if let Some(s) = &h.superseded_by {
            text.push_str(&format!("   superseded by {s}\n"));
        }
        text.push_str(&format!("   {}\n", h.snippet));
        if explain {
            explain_lines(&mut text, &h.explain);
        }
    }
    for e in expanded {
        text.push_str(&format!(
            "+ {}  [{:.2}]  {}  ({} of {})\n",
            e.name, e.score, e.memory_type, e.edge_type, e.expanded_from
        ));
    }
    if explain && !r.below_threshold.is_empty() {
        text.push_str(&format!("below the threshold {:.2}:\n", r.threshold));
        for (i, b) in r.below_threshold.iter().enumerate() {
            text.push_str(&format!(
                "{}. {}  [{:.2}]  {}\n   {}\n",
                i + 1,
                b.name,
                b.score,
                b.memory_type,
                b.snippet
            ));
            explain_lines(&mut text, &b.explain);
        }
    }
    ctx.out.text(&text)
}

/// The `--explain` lines of one result (every stage's value).
fn explain_lines(text: &mut String, e: &memlane::search::Explain) {
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
            // The import is now the model `auto` uses, not an earlier pull.
            memlane::index::hub::clear_default_pointer().map_err(Error::from)?;
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
        ModelCommand::Pull { name } => super::model_hub::pull(ctx, name.as_deref()),
        ModelCommand::List => super::model_hub::list(ctx),
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
