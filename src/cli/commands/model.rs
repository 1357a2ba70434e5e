//! `memlane model import|pull|list|distill`.

use crate::cli::Ctx;
use std::path::PathBuf;

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
    /// Distil a static token table from a sentence-transformer model, for
    /// `[embedding] model = "static:FILE"` (deterministic: same model, same file)
    Distill {
        /// The model directory (default: the installed model `auto` uses)
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// The table file to write
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Dimensions kept by PCA (at most the model's)
        #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u16).range(8..=4096))]
        dims: u16,
        /// How token rows are weighted by vocabulary rank
        #[arg(long, value_enum, default_value_t = WeightingArg::Sif)]
        weighting: WeightingArg,
    },
}

/// `--weighting`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum WeightingArg {
    /// Smooth inverse frequency a/(a+p) with Zipf frequencies (model2vec's)
    Sif,
    /// ln(1 + rank)
    Zipf,
    /// No weighting
    None,
}

pub(crate) fn model(ctx: &mut Ctx, args: &ModelArgs) -> anyhow::Result<()> {
    match &args.command {
        ModelCommand::Import { dir } => {
            let imported = memlane::ops::model::import(dir)?;
            if ctx.out.json {
                return ctx.out.json(&imported);
            }
            ctx.out.line(format!(
                "installed the model from {} as {}",
                dir.display(),
                imported.installed.display()
            ))?;
            ctx.out.note("`[embedding] model = \"auto\"` (the default) now uses it; run `memlane reindex` in each vault");
            Ok(())
        }
        ModelCommand::Pull { name } => crate::cli::commands::model_hub::pull(ctx, name.as_deref()),
        ModelCommand::List => crate::cli::commands::model_hub::list(ctx),
        ModelCommand::Distill { from, out, dims, weighting } => {
            use memlane::index::minilm::static_table::{DistillOptions, Weighting};
            let weighting = match weighting {
                WeightingArg::Sif => Weighting::Sif,
                WeightingArg::Zipf => Weighting::Zipf,
                WeightingArg::None => Weighting::None,
            };
            let options = DistillOptions { dims: usize::from(*dims), weighting };
            let made = memlane::ops::model::distill(from.as_deref(), out, options)?;
            if ctx.out.json {
                return ctx.out.json(&made);
            }
            ctx.out.line(format!(
                "wrote {} ({} tokens × {} dims, {} weighting, {:.1} MB, xxh3 {}) from {}",
                made.out.display(),
                made.vocab,
                made.dims,
                made.weighting,
                made.bytes as f64 / 1_000_000.0,
                made.xxh3,
                made.from.display()
            ))?;
            ctx.out.note(format!(
                "use it with `[embedding] model = \"static:{}\"`; each vault re-embeds its memories on its next command (or run `memlane reindex`)",
                made.out.display()
            ));
            Ok(())
        }
    }
}
