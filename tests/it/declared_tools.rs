//! The agent guide's table of MCP tools (docs/agents/tools.md) is the tools memlane declares (`memlane::mcp::ToolName`),
//! with the same core set.

/// The agent guide's MCP tool table: every tool named in a row's first cell, with its core mark.
fn documented_tools() -> Vec<(String, bool)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/agents/tools.md"))
            .expect("docs/agents/tools.md");
    let mut lines = readme.lines().skip_while(|l| *l != "| tool | core | what it does |");
    assert!(lines.next().is_some(), "the agent guide has no table of MCP tools");
    let mut tools = Vec::new();
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let core = match cells.get(1) {
            Some(&"✓") => true,
            Some(&"") => false,
            other => panic!("a core cell of ✓ or nothing: {other:?} in {line}"),
        };
        // `pin_memory {name}` / `unpin_memory {name}`: each backticked name before its `{`.
        for part in cells[0].split('`').skip(1).step_by(2) {
            let name = part.split([' ', '{']).next().unwrap();
            tools.push((name.to_owned(), core));
        }
    }
    tools
}

#[test]
fn the_agent_guide_lists_every_declared_mcp_tool_with_its_core_mark() {
    let declared: Vec<(String, bool)> =
        memlane::mcp::ToolName::ALL.iter().map(|t| (t.as_str().to_owned(), t.is_core())).collect();
    assert_eq!(documented_tools(), declared);
}
