//! `memlane trash list|restore|empty`.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::error::CliError;
use crate::cli::output::{Style, human_size};
use crate::cli::session::CliSession;
use memlane::model::time::parse_duration_secs;
use memlane::ops;

/// List, restore or empty the trash
#[derive(Debug, clap::Args)]
pub(crate) struct TrashArgs {
    #[command(subcommand)]
    command: TrashCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TrashCommand {
    /// List deleted memories, newest first
    List,
    /// Bring a deleted memory back
    Restore {
        /// A trash entry (from `memlane trash list`), or a memory's old name or id (newest entry)
        entry: String,
        /// Restore under this name instead of the old one
        #[arg(long = "as", value_name = "NEW")]
        as_name: Option<String>,
    },
    /// Delete trash entries for good (the only permanent delete in memlane)
    Empty {
        /// Only entries deleted longer ago than this (`30d`, `12h`, `2w`)
        #[arg(long, value_name = "AGE")]
        older_than: Option<String>,
    },
}

pub(crate) fn trash(ctx: &mut Ctx, args: &TrashArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    match &args.command {
        TrashCommand::List => {
            let trash = ops::views::trash_list(&s)?;
            if ctx.out.json {
                return ctx.out.json(&trash);
            }
            if trash.entries.is_empty() {
                ctx.out.note("the trash is empty");
                return Ok(());
            }
            let rows: Vec<Vec<String>> = trash
                .entries
                .iter()
                .map(|e| {
                    vec![e.entry.clone(), e.name.clone(), e.deleted_at.clone(), human_size(e.size)]
                })
                .collect();
            ctx.out.text(&ctx.out.table(
                &["ENTRY", "NAME", "DELETED", "SIZE"],
                &rows,
                &[None, Some(Style::Name)],
            ))
        }
        TrashCommand::Restore { entry, as_name } => {
            print_outcome(ctx, &ops::trash::restore_deleted(&s, entry, as_name.as_deref())?)
        }
        TrashCommand::Empty { older_than } => {
            let secs = older_than
                .as_deref()
                .map(|s| {
                    parse_duration_secs(s).ok_or_else(|| CliError::BadDuration {
                        flag: "--older-than",
                        value: s.to_owned(),
                    })
                })
                .transpose()?;
            let emptied = ops::views::trash_empty(&s, secs)?;
            if ctx.out.json {
                return ctx.out.json(&emptied);
            }
            let n = emptied.removed.len();
            ctx.out.line(format!("removed {n} trash entr{}", if n == 1 { "y" } else { "ies" }))
        }
    }
}
