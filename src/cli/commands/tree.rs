//! `memlane tree`: the vault as a tree.

use crate::cli::Ctx;
use crate::cli::output::Style;
use crate::cli::session::CliSession;
use memlane::ops;

/// Print the vault as a tree: folders, memories and their sections, with temperature and tokens
#[derive(Debug, clap::Args)]
pub(crate) struct TreeArgs {
    /// Leave out the heading sections
    #[arg(long)]
    no_sections: bool,
}

pub(crate) fn tree(ctx: &mut Ctx, args: &TreeArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let tree = ops::views::tree(&s, !args.no_sections)?;
    if ctx.out.json {
        return ctx.out.json(&tree);
    }
    let mut text = format!("{}\n", tree.vault);
    let mut open_dirs: Vec<String> = Vec::new();
    for r in &tree.memories {
        let parts: Vec<&str> = r.name.split('/').collect();
        let dirs = &parts[..parts.len() - 1];
        let common = open_dirs.iter().zip(dirs).take_while(|(a, b)| a == *b).count();
        open_dirs.truncate(common);
        for d in &dirs[common..] {
            text.push_str(&format!("{}{d}/\n", "  ".repeat(open_dirs.len() + 1)));
            open_dirs.push((*d).to_owned());
        }
        let indent = "  ".repeat(open_dirs.len() + 1);
        let pin = if r.pinned { " pinned" } else { "" };
        let out = &ctx.out;
        text.push_str(&format!(
            "{indent}{}  [T {}{pin}, {} tokens, {}]\n",
            out.paint(Style::Name, parts[parts.len() - 1]),
            out.paint(Style::Score, format!("{:.2}", r.temperature)),
            r.tokens,
            out.paint(Style::Type, &r.memory_type)
        ));
        for s in &r.sections {
            let heading = out.paint(Style::Heading, &s.header_path);
            text.push_str(&format!("{indent}  § {heading}  ({} tokens)\n", s.tokens));
        }
    }
    ctx.out.text(&text)
}
