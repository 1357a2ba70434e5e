"""Drives `memlane mcp` with the official MCP Python SDK (PyPI `mcp`) over stdio.

Run by `tests/it/mcp_sdk.rs`: argv[1] is the memlane binary; the environment is the one the
server runs in (a temp vault with the `links` fixture, `[mcp] tools = "full"`). Lists the tools,
checks every input schema is plain JSON Schema a strict client can send (no `["integer", "null"]`
types), calls every tool, and checks each structured result against the tool's `outputSchema`
(the SDK's client validates too, and raises when a result does not conform). Optional integers
and booleans are sent as plain values and as strings (`"2"`, `"true"`), tags as one string.

Prints one line per check; exits 1 with the failures listed. `SDK_CLIENT_DUMP=1` prints every
structured result as JSON instead of failing on it (for writing schemas).
"""

import asyncio
import json
import os
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

FAILURES = []
DUMP = os.environ.get("SDK_CLIENT_DUMP") == "1"


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def walk_schemas(schema, path):
    """Yields (path, subschema) for every schema object in `schema`."""
    if isinstance(schema, dict):
        yield path, schema
        for key, value in schema.items():
            yield from walk_schemas(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from walk_schemas(value, f"{path}/{i}")


class Caller:
    def __init__(self, session, tools):
        self.session = session
        self.tools = tools
        self.called = set()

    async def call(self, name, args, expect_error=False):
        """Calls `name`; validates its structured content against the output schema."""
        self.called.add(name)
        label = f"{name} {json.dumps(args, sort_keys=True)}"
        try:
            result = await self.session.call_tool(name, args)
        except Exception as e:  # the SDK raises when a result does not conform
            check(False, f"{label}: {e}")
            return None
        if expect_error:
            check(result.is_error, f"{label}: is a tool error")
            return result
        if result.is_error:
            text = result.content[0].text if result.content else ""
            check(False, f"{label}: tool error: {text}")
            return None
        data = result.structured_content
        if DUMP:
            print(f"DUMP {name}: {json.dumps(data, indent=1)}")
        schema = self.tools[name].output_schema
        if schema is None:
            check(False, f"{label}: no outputSchema to validate against")
            return data
        try:
            jsonschema.validate(data, schema)
            check(True, f"{label}: structured content validates")
        except jsonschema.ValidationError as e:
            check(False, f"{label}: {e.message} at {list(e.absolute_path)}")
        return data


async def main(binary):
    params = StdioServerParameters(command=binary, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            tools = {t.name: t for t in listed}
            print(f"listed {len(tools)} tools", flush=True)

            for t in listed:
                check(t.output_schema is not None, f"{t.name}: has an outputSchema")
                if t.output_schema is not None:
                    jsonschema.Draft202012Validator.check_schema(t.output_schema)
                a = t.annotations
                check(
                    a is not None
                    and a.title
                    and a.read_only_hint is not None
                    and a.destructive_hint is not None
                    and a.idempotent_hint is not None,
                    f"{t.name}: has title, readOnlyHint, destructiveHint, idempotentHint",
                )
                jsonschema.Draft202012Validator.check_schema(t.input_schema)
                for path, sub in walk_schemas(t.input_schema, t.name):
                    ty = sub.get("type")
                    if isinstance(ty, list):
                        check(False, f"{path}: type is {ty}, not one plain type")
                    if "anyOf" in sub or "oneOf" in sub:
                        check(False, f"{path}: uses anyOf/oneOf")
                    if "default" in sub and sub["default"] is None:
                        check(False, f"{path}: default is null")
                # Filters whose absence means "no filter" have no default.
                no_default = {"after_timestamp", "before_timestamp", "relative_days", "version"}
                for prop, sub in t.input_schema.get("properties", {}).items():
                    optional = prop not in t.input_schema.get("required", []) and prop not in no_default
                    if sub.get("type") in ("integer", "boolean", "number") and optional:
                        check("default" in sub, f"{t.name}.{prop}: optional {sub['type']} documents its default")

            c = Caller(session, tools)
            # Reading and searching.
            await c.call("read_memory", {"name": "auth-v2"})
            r = await c.call("read_memories", {"names": ["auth-v1", "nope", "auth-v3"]})
            if r is not None:
                got = [(m["name"], "error" in m) for m in r["memories"]]
                check(got == [("auth-v1", False), ("nope", True), ("auth-v3", False)],
                      f"read_memories reports the missing one per item: {got}")
            await c.call("read_memories", {"names": "auth-v1"})
            r = await c.call("search_memories", {"query": "auth sessions redis", "limit": 2})
            if r is not None:
                check(len(r["results"]) <= 2, "search_memories limit 2 (an integer) is applied")
            r = await c.call("search_memories", {"query": "auth sessions redis", "limit": "1"})
            if r is not None:
                check(len(r["results"]) == 1, "search_memories limit \"1\" (a string) is applied")
            r = await c.call("search_memories", {"query": "auth", "types": "bug_fix"})
            if r is not None:
                check(all(h["type"] == "bug_fix" for h in r["results"]) and r["results"],
                      "search_memories types: one string filters by type")
            r = await c.call("search_memories", {"query": "auth", "tags": ["auth"], "since": "3650d", "intent": "recall"})
            if r is not None:
                check(all("auth" in h["tags"] for h in r["results"]) and r["results"],
                      "search_memories tags + since + intent")
            r = await c.call("search_memories", {"query": "auth", "after": "2030-01-01"})
            if r is not None:
                check(r["results"] == [], "search_memories after a future date finds nothing")
            await c.call("search_memories", {"query": "auth", "intent": "nonsense"}, expect_error=True)
            await c.call("search_memories", {"query": "auth", "limit": "many"}, expect_error=True)
            await c.call("search_linked_memories", {"query": "auth", "target_document": "src/auth.py", "limit": "3"})
            await c.call("get_memory_relationships", {"name": "auth-v2"})
            await c.call("get_related_memories", {"name": "auth-v2", "depth": "2", "limit": 5})
            await c.call("get_memory_stats", {})
            await c.call("memory_tree", {"sections": "false"})
            await c.call("memory_tree", {"sections": True})
            await c.call("suggest_memory_merges", {"threshold": "0.5", "limit": "2"})
            r = await c.call("get_cold_memories", {})
            if r is not None:
                check(len(r["memories"]) > 0, "get_cold_memories lists the memories below the threshold")

            # Writing.
            await c.call("create_memory", {"name": "sdk-note", "content": "The SDK client wrote this note about kites.",
                                           "type": "fact", "tags": "sdk", "force": "true"})
            r = await c.call("read_memory", {"name": "sdk-note"})
            if r is not None:
                check(r["tags"] == ["sdk"], f"create_memory tags: one string becomes one tag: {r['tags']}")
            await c.call("update_memory", {"name": "sdk-note", "content": "The SDK client rewrote this note about kites."})
            await c.call("append_memory", {"name": "sdk-note", "content": "More about kites."})
            await c.call("memory_history", {"name": "sdk-note"})
            await c.call("remember", {"content": "Prefer tabs over spaces in the Makefile.", "type": "preference"})
            r = await c.call("remember", {"content": "Prefer tabs over spaces in the Makefile.", "type": "preference"})
            if r is not None:
                check(r["action"] == "updated", "remember the same note again updates it")
            await c.call("link_memories", {"from": "sdk-note", "to": "auth-v1"})
            await c.call("pin_memory", {"name": "sdk-note"})
            await c.call("unpin_memory", {"name": "sdk-note"})
            await c.call("summarize_memory", {"name": "sdk-note", "content": "Kites.", "temperature": "0.4"})
            await c.call("restore_memory", {"name": "sdk-note", "version": "1"})
            await c.call("create_memory", {"name": "sdk-split", "content": "# One\n\nfirst part\n\n# Two\n\nsecond part\n", "force": True})
            r = await c.call("split_memory", {"name": "sdk-split", "replace": "false"})
            pieces = [o["name"] for o in r["outcomes"]] if r is not None else []
            check(len(pieces) == 2, f"split_memory cut at the two headings: {pieces}")
            await c.call("merge_memories", {"source_files": pieces, "target_file": "sdk-merged", "archive": "false"})
            await c.call("delete_memory", {"name": "sdk-merged"})
            await c.call("list_trash", {})
            await c.call("restore_memory", {"name": "sdk-merged"})
            r = await c.call("mark_used", {"names": ["auth-v1", "key-rotation"], "context_for": "auth-v2"})
            if r is not None:
                check(len(r["linked"]) == 2, "mark_used links each used memory to context_for")

            # Resources: every memory is memory://<name>, read redacted like read_memory.
            caps = getattr(session, "server_capabilities", None)
            if callable(caps):
                caps = caps()
            if caps is not None:
                check(caps.resources is not None and caps.prompts is not None,
                      "the server advertises resources and prompts")
            resources = (await session.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            check("memory://auth-v2" in uris, f"list_resources lists memory://auth-v2: {uris[:5]}")
            templates = (await session.list_resource_templates()).resource_templates
            check([t.uri_template for t in templates] == ["memory://{name}"],
                  "list_resource_templates gives memory://{name}")
            read = await session.read_resource("memory://auth-v2")
            text = read.contents[0].text
            tool = await session.call_tool("read_memory", {"name": "auth-v2"})
            check(text == tool.structured_content["content"],
                  "read_resource gives the content read_memory gives")
            check("sessions move to Redis" in text, "read_resource reads the memory")

            # Prompts.
            prompts = (await session.list_prompts()).prompts
            names = [p.name for p in prompts]
            check(names == ["recall", "record_session", "review_cold", "session_context"],
                  f"list_prompts: {names}")
            got = await session.get_prompt("recall", {"topic": "auth sessions"})
            ptext = got.messages[0].content.text
            check("auth-v" in ptext and "read_memory" in ptext, "get_prompt recall lists the matches")
            got = await session.get_prompt("record_session", {})
            check("session_summary" in got.messages[0].content.text, "get_prompt record_session")

            missing = sorted(set(tools) - c.called)
            check(not missing, f"every listed tool was called (missing: {missing})")

    if FAILURES:
        print(f"{len(FAILURES)} failures:", file=sys.stderr)
        for f in FAILURES:
            print("  " + f, file=sys.stderr)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
