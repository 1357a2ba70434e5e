//! The MCP tools: thin wrappers over the library, one per agent action.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolResult, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};

use super::live::Live;
use super::names::ToolName;
use super::schema;
use crate::config::McpTools;
use crate::ops::Session;
use crate::ops::wire;
use crate::vault::Vault;

use super::calls::done;
use super::params::*;

/// The MCP server over one vault.
#[derive(Clone)]
pub struct MemlaneServer {
    pub(super) vault: Arc<Vault>,
    pub(super) live: Arc<Live>,
    tool_router: ToolRouter<Self>,
}

impl MemlaneServer {
    /// A server over `vault`.
    pub fn new(vault: Arc<Vault>) -> MemlaneServer {
        let live = Arc::new(Live::new(vault.clone()));
        MemlaneServer { vault, live, tool_router: Self::tool_router() }
    }

    /// The state kept between calls (indices, logging level, cold check).
    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }
}

impl std::fmt::Debug for MemlaneServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemlaneServer").field("vault", &self.vault.root()).finish()
    }
}

/// Every tool, as `tools/list` describes it with `[mcp] tools = "full"`: name, title,
/// description, `inputSchema` and `outputSchema` (the source of the generated MCP reference).
pub(super) fn all_tools() -> Vec<rmcp::model::Tool> {
    MemlaneServer::tool_router().list_all()
}

impl MemlaneServer {
    /// Every tool as `tools/list` gives it with `[mcp] tools = "full"`: name, title, description,
    /// schemas and annotations (the names are [`ToolName::ALL`]).
    pub fn tool_listing() -> Vec<rmcp::model::Tool> {
        Self::tool_router().list_all()
    }
}

#[tool_router(router = tool_router)]
impl MemlaneServer {
    #[tool(
        title = "Create a memory",
        description = "Create a new memory (a Markdown note) under a name you choose. Prefer `remember` when you do not need a specific name. Fails if the name exists.",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Create a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_memory(&self, Parameters(p): Parameters<CreateParams>) -> CallToolResult {
        done(self.create(p))
    }

    #[tool(
        title = "Read a memory",
        description = "Read a whole memory: its content, type, tags and dates.",
        output_schema = schema::of::<wire::MemoryJson>(),
        annotations(
            title = "Read a memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.read(&p))
    }

    #[tool(
        title = "Read several memories",
        description = "Read several memories in one call (names, `name.md` or ids), in the order given. A name that cannot be read is reported in its place as `{name, error}`; the others are still returned.",
        output_schema = schema::of::<wire::ReadMany>(),
        annotations(
            title = "Read several memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_memories(&self, Parameters(p): Parameters<NamesParams>) -> CallToolResult {
        done(self.read_many(&p))
    }

