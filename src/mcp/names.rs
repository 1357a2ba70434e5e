//! The MCP tools' names, declared once: which tools `memlane mcp` serves, in the order the
//! README's table lists them, and which of them `[mcp] tools = "core"` lists. `tools/list`
//! filters by it, and a reference page can list the tools from it
//! ([`MemlaneServer::tool_listing`](super::MemlaneServer::tool_listing) adds each tool's title,
//! description and schemas).

/// Declares [`ToolName`]: `Variant = "name"`, with `core` for a tool the core set lists.
macro_rules! tool_names {
    ($($variant:ident = $name:literal $(, $core:ident)?;)+) => {
        /// A tool `memlane mcp` serves, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolName {
            $(#[doc = concat!("`", $name, "`")] $variant,)+
        }

        impl ToolName {
            /// Every tool, in the order of the README's table.
            pub const ALL: &'static [ToolName] = &[$(ToolName::$variant),+];

            /// The tool's name, as an agent calls it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ToolName::$variant => $name,)+
                }
            }

            /// Whether `[mcp] tools = "core"` (the default) lists it; every tool can be called by
            /// name either way.
            pub const fn is_core(self) -> bool {
                match self {
                    $(ToolName::$variant => tool_names!(@core $($core)?),)+
                }
            }
        }
    };
    (@core core) => { true };
    (@core) => { false };
}

tool_names! {
    SearchMemories = "search_memories", core;
    SearchLinkedMemories = "search_linked_memories", core;
    ReadMemory = "read_memory", core;
    ReadMemories = "read_memories";
    Remember = "remember", core;
    CreateMemory = "create_memory", core;
    UpdateMemory = "update_memory", core;
    AppendMemory = "append_memory", core;
    DeleteMemory = "delete_memory", core;
    LinkMemories = "link_memories", core;
    MarkUsed = "mark_used", core;
    SummarizeMemory = "summarize_memory", core;
    GetMemoryStats = "get_memory_stats";
    GetMemoryRelationships = "get_memory_relationships";
    GetRelatedMemories = "get_related_memories";
    PinMemory = "pin_memory";
    UnpinMemory = "unpin_memory";
    GetColdMemories = "get_cold_memories";
    MemoryTree = "memory_tree";
    MemoryHistory = "memory_history";
    MergeMemories = "merge_memories";
    SuggestMemoryMerges = "suggest_memory_merges";
    SplitMemory = "split_memory";
    ListTrash = "list_trash";
    RestoreMemory = "restore_memory";
}

impl ToolName {
    /// The tool called `name`, if memlane serves one.
    pub fn named(name: &str) -> Option<ToolName> {
        ToolName::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ToolName;
    use crate::mcp::MemlaneServer;

    #[test]
    fn the_declared_names_are_the_tools_the_server_serves() {
        let mut served: Vec<String> =
            MemlaneServer::tool_listing().into_iter().map(|t| t.name.into_owned()).collect();
        served.sort();
        let mut declared: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
        declared.sort_unstable();
        assert_eq!(served, declared);
        assert_eq!(ToolName::ALL.iter().filter(|t| t.is_core()).count(), 11);
        assert_eq!(ToolName::named("remember"), Some(ToolName::Remember));
        assert_eq!(ToolName::named("forget"), None);
    }
}
