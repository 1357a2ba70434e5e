//! `memlane model import|pull|list`.

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
    }
}
