//! What the link commands share: edge types and graph keys.

use memlane::ops;
use memlane::vault::Vault;

pub(crate) fn parse_type(t: &str) -> anyhow::Result<String> {
    Ok(ops::links::edge_type(t)?)
}

pub(crate) fn resolve_key(
    vault: &Vault,
    name: &str,
) -> anyhow::Result<(String, memlane::vault::Memory)> {
    let m = vault.resolve(name)?;
    Ok((format!("memory:{}", m.name), m))
}
