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
    let root = ctx.location().ok().and_then(|loc| memlane::vault::locate(&loc).ok());
    let loaded = ctx.load_config(root.as_ref().map(|r| r.join("config.toml")).as_deref())?;
    if ctx.out.json {
        let mut v = loaded.to_json();
        v["vault"] =
            root.as_ref().map_or(serde_json::Value::Null, |r| r.display().to_string().into());
        return ctx.out.json_exact(&v);
    }
    let mut text = String::from("# effective memlane configuration\n");
    match &root {
        Some(r) => text.push_str(&format!("# vault: {}\n", r.display())),
        None => text.push_str("# vault: none found (vault layer not applied)\n"),
    }
    for f in &loaded.files {
        text.push_str(&format!("# read: {}\n", f.display()));
    }
    text.push('\n');
    text.push_str(&loaded.render_toml());
    ctx.out.text(&text)
}
