# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_memlane_global_optspecs
    string join \n vault= json q/quiet v/verbose color= now= c/config= h/help V/version
end

function __fish_memlane_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_memlane_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_memlane_using_subcommand
    set -l cmd (__fish_memlane_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c memlane -n "__fish_memlane_needs_command" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_needs_command" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_needs_command" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_needs_command" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_needs_command" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_needs_command" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_needs_command" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_needs_command" -s V -l version -d 'Print version'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "init" -d 'Create a memory vault (`.memories/`) in the current directory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "add" -d 'Create a memory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "show" -d 'Print a memory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "read" -d 'Print a memory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "edit" -d 'Open a memory in `$VISUAL` / `$EDITOR`'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "update" -d 'Replace a memory\'s content or change its metadata'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "append" -d 'Add text to the end of a memory, after a blank line'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "rm" -d 'Move memories to the trash (`memlane trash restore` brings them back)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "delete" -d 'Move memories to the trash (`memlane trash restore` brings them back)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "mv" -d 'Rename a memory (its id stays the same)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "list" -d 'List memories, newest first'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "search" -d 'Search memories by keyword and meaning'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "context" -d 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "reindex" -d 'Rebuild the search indices from the memory files'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "linked" -d 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "relationships" -d 'A memory\'s typed links, both ways, and its whole version chain'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "related" -d 'Memories exactly N links away, ranked by link type and confidence'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "link" -d 'Write a typed link into a memory\'s frontmatter'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "unlink" -d 'Remove typed links from a memory\'s frontmatter'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "doctor" -d 'Check the config and the vault: hand-written files with problems, links to missing memories'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "pin" -d 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "unpin" -d 'Unpin a memory: it cools normally again and can become cold'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "cold" -d 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "tree" -d 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "summarize" -d 'Shrink a memory in place: same name, id and links; the old version goes to history'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "merge" -d 'Merge memories into a new one; the sources go to the trash (or are archived)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "suggest-merges" -d 'Find clusters of near-duplicate memories worth merging'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "split" -d 'Split a memory into one memory per section'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "maintain" -d 'Run the self-maintenance jobs once and report what was found and changed'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "model" -d 'Manage the local sentence-transformer model'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "trash" -d 'List, restore or empty the trash'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "history" -d 'List the stored versions of a memory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "restore" -d 'Bring back an earlier version of a memory'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "config" -d 'Print the effective configuration and where each value came from'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "watch" -d 'Keep the indices fresh while files change, until interrupted'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "mcp" -d 'Serve memories to an agent over MCP (stdio)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "merge-file" -d 'Merge three versions of a memory file (git\'s merge driver)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "setup" -d 'Connect an agent client to this vault\'s MCP server'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "hook" -d 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "generate" -d 'Write completions, man pages and the reference docs (for maintainers)'
complete -c memlane -n "__fish_memlane_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand init" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand init" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand init" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand init" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand init" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand init" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand init" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand add" -s f -l file -d 'Read the content from this file (`-` for standard input)' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand add" -s t -l type -d 'The memory type (default: `default_type` from the config, `journal` built in)' -r
complete -c memlane -n "__fish_memlane_using_subcommand add" -l tag -d 'A tag (repeatable; `a,b` adds both)' -r
complete -c memlane -n "__fish_memlane_using_subcommand add" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand add" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand add" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand add" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand add" -l force -d 'Add it even when an existing memory is nearly the same (`lifecycle.dedup_threshold`)'
complete -c memlane -n "__fish_memlane_using_subcommand add" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand add" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand add" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand show" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand show" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand show" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand show" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand show" -l raw -d 'Print the file exactly as it is on disk'
complete -c memlane -n "__fish_memlane_using_subcommand show" -l no-touch -d 'Do not count this read as a use (no warming)'
complete -c memlane -n "__fish_memlane_using_subcommand show" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand show" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand show" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand read" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand read" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand read" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand read" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand read" -l raw -d 'Print the file exactly as it is on disk'
complete -c memlane -n "__fish_memlane_using_subcommand read" -l no-touch -d 'Do not count this read as a use (no warming)'
complete -c memlane -n "__fish_memlane_using_subcommand read" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand read" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand read" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand edit" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand edit" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand edit" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand edit" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand edit" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand edit" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand edit" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand update" -s f -l file -d 'Read the new content from this file (`-` for standard input)' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand update" -s t -l type -d 'Change the type' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -l tag -d 'Replace the tags with these (repeatable; `a,b` sets both)' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -l add-tag -d 'Add a tag (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -l remove-tag -d 'Remove a tag (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -l status -d 'Change the status' -r -f -a "active\t''
archived\t''"
complete -c memlane -n "__fish_memlane_using_subcommand update" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand update" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand update" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand update" -l raw -d 'The content is the whole file, frontmatter included'
complete -c memlane -n "__fish_memlane_using_subcommand update" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand update" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand update" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand append" -s f -l file -d 'Read the text from this file (`-` for standard input)' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand append" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand append" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand append" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand append" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand append" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand append" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand append" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand append" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand rm" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand rm" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand rm" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand rm" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand rm" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand rm" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand rm" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand delete" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand delete" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand delete" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand delete" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand delete" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand delete" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand delete" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand mv" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand mv" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand mv" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand mv" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand mv" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand mv" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand mv" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand mv" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand list" -s t -l type -d 'Only this type (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l tag -d 'Only memories with this tag (repeatable: any of them)' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l status -d 'Only this status' -r -f -a "active\t''
archived\t''
all\t''"
complete -c memlane -n "__fish_memlane_using_subcommand list" -l after -d 'Only memories created at or after this time (ISO-8601 date or timestamp)' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l before -d 'Only memories created before this time' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l since -d 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l sort -d 'Sort order' -r -f -a "created\t'Newest first'
updated\t'Most recently updated first'
name\t'By name'
temperature\t'Warmest first (remindb\'s temperature)'
importance\t'Most important first (MIRA\'s importance score)'"
complete -c memlane -n "__fish_memlane_using_subcommand list" -s n -l limit -d 'Show at most this many' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand list" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand list" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand list" -l reverse -d 'Reverse the order'
complete -c memlane -n "__fish_memlane_using_subcommand list" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand list" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand list" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand search" -s n -l limit -d 'How many results (default: `search.limit`, 5)' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -s t -l type -d 'Only this type (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l tag -d 'Only memories with this tag (repeatable: any of them)' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l status -d 'Only this status' -r -f -a "active\t''
archived\t''"
complete -c memlane -n "__fish_memlane_using_subcommand search" -l after -d 'Only memories created at or after this time (ISO-8601 date or timestamp)' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l before -d 'Only memories created before this time' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l since -d 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l intent -d 'What kind of search (the fusion weights)' -r -f -a "general\t'No particular intent (the default)'
recall\t'Remembering something seen before: leans on keywords'
exact\t'An exact identifier or phrase: mostly keywords'
explore\t'Browsing a topic: mostly vectors'"
complete -c memlane -n "__fish_memlane_using_subcommand search" -l profile -d 'Ranking profile (default: `search.profile`)' -r -f -a "balanced\t'Every stage (the default)'
ragdocs\t'Memory Lane\'s ranking'
mnestra\t'Mnestra\'s ranking'
remindb\t'remindb\'s ranking'
mira\t'MIRA\'s ranking'"
complete -c memlane -n "__fish_memlane_using_subcommand search" -l budget -d 'Return as many results as fit in this many tokens (at least one) instead of a count' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l expand -d 'Also return memories linked to the top N results, marked with the link that brought them' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand search" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand search" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand search" -l include-archived -d 'Include archived memories'
complete -c memlane -n "__fish_memlane_using_subcommand search" -l explain -d 'Show every ranking stage\'s value for every result'
complete -c memlane -n "__fish_memlane_using_subcommand search" -l no-touch -d 'Do not count this search as a use of the results (no warming)'
complete -c memlane -n "__fish_memlane_using_subcommand search" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand search" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand search" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand context" -l budget -d 'The most estimated tokens to print (4 characters a token)' -r
complete -c memlane -n "__fish_memlane_using_subcommand context" -l for -d 'A task in words: its best matches are listed after the memories of the changed files' -r
complete -c memlane -n "__fish_memlane_using_subcommand context" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand context" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand context" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand context" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand context" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand context" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand context" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand reindex" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand linked" -s n -l limit -d 'How many results' -r
complete -c memlane -n "__fish_memlane_using_subcommand linked" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand linked" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand linked" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand linked" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand linked" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand linked" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand linked" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand linked" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -l type -d 'Only links of this type (e.g. `supersedes`, `depends_on`)' -r
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand relationships" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand related" -l depth -d 'How many hops away (a document or shared entity in between counts as a hop)' -r
complete -c memlane -n "__fish_memlane_using_subcommand related" -s n -l limit -d 'How many results' -r
complete -c memlane -n "__fish_memlane_using_subcommand related" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand related" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand related" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand related" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand related" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand related" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand related" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand related" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand link" -l type -d 'The link type' -r
complete -c memlane -n "__fish_memlane_using_subcommand link" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand link" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand link" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand link" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand link" -l doc -d '`TO` is a document (a file path), not a memory'
complete -c memlane -n "__fish_memlane_using_subcommand link" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand link" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand link" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand link" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -l type -d 'Only links of this type' -r
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand unlink" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand pin" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand pin" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand pin" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand pin" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand pin" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand pin" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand pin" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand pin" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand unpin" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand cold" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand cold" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand cold" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand cold" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand cold" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand cold" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand cold" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand cold" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand tree" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand tree" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand tree" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand tree" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand tree" -l no-sections -d 'Leave out the heading sections'
complete -c memlane -n "__fish_memlane_using_subcommand tree" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand tree" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand tree" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l content -d 'The shorter content; `-` reads standard input' -r
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -s f -l file -d 'Read the shorter content from this file' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l temperature -d 'The temperature afterwards (default: `lifecycle.temperature_start`)' -r
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand summarize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l into -d 'The new memory\'s name' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l content -d 'Its content (default: the sources\' contents, each under its name as a heading)' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l archive -d 'Archive the sources (status: archived, superseded_by the target) instead of trashing them'
complete -c memlane -n "__fish_memlane_using_subcommand merge" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand merge" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand merge" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -l threshold -d 'How similar the members of a cluster must all be (default: `lifecycle.merge_threshold`)' -r
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s t -l type -d 'Only memories of this type' -r
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s n -l limit -d 'How many clusters' -r
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand suggest-merges" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand split" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand split" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand split" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand split" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand split" -l replace -d 'Move the original to the trash (links to it then point to the first piece)'
complete -c memlane -n "__fish_memlane_using_subcommand split" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand split" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand split" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand split" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand maintain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -f -a "import" -d 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -f -a "pull" -d 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -f -a "list" -d 'Show the installed models and which one this vault uses'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -f -a "distill" -d 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and not __fish_seen_subcommand_from import pull list distill help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from pull" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l from -d 'The model directory (default: the installed model `auto` uses)' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l out -d 'The table file to write' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l dims -d 'Dimensions kept by PCA (at most the model\'s)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l weighting -d 'How token rows are weighted by vocabulary rank' -r -f -a "sif\t'Smooth inverse frequency a/(a+p) with Zipf frequencies (model2vec\'s)'
zipf\t'ln(1 + rank)'
none\t'No weighting'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from distill" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "import" -d 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "pull" -d 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "list" -d 'Show the installed models and which one this vault uses'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "distill" -d 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
complete -c memlane -n "__fish_memlane_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -f -a "list" -d 'List deleted memories, newest first'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -f -a "restore" -d 'Bring a deleted memory back'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -f -a "empty" -d 'Delete trash entries for good (the only permanent delete in memlane)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and not __fish_seen_subcommand_from list restore empty help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -l as -d 'Restore under this name instead of the old one' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -l older-than -d 'Only entries deleted longer ago than this (`30d`, `12h`, `2w`)' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from empty" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from help" -f -a "list" -d 'List deleted memories, newest first'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from help" -f -a "restore" -d 'Bring a deleted memory back'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from help" -f -a "empty" -d 'Delete trash entries for good (the only permanent delete in memlane)'
complete -c memlane -n "__fish_memlane_using_subcommand trash; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand history" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand history" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand history" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand history" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand history" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand history" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand history" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand restore" -l version -d 'The version number from `memlane history`' -r
complete -c memlane -n "__fish_memlane_using_subcommand restore" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand restore" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand restore" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand restore" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand restore" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand restore" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand restore" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand config" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand config" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand config" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand config" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand config" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand config" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand config" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand watch" -l debounce -d 'Milliseconds of quiet after a change before re-indexing' -r
complete -c memlane -n "__fish_memlane_using_subcommand watch" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand watch" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand watch" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand watch" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand watch" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand watch" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand watch" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand merge-file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l command -d 'The command the client runs (default `memlane`, found on PATH); a path here is written into files that are shared with everyone who clones the project' -r
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand setup" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l dry-run -d 'Print a unified diff of each file that would change, and change nothing'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l remove -d 'Take memlane\'s entries out again (a file left empty is deleted)'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand setup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -f -a "session-start" -d 'Print the session-start digest (`memlane context`) for the event\'s working directory'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -f -a "stop" -d 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and not __fish_seen_subcommand_from session-start stop help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -l budget -d 'The most estimated tokens to print (default: `[hooks] session_start_budget`)' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from session-start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "session-start" -d 'Print the session-start digest (`memlane context`) for the event\'s working directory'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
complete -c memlane -n "__fish_memlane_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand completions" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand completions" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand completions" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand completions" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand completions" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand completions" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand completions" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand generate" -l out-dir -d 'The folder that receives `completions/`, `man/` and `docs/reference/`' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand generate" -l vault -d 'The vault: a `.memories` folder, or a folder containing one' -r -F
complete -c memlane -n "__fish_memlane_using_subcommand generate" -l color -d 'When to use colour' -r -f -a "auto\t'Colour on a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c memlane -n "__fish_memlane_using_subcommand generate" -l now -d 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages' -r
complete -c memlane -n "__fish_memlane_using_subcommand generate" -s c -l config -d 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)' -r
complete -c memlane -n "__fish_memlane_using_subcommand generate" -l json -d 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)'
complete -c memlane -n "__fish_memlane_using_subcommand generate" -s q -l quiet -d 'Print no warnings or progress'
complete -c memlane -n "__fish_memlane_using_subcommand generate" -s v -l verbose -d 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides'
complete -c memlane -n "__fish_memlane_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "init" -d 'Create a memory vault (`.memories/`) in the current directory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "add" -d 'Create a memory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "show" -d 'Print a memory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "edit" -d 'Open a memory in `$VISUAL` / `$EDITOR`'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "update" -d 'Replace a memory\'s content or change its metadata'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "append" -d 'Add text to the end of a memory, after a blank line'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "rm" -d 'Move memories to the trash (`memlane trash restore` brings them back)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "mv" -d 'Rename a memory (its id stays the same)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "list" -d 'List memories, newest first'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "search" -d 'Search memories by keyword and meaning'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "context" -d 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "reindex" -d 'Rebuild the search indices from the memory files'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "linked" -d 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "relationships" -d 'A memory\'s typed links, both ways, and its whole version chain'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "related" -d 'Memories exactly N links away, ranked by link type and confidence'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "link" -d 'Write a typed link into a memory\'s frontmatter'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "unlink" -d 'Remove typed links from a memory\'s frontmatter'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "doctor" -d 'Check the config and the vault: hand-written files with problems, links to missing memories'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "pin" -d 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "unpin" -d 'Unpin a memory: it cools normally again and can become cold'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "cold" -d 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "tree" -d 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "summarize" -d 'Shrink a memory in place: same name, id and links; the old version goes to history'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "merge" -d 'Merge memories into a new one; the sources go to the trash (or are archived)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "suggest-merges" -d 'Find clusters of near-duplicate memories worth merging'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "split" -d 'Split a memory into one memory per section'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "maintain" -d 'Run the self-maintenance jobs once and report what was found and changed'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "model" -d 'Manage the local sentence-transformer model'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "trash" -d 'List, restore or empty the trash'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "history" -d 'List the stored versions of a memory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "restore" -d 'Bring back an earlier version of a memory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "config" -d 'Print the effective configuration and where each value came from'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "watch" -d 'Keep the indices fresh while files change, until interrupted'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "mcp" -d 'Serve memories to an agent over MCP (stdio)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "merge-file" -d 'Merge three versions of a memory file (git\'s merge driver)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "setup" -d 'Connect an agent client to this vault\'s MCP server'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "hook" -d 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "completions" -d 'Print a shell completion script'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "generate" -d 'Write completions, man pages and the reference docs (for maintainers)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and not __fish_seen_subcommand_from init add show edit update append rm mv list search context reindex linked relationships related link unlink doctor pin unpin cold tree summarize merge suggest-merges split maintain model trash history restore config watch mcp merge-file setup hook completions generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "import" -d 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "pull" -d 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "list" -d 'Show the installed models and which one this vault uses'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "distill" -d 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from trash" -f -a "list" -d 'List deleted memories, newest first'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from trash" -f -a "restore" -d 'Bring a deleted memory back'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from trash" -f -a "empty" -d 'Delete trash entries for good (the only permanent delete in memlane)'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "session-start" -d 'Print the session-start digest (`memlane context`) for the event\'s working directory'
complete -c memlane -n "__fish_memlane_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "stop" -d 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)'
