//! `memlane mcp` driven by the official MCP Python SDK (PyPI `mcp`), as a Python agent would
//! use it: `tests/it/mcp_sdk_client.py` lists the tools, checks their schemas, calls every
//! tool (optional numbers and booleans also as strings, one tag as a string) and validates
//! each structured result against the tool's `outputSchema`.
//!
//! Needs `python3` with the `mcp` package (`.ci/run` installs it). Without them the test says
//! why and passes, unless `MCP_SDK_REQUIRED=1` (set by CI) makes that a failure.

use std::path::Path;
use std::process::Command;

use crate::common::TestEnv;

/// Why the SDK cannot run here, if it cannot.
fn sdk_missing() -> Option<String> {
    match Command::new("python3").args(["-c", "import mcp, jsonschema"]).output() {
        Err(e) => Some(format!("python3 cannot be run ({e})")),
        Ok(o) if !o.status.success() => Some(format!(
            "the Python `mcp` package is missing ({}); install it with `python3 -m pip install mcp`",
            String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or_default()
        )),
        Ok(_) => None,
    }
}

#[test]
fn python_sdk_client_lists_calls_and_validates_every_tool() {
    if let Some(why) = sdk_missing() {
        assert!(
            std::env::var_os("MCP_SDK_REQUIRED").is_none(),
            "MCP_SDK_REQUIRED is set but {why}"
        );
        eprintln!("skipping the MCP Python SDK test: {why}");
        return;
    }
    let env = TestEnv::with_vault("links");
    // The server's command line and environment, as every other test runs it.
    let server = env.command();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp_sdk_client.py");
    let mut py = Command::new("python3");
    py.env_clear()
        .envs(server.get_envs().filter_map(|(k, v)| Some((k, v?))))
        // Every tool listed; a cold threshold above the fixture's cooler memories.
        .env("MEMLANE_MCP__TOOLS", "full")
        .env("MEMLANE_LIFECYCLE__COLD_THRESHOLD", "0.99")
        .current_dir(server.get_current_dir().unwrap())
        .arg(&script)
        .arg(server.get_program());
    let out = py.output().expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the SDK client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("listed 25 tools"), "{stdout}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}
