//! MCP prompts: the common moves with memory, as messages a client offers its user (a slash
//! command) and sends to the agent. Each carries what the server already knows (the matches, the
//! cold list, the digest), so the agent starts from it.

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};

use super::tools::MemlaneServer;
use crate::ops::context::{self, ContextRequest};
use crate::ops::hooks::STOP_REMINDER;
use crate::ops::{self};

/// Matches listed by `recall`.
const RECALL_RESULTS: usize = 8;

/// Cold memories listed by `review_cold` without a `limit`.
const COLD_DEFAULT: usize = 10;

fn argument(name: &str, description: &str, required: bool) -> PromptArgument {
    PromptArgument::new(name).with_description(description).with_required(required)
}

/// The prompts, in the order they are listed.
pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "recall",
            Some("Recall what the project's memory knows about a topic: the best matches, to read and answer from"),
            Some(vec![argument("topic", "What to recall, in words (e.g. `how we deploy`)", true)]),
        )
        .with_title("Recall a topic"),
        Prompt::new(
            "record_session",
            Some("Record what the work taught: decisions, fixes, preferences and facts, and a summary of it"),
            Some(vec![argument("focus", "What the session was about (optional)", false)]),
        )
        .with_title("Record what was learned"),
        Prompt::new(
            "review_cold",
            Some("Review the memories that cooled down: summarize, pin or delete each"),
            Some(vec![argument("limit", "How many to review (default 10)", false)]),
        )
        .with_title("Review cold memories"),
        Prompt::new(
            "session_context",
            Some("What matters for the work at hand: pinned memories, those linked to the changed files, the hottest ones"),
            Some(vec![
                argument("task", "The task in words: its best matches are added (optional)", false),
                argument("budget", "The most estimated tokens (default 400)", false),
            ]),
        )
        .with_title("Session context"),
    ]
}

/// A string argument; a number or boolean is taken as its text.
fn arg(args: Option<&JsonObject>, name: &str) -> Option<String> {
    let v = args?.get(name)?;
    let s = match v {
        serde_json::Value::String(s) => s.trim().to_owned(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// A count argument (1 to `max`).
fn count(
    args: Option<&JsonObject>,
    name: &'static str,
    default: usize,
    max: usize,
) -> Result<usize, ErrorData> {
    match arg(args, name) {
        None => Ok(default),
        Some(s) => s.parse::<usize>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            ErrorData::invalid_params(
                format!("`{name}` must be a whole number from 1 to {max}"),
                None,
            )
        }),
    }
}

fn failed(e: &crate::Error) -> ErrorData {
    if e.is_usage() {
        ErrorData::invalid_params(e.to_string(), None)
    } else {
        ErrorData::internal_error(e.to_string(), None)
    }
}

fn result(description: &str, text: String) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description(description)
}

impl MemlaneServer {
    /// The messages of prompt `name`.
    pub(super) fn prompt(
        &self,
        name: &str,
        args: Option<&JsonObject>,
    ) -> Result<GetPromptResult, ErrorData> {
        match name {
            "recall" => self.recall_prompt(args),
            "record_session" => Ok(record_prompt(arg(args, "focus").as_deref())),
            "review_cold" => self.review_cold_prompt(args),
            "session_context" => self.context_prompt(args),
            other => Err(ErrorData::invalid_params(
                format!(
                    "no prompt named `{other}`; the prompts are recall, record_session, review_cold and session_context"
                ),
                None,
            )),
        }
    }

    fn recall_prompt(&self, args: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
        let topic = arg(args, "topic").ok_or_else(|| {
            ErrorData::invalid_params("`topic` is required: what to recall, in words", None)
        })?;
        let mut q = crate::search::SearchQuery::new(topic.clone());
        q.limit = Some(RECALL_RESULTS);
        let req = ops::search::SearchRequest { query: q, touch: false, expand: None };
        let found = ops::search::search(self, &req).map_err(|e| failed(&e))?;
        let mut text =
            format!("Recall what this project's memory (memlane) knows about: {topic}\n\n");
        if found.results.hits.is_empty() {
            text.push_str("No memory matched. Try search_memories with other words before concluding that nothing is known.\n");
        } else {
            text.push_str("These memories matched, best first (name, type: first sentence):\n");
            for h in &found.results.hits {
                let summary = context::first_sentence(&h.content);
                text.push_str(&format!("- {} ({}): {summary}\n", h.name, h.memory_type));
            }
            text.push_str(
                "\nRead the ones that matter in full with read_memory (search_memories finds more), \
                 then answer from them and name the memories you relied on. Report those that \
                 helped with mark_used.\n",
            );
        }
        Ok(result("What the project's memory knows about a topic", text))
    }

    fn review_cold_prompt(&self, args: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
        let limit = count(args, "limit", COLD_DEFAULT, crate::limits::MAX_RESULTS)?;
        let items = crate::ops::views::cold(self).map_err(|e| failed(&e))?.memories;
        let mut text = String::from(
            "Review the memories of this project that cooled down (unused for a long time).\n\n",
        );
        if items.is_empty() {
            text.push_str("No memory is cold right now; there is nothing to review.\n");
        } else {
            text.push_str(&format!(
                "{} cold, coldest first (name, temperature, size in tokens){}:\n",
                items.len(),
                if items.len() > limit { format!("; the first {limit}") } else { String::new() }
            ));
            for i in items.iter().take(limit) {
                text.push_str(&format!(
                    "- {} ({:.3}, {} tokens)\n",
                    i.name, i.temperature, i.tokens
                ));
            }
            text.push_str(
                "\nFor each, read it with read_memory and decide: still useful and long, shorten it \
                 with summarize_memory (keep every fact worth keeping); still true and important, \
                 pin_memory; wrong or obsolete, delete_memory (it goes to the trash). Leave the rest \
                 alone. Say what you did with each.\n",
            );
        }
        Ok(result("The cold memories to summarize, pin or delete", text))
    }

    fn context_prompt(&self, args: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
        let budget =
            count(args, "budget", context::DEFAULT_BUDGET, crate::limits::MAX_BUDGET_TOKENS)?;
        let req = ContextRequest { budget, task: arg(args, "task"), workdir: None };
        let digest = context::context(self, &req).map_err(|e| failed(&e))?;
        Ok(result("What matters for the work at hand", digest.text))
    }
}

fn record_prompt(focus: Option<&str>) -> GetPromptResult {
    let about = focus.map(|f| format!(" (about: {f})")).unwrap_or_default();
    let text = format!(
        "Record what the work{about} taught in the project's memory (memlane).\n\n\
         {STOP_REMINDER}\n\n\
         Then save one summary of the work with remember and type session_summary: what was \
         done, what was decided and why, what is left to do. Report the memories that helped with \
         mark_used, with context_for set to the summary's name.\n"
    );
    result("Record what the work taught", text)
}
