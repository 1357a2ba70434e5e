//! `memlane search`.

use crate::cli::Ctx;
use crate::cli::output::Style;
use crate::cli::session::CliSession;
use memlane::config::{Intent, SearchProfile};
use memlane::limits;
use memlane::ops::{self, Session as _};
use memlane::search::{SearchQuery, SearchResults};

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
    #[arg(long, value_parser = crate::cli::args::status())]
    status: Option<String>,
    /// Include archived memories
    #[arg(long)]
    include_archived: bool,
    #[command(flatten)]
    window: crate::cli::args::TimeWindowArgs,
    /// What kind of search (the fusion weights)
    #[arg(long, default_value_t, value_name = "INTENT", value_parser = crate::cli::args::choice::<Intent>())]
    intent: Intent,
    /// Ranking profile (default: `search.profile`)
    #[arg(long, value_name = "PROFILE", value_parser = crate::cli::args::choice::<SearchProfile>())]
    profile: Option<SearchProfile>,
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
        intent: args.intent,
        budget: args.budget,
        profile: args.profile,
    };
    let req = ops::search::SearchRequest { query, touch: !args.no_touch, expand: args.expand };
    let found = ops::search::search(&s, &req)?;
    if ctx.out.json {
        return ctx.out.json(&ops::wire::search_found(&found, args.explain));
    }
    print_results(ctx, &found.results, &found.expanded, args.explain)
}

fn print_results(
    ctx: &Ctx,
    r: &SearchResults,
    expanded: &[ops::search::Expanded],
    explain: bool,
) -> anyhow::Result<()> {
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
            text.push_str(&format!(
                "; question words {} (×{:.2})",
                r.query.question_words.join(", "),
                r.query.question_weight
            ));
        }
        if !r.query.expanded_terms.is_empty() {
            text.push_str(&format!("; expands {}", r.query.expanded_terms.join(", ")));
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
    if !e.expanded_terms.is_empty() {
        text.push_str(&format!("   expanded: {}\n", e.expanded_terms.join(", ")));
    }
    text.push_str(&format!(
            "   fuse: lexical {:.3} (chunk {}: bm25 {:.3}, coverage {:.3}, feedback {:.3}, trust {:.2}), vector {:.3}; speaker ×{:.2}; thread context +{:.3} (best neighbour {:.3}, question replied to {:.3}); time ×{:.2} (closeness {:.2}) → fused {:.3}; rrf {:.5}\n   calibrate: evidence {:.3} (coverage without question words {:.3}, vector evidence {:.3}), gate {:.3} → calibrated {:.3}\n",
            e.lexical, e.lexical_chunk, e.bm25_norm, e.coverage, e.feedback, e.lexical_trust, e.vector_score, e.subject_factor, e.context_bonus, e.context, e.reply_to, e.time_factor, e.time_closeness, e.fused, e.rrf, e.evidence, e.content_coverage, e.vector_evidence, e.gate, e.calibrated
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