    #[tool(
        title = "Replace a memory's body",
        description = "Replace a memory's body with new content (the old version is kept in history).",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Replace a memory's body",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.update_impl(p))
    }

    #[tool(
        title = "Append to a memory",
        description = "Add text to the end of a memory.",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Append to a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn append_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.append_impl(p))
    }

    #[tool(
        title = "Delete a memory",
        description = "Delete a memory (moved to the vault's trash; restore_memory brings it back).",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Delete a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.delete_impl(&p))
    }

    #[tool(
        title = "Search memories",
        description = "Search the project's memories (hybrid keyword + semantic, ranked by relevance, recency and use). Use before answering questions about the project, past decisions, conventions, bugs or preferences. Optional filters: types, tags, status, a time window (after, before, or since such as 7d) and an intent.",
        output_schema = schema::of::<wire::SearchFound>(),
        annotations(
            title = "Search memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_memories(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        done(self.search(p))
    }

    #[tool(
        title = "Memories linked to a file",
        description = "Find the memories that link to a project file (e.g. `src/auth.py`), ranked by a query. Use before changing a file.",
        output_schema = schema::of::<wire::Linked>(),
        annotations(
            title = "Memories linked to a file",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_linked_memories(
        &self,
        Parameters(p): Parameters<LinkedParams>,
    ) -> CallToolResult {
        done(self.linked(p))
    }

    #[tool(
        title = "A memory's links",
        description = "A memory's links: outgoing, incoming and its version chain (supersedes), optionally of one type.",
        output_schema = schema::of::<wire::Relationships>(),
        annotations(
            title = "A memory's links",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_memory_relationships(
        &self,
        Parameters(p): Parameters<RelationshipsParams>,
    ) -> CallToolResult {
        done(self.relationships(&p))
    }

    #[tool(
        title = "Vault statistics",
        description = "Counts of memories by type and status, the embedder, and graph size.",
        output_schema = schema::of::<wire::Stats>(),
        annotations(
            title = "Vault statistics",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_memory_stats(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.stats())
    }

    #[tool(
        title = "Remember a fact",
        description = "Remember one thing (a decision, bug fix, preference or learned fact). The name is generated; if a near-identical memory exists it is updated instead (reported as `updated`, else `created`).",
        output_schema = schema::of::<wire::Remembered>(),
        annotations(
            title = "Remember a fact",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        done(self.remember_impl(p))
    }

    #[tool(
        title = "Report memories you used",
        description = "Tell memlane which memories helped you (names or ids): they count as read, so they stay warm. With context_for (a memory you wrote with their help, e.g. a decision or session summary), each gets a was_context_for link to it.",
        output_schema = schema::of::<wire::MarkedUsed>(),
        annotations(
            title = "Report memories you used",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn mark_used(&self, Parameters(p): Parameters<MarkUsedParams>) -> CallToolResult {
        done(self.mark_used_impl(&p))
    }

    #[tool(
        title = "Pin a memory",
        description = "Pin a memory so it never cools or counts as cold.",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Pin a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, true))
    }

    #[tool(
        title = "Unpin a memory",
        description = "Unpin a memory so it cools normally again.",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Unpin a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn unpin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, false))
    }

    #[tool(
        title = "Link two memories",
        description = "Link one memory to another (written to the first memory's frontmatter). Types: related_to (default), supersedes, depends_on, contradicts, …",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Link two memories",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn link_memories(&self, Parameters(p): Parameters<LinkParams>) -> CallToolResult {
        done(self.link(&p))
    }

    #[tool(
        title = "Summarize a memory in place",
        description = "Shrink a memory in place with a shorter rewrite (same name, id and links; the old version stays in history; its temperature restarts). Use on cold memories.",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Summarize a memory in place",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn summarize_memory(&self, Parameters(p): Parameters<SummarizeParams>) -> CallToolResult {
        done(self.summarize(p))
    }

    #[tool(
        title = "Merge memories",
        description = "Merge two or more memories into a new one: tags are united, `consolidated_from` recorded, links to the sources redirected; the sources go to the trash (or are archived).",
        output_schema = schema::of::<wire::Merged>(),
        annotations(
            title = "Merge memories",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn merge_memories(&self, Parameters(p): Parameters<MergeParams>) -> CallToolResult {
        done(self.merge(p))
    }

    #[tool(
        title = "Suggest merges",
        description = "Groups of near-duplicate memories worth merging, each with a similarity score, a reason and a preview of every member.",
        output_schema = schema::of::<wire::MergeSuggestions>(),
        annotations(
            title = "Suggest merges",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn suggest_memory_merges(
        &self,
        Parameters(p): Parameters<SuggestMergesParams>,
    ) -> CallToolResult {
        done(self.suggest_merges(p))
    }

    #[tool(
        title = "Cold memories",
        description = "Memories that have cooled below the cold threshold (unused for a long time), coldest first, with their size in tokens: candidates for summarize_memory.",
        output_schema = schema::of::<wire::ColdList>(),
        annotations(
            title = "Cold memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_cold_memories(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.cold())
    }

    #[tool(
        title = "Vault tree",
        description = "The whole vault as a tree: every memory with its type, temperature, pinned flag, token estimate and heading sections.",
        output_schema = schema::of::<wire::Tree>(),
        annotations(
            title = "Vault tree",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn memory_tree(&self, Parameters(p): Parameters<TreeParams>) -> CallToolResult {
        done(self.tree(&p))
    }

    #[tool(
        title = "A memory's history",
        description = "The earlier versions of a memory (kept on every update, summarize, merge or restore), numbered for restore_memory.",
        output_schema = schema::of::<wire::History>(),
        annotations(
            title = "A memory's history",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn memory_history(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.history(&p))
    }

    #[tool(
        title = "Related memories",
        description = "Memories exactly `depth` links away from a memory (through links, shared files and entities), best connected first.",
        output_schema = schema::of::<wire::RelatedMemories>(),
        annotations(
            title = "Related memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_related_memories(
        &self,
        Parameters(p): Parameters<RelatedParams>,
    ) -> CallToolResult {
        done(self.related(&p))
    }

    #[tool(
        title = "Split a memory",
        description = "Split a memory into several: the pieces you give, or one per top-level heading. The original stays (linked from each piece) unless replace is true.",
        output_schema = schema::of::<wire::Split>(),
        annotations(
            title = "Split a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn split_memory(&self, Parameters(p): Parameters<SplitParams>) -> CallToolResult {
        done(self.split(p))
    }

    #[tool(
        title = "List the trash",
        description = "Deleted memories in the trash, newest first, with the entry to restore them by.",
        output_schema = schema::of::<wire::TrashList>(),
        annotations(
            title = "List the trash",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_trash(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.trash_list())
    }

    #[tool(
        title = "Restore a memory",
        description = "Bring back a deleted memory from the trash (by name or entry), or an earlier version of an existing memory (with version).",
        output_schema = schema::of::<wire::Written>(),
        annotations(
            title = "Restore a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn restore_memory(&self, Parameters(p): Parameters<RestoreParams>) -> CallToolResult {
        done(self.restore(&p))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemlaneServer {
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let answer = self.tool_router.call(tcc).await;
        // A write's index update starts while the answer goes out.
        self.live.update_after_write();
        answer
    }

    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("memlane", env!("CARGO_PKG_VERSION")))
            .with_instructions(super::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        let full = self.vault.config.mcp.tools == McpTools::Full;
        let tools = self
            .tool_router
            .list_all()
            .into_iter()
            .filter(|t| full || ToolName::named(&t.name).is_some_and(ToolName::is_core))
            .collect();
        Ok(ListToolsResult { tools, ..Default::default() })
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        self.resource_page(request.as_ref().and_then(|r| r.cursor.as_deref()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, rmcp::ErrorData> {
        Ok(Self::resource_templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        self.resource_read(&request.uri).map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, rmcp::ErrorData> {
        Ok(ListPromptsResult::with_all_items(super::prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        self.prompt(&request.name, request.arguments.as_ref()).map(Into::into)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.live.set_level(request.level);
        // A client that just asked for warnings hears about memories already cold.
        super::send_cold_notification(&self.live, &context.peer).await;
        Ok(())
    }
}

impl Session for MemlaneServer {
    fn vault(&self) -> &Vault {
        &self.vault
    }

    fn indices(&self) -> crate::ops::session::Indices<'_> {
        crate::ops::session::Indices::Server(self.live.indices())
    }

    fn usage_buffer(&self) -> Option<&crate::ops::usage::Buffered> {
        Some(self.live.usage())
    }

    fn warm(&self, used: &[(String, bool)]) -> crate::Result<()> {
        self.live.usage().warm(&self.vault, used)
    }

    fn warn(&self, message: String) {
        tracing::warn!("{message}");
    }
}
