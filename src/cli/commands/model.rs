//! `memlane model import|pull|list`.

use crate::cli::Ctx;
use crate::cli::error::CliError;
use memlane::Error;
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
            let dest = memlane::index::select::default_model_dir().ok_or(CliError::NoModelDir)?;
            let installed = memlane::index::select::import_model(dir, &dest)?;
            // The import is now the model `auto` uses, not an earlier pull.
            memlane::index::hub::clear_default_pointer().map_err(Error::from)?;
            if ctx.out.json {
                /// `model import --json`.
                #[derive(serde::Serialize)]
                struct Imported<'a> {
                    installed: &'a std::path::Path,
                }
                return ctx.out.json(&Imported { installed: &installed });
            }
            ctx.out.line(format!(
                "installed the model from {} as {}",
                dir.display(),
                installed.display()
            ))?;
            ctx.out.note("`[embedding] model = \"auto\"` (the default) now uses it; run `memlane reindex` in each vault");
            Ok(())
        }
        ModelCommand::Pull { name } => crate::cli::commands::model_hub::pull(ctx, name.as_deref()),
        ModelCommand::List => crate::cli::commands::model_hub::list(ctx),
    }
}
