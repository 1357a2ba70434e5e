//! What every command prints with `--json`: one declaration per command (and per shape, where a
//! command has several), naming the type it serialises.
//!
//! `docs/reference/json.md` is generated from this table (`memlane generate docs`), the hidden
//! `memlane generate schemas` prints the JSON Schema of each entry, and a debug build checks
//! everything a command prints with `--json` against the schemas it declares here
//! ([`check_printed`], called by `Out`), so every test that reads `--json` holds the output to
//! its reference. The tests also check that every visible command has an entry. A command that
//! gains a `--json` shape gets its line here.
//!
//! Most entries name a wire type of `memlane::ops::wire`, the structs the MCP tools return too.
//! A few commands still build their JSON inside the command; their shape is declared by the
//! structs at the end of this file, which the tests hold to what the command really prints.

use schemars::JsonSchema;
use serde_json::Value;

use memlane::ops::wire;

/// How a command prints values of its declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// One JSON document.
    Object,
    /// One JSON array of values.
    Array,
    /// One JSON document per line, as things happen (a stream `jq` reads as it comes).
    Lines,
}

impl Form {
    /// The word the schemas and the reference use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Form::Object => "object",
            Form::Array => "array",
            Form::Lines => "lines",
        }
    }
}

/// One command's `--json` output.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonOutput {
    /// The command after `memlane`, as clap names it (`trash list`).
    pub command: &'static str,
    /// The arguments that select this shape, when the command has several (`--raw`, `git`).
    pub case: Option<&'static str>,
    /// How the values are printed; `None` when stdout is not the command's JSON (`mcp`).
    pub form: Option<Form>,
    /// The JSON Schema of one value (see [`schema`]); `None` with `form`.
    pub schema: Option<fn() -> Value>,
    /// What the field descriptions do not say (Markdown), or nothing.
    pub note: &'static str,
}

/// The JSON Schema (2020-12) of what `T` serialises to, as the MCP `outputSchema`s are derived:
/// a field serde always writes is `required`, one it may skip is not.
pub(crate) fn schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().for_serialize();
    let schema = generator.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(map) = value.as_object_mut() {
        // The type's own doc comment speaks of the code; the reference says what it prints.
        map.remove("title");
        map.remove("description");
        map.remove("$schema");
    }
    value
}

/// `command` prints one `T`.
fn one<T: JsonSchema>(command: &'static str) -> JsonOutput {
    JsonOutput {
        command,
        case: None,
        form: Some(Form::Object),
        schema: Some(schema::<T>),
        note: "",
    }
}

/// `command` prints a JSON array of `T`.
fn array<T: JsonSchema>(command: &'static str) -> JsonOutput {
    JsonOutput { form: Some(Form::Array), ..one::<T>(command) }
}

impl JsonOutput {
    /// This shape is the one these arguments select.
    fn case(self, case: &'static str) -> JsonOutput {
        JsonOutput { case: Some(case), ..self }
    }

    /// With what the field descriptions do not say.
    fn note(self, note: &'static str) -> JsonOutput {
        JsonOutput { note, ..self }
    }
}

const WRITE: &str = "The write result every writing command prints (and every writing MCP tool \
                     returns). A `skipped` write stored nothing: the content was empty after \
                     redaction, and `reason` says so.";
const SHOW: &str = "The memory with its redacted frontmatter and content, its temperature after \
                    this read's warm-up and its importance (MCP `read_memory` returns the same \
                    object).";
const LIST: &str = "One object per memory, without `frontmatter` and `content`; `--sort \
                    temperature` adds `temperature` and `--sort importance` adds `importance`.";
const SEARCH: &str = "The shape of MCP `search_memories`. Scores are in [0, 1], rounded to four \
                      decimals. `below_threshold` is filled only when `results` is empty: up to \
                      three candidates that did not pass `search.score_threshold`, best first, \
                      each `score` being the relevance compared with the threshold. With \
                      `--expand N`, the memories linked to the top N hits follow the hits in \
                      `results`, with `expanded_from` and `edge_type`.";
const DOCTOR: &str = "When one of memlane's own folders is a symbolic link or a file, the answer \
                      holds only `vault` and one `unsafe_folder` problem: nothing else is \
                      checked until it is fixed. The text output prints a problem's `hint` on a \
                      `hint:` line under it.";
const WATCH: &str = "One object per line, one per pass, told apart by `event`.";
const MCP: &str = "stdout is the MCP protocol (JSON-RPC), with or without `--json`; the tools' \
                   results are in [mcp.md](mcp.md).";
const MERGE_FILE: &str = "The exit code follows git's merge-driver convention: 0 for a clean \
                          merge, 1 for a conflict.";
