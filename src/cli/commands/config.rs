//! `memlane config`.

use crate::cli::Ctx;

/// Print the effective configuration and where each value came from
///
/// Layers, lowest first: built-in defaults, the user config file (`$MEMLANE_CONFIG` or the
/// platform config dir), the vault's `.memories/config.toml`, `MEMLANE_*` variables, `-c` flags.
#[derive(Debug, clap::Args)]
pub(crate) struct ConfigArgs {}

pub(crate) fn run(ctx: &mut Ctx, _args: &ConfigArgs) -> anyhow::Result<()> {
    // Outside a vault the config is still shown, without the vault layer.
    let loc = ctx.location().ok();
    let shown =
        ctx.with_config_inputs(|inputs| memlane::ops::config::effective(inputs, loc.as_ref()))??;
    if ctx.out.json {
        return ctx.out.json_exact(&shown);
    }
    let mut text = String::from("# effective memlane configuration\n");
    match &shown.vault {
        Some(r) => text.push_str(&format!("# vault: {r}\n")),
        None => text.push_str("# vault: none found (vault layer not applied)\n"),
    }
    for f in &shown.files {
        text.push_str(&format!("# read: {f}\n"));
    }
    text.push('\n');
    text.push_str(&shown.toml);
    ctx.out.text(&text)
}
