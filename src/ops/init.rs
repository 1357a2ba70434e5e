//! `init`: a vault, and git's merge driver for its memory files.

use crate::gitmerge::{DriverAction, default_driver_program, merge_driver_setup};
use crate::vault::{Location, init_target};

use super::wire::Init;

/// Creates the vault `loc` names (idempotent: what exists is left alone) with the default
/// `config.toml`, and, inside a git work tree, sets up `memlane merge-file` as git's merge driver
/// for memory files. A merge driver that cannot be set up leaves the vault as made and is
/// reported in [`Init::merge_driver_error`]; git then merges memories as plain text.
pub fn init(loc: &Location) -> crate::Result<Init> {
    let root = init_target(loc)?;
    let report = crate::vault::init(&root, &crate::config::default_config_toml())?;
    let program = default_driver_program();
    let (merge_driver, merge_driver_error) =
        match merge_driver_setup(&root, DriverAction::Install, true, &program) {
            Ok(setup) => (Some(setup), None),
            Err(e) => (None, Some(crate::Error::from(e))),
        };
    Ok(Init {
        vault: report.vault,
        existed: report.existed,
        created: report.created,
        merge_driver,
        merge_driver_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_makes_a_vault_once_and_a_second_run_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let loc = Location::Explicit(dir.path().join(".memories"));
        let first = init(&loc).unwrap();
        assert!(!first.existed);
        assert!(first.created.iter().any(|c| c == "config.toml"), "{:?}", first.created);
        assert!(first.vault.join("config.toml").is_file());
        let config = std::fs::read_to_string(first.vault.join("config.toml")).unwrap();
        assert_eq!(config, crate::config::default_config_toml());
        let again = init(&loc).unwrap();
        assert!(again.existed);
        assert!(again.created.is_empty(), "{:?}", again.created);
        assert_eq!(std::fs::read_to_string(again.vault.join("config.toml")).unwrap(), config);
    }
}