const STOP: &str = "Claude Code's hook answer, with or without `--json`, the first time the \
                    agent stops after writing no memory; nothing otherwise (see \
                    [agents](../agents/tools.md#session-start-and-stop)).";

/// Every command's `--json` output, in the order of `memlane --help`.
pub(crate) fn outputs() -> Vec<JsonOutput> {
    use wire::*;
    vec![
        one::<wire::Init>("init"),
        one::<Written>("add").note(WRITE),
        one::<MemoryJson>("show").note(SHOW),
        one::<RawMemory>("show").case("--raw").note("The file exactly as it is on disk."),
        one::<Written>("edit").note(WRITE),
        one::<Written>("update").note(WRITE),
        one::<Written>("append").note(WRITE),
        array::<Written>("rm").note("One write result per memory deleted."),
        one::<Moved>("mv"),
        array::<MemoryJson>("list").note(LIST),
        one::<SearchFound>("search").note(SEARCH),
        one::<ContextDigest>("context").note("`hook session-start --json` prints the same."),
        one::<Reindexed>("reindex"),
        one::<Linked>("linked").note("The shape of MCP `search_linked_memories`."),
        one::<Relationships>("relationships")
            .note("Node keys are `memory:<name>`, `ghost:<document>` or `entity:<Name>`."),
        one::<RelatedMemories>("related"),
        one::<Written>("link").note(WRITE),
        one::<Written>("unlink").note(WRITE),
        one::<Doctor>("doctor").note(DOCTOR),
        one::<Written>("pin").note(WRITE),
        one::<Written>("unpin").note(WRITE),
        one::<ColdList>("cold").note("The shape of MCP `get_cold_memories`."),
        one::<Tree>("tree").note("The shape of MCP `memory_tree`."),
        one::<Written>("summarize").note(WRITE),
        one::<Merged>("merge").note("The shape of MCP `merge_memories`."),
        one::<MergeSuggestions>("suggest-merges").note("The shape of MCP `suggest_memory_merges`."),
        one::<Split>("split").note("The shape of MCP `split_memory`."),
        one::<MaintainedReport>("maintain"),
        one::<wire::ModelImported>("model import"),
        one::<wire::PullReport>("model pull"),
        one::<wire::ModelList>("model list"),
        one::<wire::ModelDistilled>("model distill"),
        one::<TrashList>("trash list").note("The shape of MCP `list_trash`."),
        one::<Written>("trash restore").note(WRITE),
        one::<TrashEmptied>("trash empty"),
        one::<History>("history").note("The shape of MCP `memory_history`."),
        one::<Written>("restore").note(WRITE),
        one::<wire::EffectiveConfig>("config")
            .note("Numbers are printed exactly as set, not rounded."),
        JsonOutput { form: Some(Form::Lines), ..one::<WatchEvent>("watch") }.note(WATCH),
        JsonOutput { form: None, schema: None, ..one::<()>("mcp") }.note(MCP),
        one::<wire::MergedFile>("merge-file").note(MERGE_FILE),
        array::<memlane::setup::ClientInfo>("setup")
            .note("Without a client: one object per client `memlane setup` knows."),
        one::<wire::SetUp>("setup").case("CLIENT"),
        one::<wire::GitSetUp>("setup").case("git"),
        one::<ContextDigest>("hook session-start").note("The object `context` prints."),
        one::<wire::StopDecision>("hook stop").note(STOP),
        one::<crate::cli::commands::generate::Script<'static>>("completions"),
    ]
}

/// Whether `value`, which `command` (`trash list`) is about to print, is one of the shapes the
/// command declares; `line` is one line of a stream (`watch`). `Err` says what is not: a key its
/// type does not document, a required key missing, a value of another type. A command that
/// declares nothing (the hidden `generate`) passes.
#[cfg(debug_assertions)]
pub(crate) fn check_printed(command: &str, value: &Value, line: bool) -> Result<(), String> {
    use crate::cli::json_check;
    let mut problems = Vec::new();
    for o in outputs().iter().filter(|o| o.command == command) {
        let (Some(form), Some(schema)) = (o.form, o.schema) else { continue };
        let schema = schema();
        let found = match (form, value) {
            (Form::Lines, v) if line => json_check::mismatches(&schema, v, command),
            (Form::Object, v) if !line => json_check::mismatches(&schema, v, command),
            (Form::Array, Value::Array(items)) if !line => {
                items.iter().flat_map(|v| json_check::mismatches(&schema, v, command)).collect()
            }
            _ => vec![format!("{command}: not printed as declared ({})", form.as_str())],
        };
        if found.is_empty() {
            return Ok(());
        }
        problems.extend(found);
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}
