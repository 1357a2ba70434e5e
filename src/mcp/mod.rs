//! The MCP server (`memlane mcp`): the vault's memories as tools for an agent, over stdio.
//!
//! stdout carries JSON-RPC only; logs go to stderr. Tool failures are MCP tool errors
//! (`isError: true`) whose text is the library error's message.

mod tools;

use std::sync::Arc;

use rmcp::ServiceExt as _;

use crate::vault::Vault;

pub use tools::MemlaneServer;

/// What the server tells the agent about when to use it.
pub const INSTRUCTIONS: &str = "memlane is this project's long-term memory: Markdown notes that \
persist across sessions. SEARCH (search_memories) before answering questions about the project, \
its past decisions, conventions, known bugs or the user's preferences, and before starting work \
on a file (search_linked_memories with the file's path). REMEMBER (remember) whenever you make \
or learn a decision, fix a bug, discover a convention or fact, or the user states a preference: \
one short self-contained note per fact, with a type (decision, fact, preference, observation, \
…). remember updates a near-duplicate instead of adding a copy. Use read_memory for a whole \
note, link_memories to connect notes, pin_memory for notes that must never fade.";

/// Serves the vault over MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(vault: Vault) -> crate::Result<()> {
    let server = MemlaneServer::new(Arc::new(vault));
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| crate::Error::Invalid(format!("MCP handshake failed: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| crate::Error::Invalid(format!("MCP server stopped: {e}")))?;
    Ok(())
}

/// [`serve_stdio`] on a current-thread tokio runtime, for synchronous callers.
pub fn serve_stdio_blocking(vault: Vault) -> crate::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| crate::Error::Invalid(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(serve_stdio(vault))
}
