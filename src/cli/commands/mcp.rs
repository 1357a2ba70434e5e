//! `memlane mcp`: serve the vault to an agent over MCP (stdio).

use crate::cli::Ctx;

/// Serve memories to an agent over MCP (stdio)
///
/// Connect a client with `memlane setup <client>`, or register the command `memlane mcp` with
/// any MCP client. stdout carries the protocol; logs go to stderr.
#[derive(Debug, clap::Args)]
pub(crate) struct McpArgs {}

pub(crate) fn run(ctx: &mut Ctx, _args: &McpArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    memlane::mcp::serve_stdio_blocking(vault)?;
    Ok(())
}
