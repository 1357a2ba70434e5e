//! `config`: the effective configuration, layer by layer.

use std::path::Path;

use crate::config::{ConfigInputs, LoadedConfig};
use crate::vault::Location;

use super::wire::EffectiveConfig;

/// The effective configuration of `inputs` (the user file, the environment, the flags) with the
/// `config.toml` of the vault `vault` names, when there is one there: outside a vault the
/// configuration is still shown, without the vault layer. `inputs.vault_file` is ignored.
pub fn effective(
    inputs: &ConfigInputs<'_>,
    vault: Option<&Location>,
) -> crate::Result<EffectiveConfig> {
    let root = vault.and_then(|loc| crate::vault::locate(loc).ok());
    let vault_file = root.as_ref().map(|r| r.join("config.toml"));
    let loaded =
        LoadedConfig::load(&ConfigInputs { vault_file: vault_file.as_deref(), ..*inputs })?;
    Ok(report(&loaded, root.as_deref()))
}

fn report(loaded: &LoadedConfig, root: Option<&Path>) -> EffectiveConfig {
    let mut json = loaded.to_json();
    let take = |v: &mut serde_json::Value, k: &str| v.get_mut(k).map(serde_json::Value::take);
    let config = take(&mut json, "config").unwrap_or_default();
    EffectiveConfig {
        config,
        sources: loaded.sources.iter().map(|(k, s)| (k.clone(), s.to_string())).collect(),
        files: loaded.files.iter().map(|p| p.to_string_lossy().into_owned()).collect(),
        vault: root.map(|r| r.display().to_string()),
        toml: loaded.render_toml(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(
        env: &'a [(String, String)],
        flags: &'a [(String, toml::Value, String)],
    ) -> ConfigInputs<'a> {
        ConfigInputs { user_file: None, user_file_required: false, vault_file: None, env, flags }
    }

    #[test]
    fn a_value_set_in_the_vault_file_is_read_back_with_its_source_and_a_flag_wins_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let loc = Location::Explicit(dir.path().join(".memories"));
        super::super::init::init(&loc).unwrap();
        let vault = dir.path().join(".memories");
        std::fs::write(vault.join("config.toml"), "default_type = \"decision\"\n").unwrap();

        let shown = effective(&inputs(&[], &[]), Some(&loc)).unwrap();
        assert_eq!(shown.config["default_type"], "decision");
        let source = &shown.sources["default_type"];
        assert!(source.contains("config.toml"), "{source}");
        assert_eq!(shown.vault.as_deref(), Some(vault.display().to_string().as_str()));
        assert!(shown.files.iter().any(|f| f.ends_with("config.toml")), "{:?}", shown.files);
        assert!(shown.toml.contains("default_type = \"decision\""), "{}", shown.toml);

        let flags = [("default_type".to_owned(), toml::Value::from("fact"), "-c".to_owned())];
        let shown = effective(&inputs(&[], &flags), Some(&loc)).unwrap();
        assert_eq!(shown.config["default_type"], "fact");
        assert_eq!(shown.sources["default_type"], "flag -c");
    }

    #[test]
    fn outside_a_vault_the_defaults_are_shown_without_a_vault() {
        let dir = tempfile::tempdir().unwrap();
        let loc = Location::Explicit(dir.path().join("nowhere"));
        let shown = effective(&inputs(&[], &[]), Some(&loc)).unwrap();
        assert_eq!(shown.vault, None);
        assert!(shown.files.is_empty());
        assert_eq!(shown.sources["default_type"], "default");
    }
}
