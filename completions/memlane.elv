
use builtin;
use str;

set edit:completion:arg-completer[memlane] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'memlane'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'memlane'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Create a memory vault (`.memories/`) in the current directory'
            cand add 'Create a memory'
            cand show 'Print a memory'
            cand read 'Print a memory'
            cand edit 'Open a memory in `$VISUAL` / `$EDITOR`'
            cand update 'Replace a memory''s content or change its metadata'
            cand append 'Add text to the end of a memory, after a blank line'
            cand rm 'Move memories to the trash (`memlane trash restore` brings them back)'
            cand delete 'Move memories to the trash (`memlane trash restore` brings them back)'
            cand mv 'Rename a memory (its id stays the same)'
            cand list 'List memories, newest first'
            cand search 'Search memories by keyword and meaning'
            cand context 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories'
            cand reindex 'Rebuild the search indices from the memory files'
            cand linked 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first'
            cand relationships 'A memory''s typed links, both ways, and its whole version chain'
            cand related 'Memories exactly N links away, ranked by link type and confidence'
            cand link 'Write a typed link into a memory''s frontmatter'
            cand unlink 'Remove typed links from a memory''s frontmatter'
            cand doctor 'Check the config and the vault: hand-written files with problems, links to missing memories'
            cand pin 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature'
            cand unpin 'Unpin a memory: it cools normally again and can become cold'
            cand cold 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first'
            cand tree 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens'
            cand summarize 'Shrink a memory in place: same name, id and links; the old version goes to history'
            cand merge 'Merge memories into a new one; the sources go to the trash (or are archived)'
            cand suggest-merges 'Find clusters of near-duplicate memories worth merging'
            cand split 'Split a memory into one memory per section'
            cand maintain 'Run the self-maintenance jobs once and report what was found and changed'
            cand model 'Manage the local sentence-transformer model'
            cand trash 'List, restore or empty the trash'
            cand history 'List the stored versions of a memory'
            cand restore 'Bring back an earlier version of a memory'
            cand config 'Print the effective configuration and where each value came from'
            cand watch 'Keep the indices fresh while files change, until interrupted'
            cand mcp 'Serve memories to an agent over MCP (stdio)'
            cand merge-file 'Merge three versions of a memory file (git''s merge driver)'
            cand setup 'Connect an agent client to this vault''s MCP server'
            cand hook 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)'
            cand completions 'Print a shell completion script'
            cand generate 'Write completions, man pages and the reference docs (for maintainers)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;init'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;add'= {
            cand -f 'Read the content from this file (`-` for standard input)'
            cand --file 'Read the content from this file (`-` for standard input)'
            cand -t 'The memory type (default: `default_type` from the config, `journal` built in)'
            cand --type 'The memory type (default: `default_type` from the config, `journal` built in)'
            cand --tag 'A tag (repeatable; `a,b` adds both)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --force 'Add it even when an existing memory is nearly the same (`lifecycle.dedup_threshold`)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;show'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --raw 'Print the file exactly as it is on disk'
            cand --no-touch 'Do not count this read as a use (no warming)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;read'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --raw 'Print the file exactly as it is on disk'
            cand --no-touch 'Do not count this read as a use (no warming)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;edit'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;update'= {
            cand -f 'Read the new content from this file (`-` for standard input)'
            cand --file 'Read the new content from this file (`-` for standard input)'
            cand -t 'Change the type'
            cand --type 'Change the type'
            cand --tag 'Replace the tags with these (repeatable; `a,b` sets both)'
            cand --add-tag 'Add a tag (repeatable)'
            cand --remove-tag 'Remove a tag (repeatable)'
            cand --status 'Change the status'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --raw 'The content is the whole file, frontmatter included'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;append'= {
            cand -f 'Read the text from this file (`-` for standard input)'
            cand --file 'Read the text from this file (`-` for standard input)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;rm'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;delete'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;mv'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;list'= {
            cand -t 'Only this type (repeatable)'
            cand --type 'Only this type (repeatable)'
            cand --tag 'Only memories with this tag (repeatable: any of them)'
            cand --status 'Only this status'
            cand --after 'Only memories created at or after this time (ISO-8601 date or timestamp)'
            cand --before 'Only memories created before this time'
            cand --since 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before'
            cand --sort 'Sort order'
            cand -n 'Show at most this many'
            cand --limit 'Show at most this many'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --reverse 'Reverse the order'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;search'= {
            cand -n 'How many results (default: `search.limit`, 5)'
            cand --limit 'How many results (default: `search.limit`, 5)'
            cand -t 'Only this type (repeatable)'
            cand --type 'Only this type (repeatable)'
            cand --tag 'Only memories with this tag (repeatable: any of them)'
            cand --status 'Only this status'
            cand --after 'Only memories created at or after this time (ISO-8601 date or timestamp)'
            cand --before 'Only memories created before this time'
            cand --since 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before'
            cand --intent 'What kind of search (the fusion weights)'
            cand --profile 'Ranking profile (default: `search.profile`)'
            cand --budget 'Return as many results as fit in this many tokens (at least one) instead of a count'
            cand --expand 'Also return memories linked to the top N results, marked with the link that brought them'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --include-archived 'Include archived memories'
            cand --explain 'Show every ranking stage''s value for every result'
            cand --no-touch 'Do not count this search as a use of the results (no warming)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;context'= {
            cand --budget 'The most estimated tokens to print (4 characters a token)'
            cand --for 'A task in words: its best matches are listed after the memories of the changed files'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;reindex'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;linked'= {
            cand -n 'How many results'
            cand --limit 'How many results'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;relationships'= {
            cand --type 'Only links of this type (e.g. `supersedes`, `depends_on`)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;related'= {
            cand --depth 'How many hops away (a document or shared entity in between counts as a hop)'
            cand -n 'How many results'
            cand --limit 'How many results'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;link'= {
            cand --type 'The link type'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --doc '`TO` is a document (a file path), not a memory'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;unlink'= {
            cand --type 'Only links of this type'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;doctor'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;pin'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;unpin'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;cold'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;tree'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --no-sections 'Leave out the heading sections'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;summarize'= {
            cand --content 'The shorter content; `-` reads standard input'
            cand -f 'Read the shorter content from this file'
            cand --file 'Read the shorter content from this file'
            cand --temperature 'The temperature afterwards (default: `lifecycle.temperature_start`)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;merge'= {
            cand --into 'The new memory''s name'
            cand --content 'Its content (default: the sources'' contents, each under its name as a heading)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --archive 'Archive the sources (status: archived, superseded_by the target) instead of trashing them'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;suggest-merges'= {
            cand --threshold 'How similar the members of a cluster must all be (default: `lifecycle.merge_threshold`)'
            cand -t 'Only memories of this type'
            cand --type 'Only memories of this type'
            cand -n 'How many clusters'
            cand --limit 'How many clusters'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;split'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --replace 'Move the original to the trash (links to it then point to the first piece)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;maintain'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;model'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand import 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
            cand pull 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
            cand list 'Show the installed models and which one this vault uses'
            cand distill 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;model;import'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;model;pull'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;model;list'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;model;distill'= {
            cand --from 'The model directory (default: the installed model `auto` uses)'
            cand --out 'The table file to write'
            cand --dims 'Dimensions kept by PCA (at most the model''s)'
            cand --weighting 'How token rows are weighted by vocabulary rank'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;model;help'= {
            cand import 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
            cand pull 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
            cand list 'Show the installed models and which one this vault uses'
            cand distill 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;model;help;import'= {
        }
        &'memlane;model;help;pull'= {
        }
        &'memlane;model;help;list'= {
        }
        &'memlane;model;help;distill'= {
        }
        &'memlane;model;help;help'= {
        }
        &'memlane;trash'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List deleted memories, newest first'
            cand restore 'Bring a deleted memory back'
            cand empty 'Delete trash entries for good (the only permanent delete in memlane)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;trash;list'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;trash;restore'= {
            cand --as 'Restore under this name instead of the old one'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;trash;empty'= {
            cand --older-than 'Only entries deleted longer ago than this (`30d`, `12h`, `2w`)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;trash;help'= {
            cand list 'List deleted memories, newest first'
            cand restore 'Bring a deleted memory back'
            cand empty 'Delete trash entries for good (the only permanent delete in memlane)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;trash;help;list'= {
        }
        &'memlane;trash;help;restore'= {
        }
        &'memlane;trash;help;empty'= {
        }
        &'memlane;trash;help;help'= {
        }
        &'memlane;history'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;restore'= {
            cand --version 'The version number from `memlane history`'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;config'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;watch'= {
            cand --debounce 'Milliseconds of quiet after a change before re-indexing'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;mcp'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;merge-file'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;setup'= {
            cand --command 'The command the client runs (default `memlane`, found on PATH); a path here is written into files that are shared with everyone who clones the project'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --dry-run 'Print a unified diff of each file that would change, and change nothing'
            cand --remove 'Take memlane''s entries out again (a file left empty is deleted)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;hook'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand session-start 'Print the session-start digest (`memlane context`) for the event''s working directory'
            cand stop 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;hook;session-start'= {
            cand --budget 'The most estimated tokens to print (default: `[hooks] session_start_budget`)'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;hook;stop'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;hook;help'= {
            cand session-start 'Print the session-start digest (`memlane context`) for the event''s working directory'
            cand stop 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;hook;help;session-start'= {
        }
        &'memlane;hook;help;stop'= {
        }
        &'memlane;hook;help;help'= {
        }
        &'memlane;completions'= {
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;generate'= {
            cand --out-dir 'The folder that receives `completions/`, `man/` and `docs/reference/`'
            cand --vault 'The vault: a `.memories` folder, or a folder containing one'
            cand --color 'When to use colour'
            cand --now 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages'
            cand -c 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --config 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)'
            cand --json 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
            cand -q 'Print no warnings or progress'
            cand --quiet 'Print no warnings or progress'
            cand -v 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand --verbose 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memlane;help'= {
            cand init 'Create a memory vault (`.memories/`) in the current directory'
            cand add 'Create a memory'
            cand show 'Print a memory'
            cand edit 'Open a memory in `$VISUAL` / `$EDITOR`'
            cand update 'Replace a memory''s content or change its metadata'
            cand append 'Add text to the end of a memory, after a blank line'
            cand rm 'Move memories to the trash (`memlane trash restore` brings them back)'
            cand mv 'Rename a memory (its id stays the same)'
            cand list 'List memories, newest first'
            cand search 'Search memories by keyword and meaning'
            cand context 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories'
            cand reindex 'Rebuild the search indices from the memory files'
            cand linked 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first'
            cand relationships 'A memory''s typed links, both ways, and its whole version chain'
            cand related 'Memories exactly N links away, ranked by link type and confidence'
            cand link 'Write a typed link into a memory''s frontmatter'
            cand unlink 'Remove typed links from a memory''s frontmatter'
            cand doctor 'Check the config and the vault: hand-written files with problems, links to missing memories'
            cand pin 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature'
            cand unpin 'Unpin a memory: it cools normally again and can become cold'
            cand cold 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first'
            cand tree 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens'
            cand summarize 'Shrink a memory in place: same name, id and links; the old version goes to history'
            cand merge 'Merge memories into a new one; the sources go to the trash (or are archived)'
            cand suggest-merges 'Find clusters of near-duplicate memories worth merging'
            cand split 'Split a memory into one memory per section'
            cand maintain 'Run the self-maintenance jobs once and report what was found and changed'
            cand model 'Manage the local sentence-transformer model'
            cand trash 'List, restore or empty the trash'
            cand history 'List the stored versions of a memory'
            cand restore 'Bring back an earlier version of a memory'
            cand config 'Print the effective configuration and where each value came from'
            cand watch 'Keep the indices fresh while files change, until interrupted'
            cand mcp 'Serve memories to an agent over MCP (stdio)'
            cand merge-file 'Merge three versions of a memory file (git''s merge driver)'
            cand setup 'Connect an agent client to this vault''s MCP server'
            cand hook 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)'
            cand completions 'Print a shell completion script'
            cand generate 'Write completions, man pages and the reference docs (for maintainers)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memlane;help;init'= {
        }
        &'memlane;help;add'= {
        }
        &'memlane;help;show'= {
        }
        &'memlane;help;edit'= {
        }
        &'memlane;help;update'= {
        }
        &'memlane;help;append'= {
        }
        &'memlane;help;rm'= {
        }
        &'memlane;help;mv'= {
        }
        &'memlane;help;list'= {
        }
        &'memlane;help;search'= {
        }
        &'memlane;help;context'= {
        }
        &'memlane;help;reindex'= {
        }
        &'memlane;help;linked'= {
        }
        &'memlane;help;relationships'= {
        }
        &'memlane;help;related'= {
        }
        &'memlane;help;link'= {
        }
        &'memlane;help;unlink'= {
        }
        &'memlane;help;doctor'= {
        }
        &'memlane;help;pin'= {
        }
        &'memlane;help;unpin'= {
        }
        &'memlane;help;cold'= {
        }
        &'memlane;help;tree'= {
        }
        &'memlane;help;summarize'= {
        }
        &'memlane;help;merge'= {
        }
        &'memlane;help;suggest-merges'= {
        }
        &'memlane;help;split'= {
        }
        &'memlane;help;maintain'= {
        }
        &'memlane;help;model'= {
            cand import 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
            cand pull 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
            cand list 'Show the installed models and which one this vault uses'
            cand distill 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
        }
        &'memlane;help;model;import'= {
        }
        &'memlane;help;model;pull'= {
        }
        &'memlane;help;model;list'= {
        }
        &'memlane;help;model;distill'= {
        }
        &'memlane;help;trash'= {
            cand list 'List deleted memories, newest first'
            cand restore 'Bring a deleted memory back'
            cand empty 'Delete trash entries for good (the only permanent delete in memlane)'
        }
        &'memlane;help;trash;list'= {
        }
        &'memlane;help;trash;restore'= {
        }
        &'memlane;help;trash;empty'= {
        }
        &'memlane;help;history'= {
        }
        &'memlane;help;restore'= {
        }
        &'memlane;help;config'= {
        }
        &'memlane;help;watch'= {
        }
        &'memlane;help;mcp'= {
        }
        &'memlane;help;merge-file'= {
        }
        &'memlane;help;setup'= {
        }
        &'memlane;help;hook'= {
            cand session-start 'Print the session-start digest (`memlane context`) for the event''s working directory'
            cand stop 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
        }
        &'memlane;help;hook;session-start'= {
        }
        &'memlane;help;hook;stop'= {
        }
        &'memlane;help;completions'= {
        }
        &'memlane;help;generate'= {
        }
        &'memlane;help;help'= {
        }
    ]
    $completions[$command]
}
