
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'memlane' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'memlane'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'memlane' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a memory vault (`.memories/`) in the current directory')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Create a memory')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a memory')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a memory')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Open a memory in `$VISUAL` / `$EDITOR`')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Replace a memory''s content or change its metadata')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Add text to the end of a memory, after a blank line')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Move memories to the trash (`memlane trash restore` brings them back)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Move memories to the trash (`memlane trash restore` brings them back)')
            [CompletionResult]::new('mv', 'mv', [CompletionResultType]::ParameterValue, 'Rename a memory (its id stays the same)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List memories, newest first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memories by keyword and meaning')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Rebuild the search indices from the memory files')
            [CompletionResult]::new('linked', 'linked', [CompletionResultType]::ParameterValue, 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first')
            [CompletionResult]::new('relationships', 'relationships', [CompletionResultType]::ParameterValue, 'A memory''s typed links, both ways, and its whole version chain')
            [CompletionResult]::new('related', 'related', [CompletionResultType]::ParameterValue, 'Memories exactly N links away, ranked by link type and confidence')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Write a typed link into a memory''s frontmatter')
            [CompletionResult]::new('unlink', 'unlink', [CompletionResultType]::ParameterValue, 'Remove typed links from a memory''s frontmatter')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the config and the vault: hand-written files with problems, links to missing memories')
            [CompletionResult]::new('pin', 'pin', [CompletionResultType]::ParameterValue, 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature')
            [CompletionResult]::new('unpin', 'unpin', [CompletionResultType]::ParameterValue, 'Unpin a memory: it cools normally again and can become cold')
            [CompletionResult]::new('cold', 'cold', [CompletionResultType]::ParameterValue, 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Shrink a memory in place: same name, id and links; the old version goes to history')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Merge memories into a new one; the sources go to the trash (or are archived)')
            [CompletionResult]::new('suggest-merges', 'suggest-merges', [CompletionResultType]::ParameterValue, 'Find clusters of near-duplicate memories worth merging')
            [CompletionResult]::new('split', 'split', [CompletionResultType]::ParameterValue, 'Split a memory into one memory per section')
            [CompletionResult]::new('maintain', 'maintain', [CompletionResultType]::ParameterValue, 'Run the self-maintenance jobs once and report what was found and changed')
            [CompletionResult]::new('model', 'model', [CompletionResultType]::ParameterValue, 'Manage the local sentence-transformer model')
            [CompletionResult]::new('trash', 'trash', [CompletionResultType]::ParameterValue, 'List, restore or empty the trash')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the stored versions of a memory')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring back an earlier version of a memory')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective configuration and where each value came from')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the indices fresh while files change, until interrupted')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve memories to an agent over MCP (stdio)')
            [CompletionResult]::new('merge-file', 'merge-file', [CompletionResultType]::ParameterValue, 'Merge three versions of a memory file (git''s merge driver)')
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Connect an agent client to this vault''s MCP server')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write completions, man pages and the reference docs (for maintainers)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;init' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;add' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the content from this file (`-` for standard input)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the content from this file (`-` for standard input)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'The memory type (default: `default_type` from the config, `journal` built in)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'The memory type (default: `default_type` from the config, `journal` built in)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A tag (repeatable; `a,b` adds both)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Add it even when an existing memory is nearly the same (`lifecycle.dedup_threshold`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;show' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print the file exactly as it is on disk')
            [CompletionResult]::new('--no-touch', '--no-touch', [CompletionResultType]::ParameterName, 'Do not count this read as a use (no warming)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;read' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print the file exactly as it is on disk')
            [CompletionResult]::new('--no-touch', '--no-touch', [CompletionResultType]::ParameterName, 'Do not count this read as a use (no warming)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;edit' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;update' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the new content from this file (`-` for standard input)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the new content from this file (`-` for standard input)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Change the type')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Change the type')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Replace the tags with these (repeatable; `a,b` sets both)')
            [CompletionResult]::new('--add-tag', '--add-tag', [CompletionResultType]::ParameterName, 'Add a tag (repeatable)')
            [CompletionResult]::new('--remove-tag', '--remove-tag', [CompletionResultType]::ParameterName, 'Remove a tag (repeatable)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Change the status')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'The content is the whole file, frontmatter included')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;append' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the text from this file (`-` for standard input)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the text from this file (`-` for standard input)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;rm' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;delete' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;mv' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;list' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only this type (repeatable)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this type (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only memories with this tag (repeatable: any of them)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only this status')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only memories created at or after this time (ISO-8601 date or timestamp)')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Only memories created before this time')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort order')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most this many')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most this many')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;search' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many results (default: `search.limit`, 5)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many results (default: `search.limit`, 5)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only this type (repeatable)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only this type (repeatable)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only memories with this tag (repeatable: any of them)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only this status')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only memories created at or after this time (ISO-8601 date or timestamp)')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Only memories created before this time')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides --after/--before')
            [CompletionResult]::new('--intent', '--intent', [CompletionResultType]::ParameterName, 'What kind of search (the fusion weights)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Ranking profile (default: `search.profile`)')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Return as many results as fit in this many tokens (at least one) instead of a count')
            [CompletionResult]::new('--expand', '--expand', [CompletionResultType]::ParameterName, 'Also return memories linked to the top N results, marked with the link that brought them')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--include-archived', '--include-archived', [CompletionResultType]::ParameterName, 'Include archived memories')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Show every ranking stage''s value for every result')
            [CompletionResult]::new('--no-touch', '--no-touch', [CompletionResultType]::ParameterName, 'Do not count this search as a use of the results (no warming)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;context' {
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'The most estimated tokens to print (4 characters a token)')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'A task in words: its best matches are listed after the memories of the changed files')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;reindex' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;linked' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many results')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many results')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;relationships' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only links of this type (e.g. `supersedes`, `depends_on`)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;related' {
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'How many hops away (a document or shared entity in between counts as a hop)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many results')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many results')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;link' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'The link type')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--doc', '--doc', [CompletionResultType]::ParameterName, '`TO` is a document (a file path), not a memory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;unlink' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only links of this type')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;doctor' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;pin' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;unpin' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;cold' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;tree' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--no-sections', '--no-sections', [CompletionResultType]::ParameterName, 'Leave out the heading sections')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;summarize' {
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'The shorter content; `-` reads standard input')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the shorter content from this file')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the shorter content from this file')
            [CompletionResult]::new('--temperature', '--temperature', [CompletionResultType]::ParameterName, 'The temperature afterwards (default: `lifecycle.temperature_start`)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;merge' {
            [CompletionResult]::new('--into', '--into', [CompletionResultType]::ParameterName, 'The new memory''s name')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'Its content (default: the sources'' contents, each under its name as a heading)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--archive', '--archive', [CompletionResultType]::ParameterName, 'Archive the sources (status: archived, superseded_by the target) instead of trashing them')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;suggest-merges' {
            [CompletionResult]::new('--threshold', '--threshold', [CompletionResultType]::ParameterName, 'How similar the members of a cluster must all be (default: `lifecycle.merge_threshold`)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only memories of this type')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only memories of this type')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many clusters')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many clusters')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;split' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Move the original to the trash (links to it then point to the first piece)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;maintain' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;model' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the installed models and which one this vault uses')
            [CompletionResult]::new('distill', 'distill', [CompletionResultType]::ParameterValue, 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;model;import' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;model;pull' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;model;list' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;model;distill' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The model directory (default: the installed model `auto` uses)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'The table file to write')
            [CompletionResult]::new('--dims', '--dims', [CompletionResultType]::ParameterName, 'Dimensions kept by PCA (at most the model''s)')
            [CompletionResult]::new('--weighting', '--weighting', [CompletionResultType]::ParameterName, 'How token rows are weighted by vocabulary rank')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;model;help' {
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the installed models and which one this vault uses')
            [CompletionResult]::new('distill', 'distill', [CompletionResultType]::ParameterValue, 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;model;help;import' {
            break
        }
        'memlane;model;help;pull' {
            break
        }
        'memlane;model;help;list' {
            break
        }
        'memlane;model;help;distill' {
            break
        }
        'memlane;model;help;help' {
            break
        }
        'memlane;trash' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List deleted memories, newest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring a deleted memory back')
            [CompletionResult]::new('empty', 'empty', [CompletionResultType]::ParameterValue, 'Delete trash entries for good (the only permanent delete in memlane)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;trash;list' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;trash;restore' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Restore under this name instead of the old one')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;trash;empty' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only entries deleted longer ago than this (`30d`, `12h`, `2w`)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;trash;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List deleted memories, newest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring a deleted memory back')
            [CompletionResult]::new('empty', 'empty', [CompletionResultType]::ParameterValue, 'Delete trash entries for good (the only permanent delete in memlane)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;trash;help;list' {
            break
        }
        'memlane;trash;help;restore' {
            break
        }
        'memlane;trash;help;empty' {
            break
        }
        'memlane;trash;help;help' {
            break
        }
        'memlane;history' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;restore' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version number from `memlane history`')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;config' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;watch' {
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'Milliseconds of quiet after a change before re-indexing')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;mcp' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;merge-file' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;setup' {
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'The command the client runs (default `memlane`, found on PATH); a path here is written into files that are shared with everyone who clones the project')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print a unified diff of each file that would change, and change nothing')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Take memlane''s entries out again (a file left empty is deleted)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;hook' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('session-start', 'session-start', [CompletionResultType]::ParameterValue, 'Print the session-start digest (`memlane context`) for the event''s working directory')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;hook;session-start' {
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'The most estimated tokens to print (default: `[hooks] session_start_budget`)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;hook;stop' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;hook;help' {
            [CompletionResult]::new('session-start', 'session-start', [CompletionResultType]::ParameterValue, 'Print the session-start digest (`memlane context`) for the event''s working directory')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;hook;help;session-start' {
            break
        }
        'memlane;hook;help;stop' {
            break
        }
        'memlane;hook;help;help' {
            break
        }
        'memlane;completions' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;generate' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'The folder that receives `completions/`, `man/` and `docs/reference/`')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault: a `.memories` folder, or a folder containing one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Set a config value for this run, e.g. `-c default_type=fact` (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or progress')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memlane;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a memory vault (`.memories/`) in the current directory')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Create a memory')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a memory')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Open a memory in `$VISUAL` / `$EDITOR`')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Replace a memory''s content or change its metadata')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Add text to the end of a memory, after a blank line')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Move memories to the trash (`memlane trash restore` brings them back)')
            [CompletionResult]::new('mv', 'mv', [CompletionResultType]::ParameterValue, 'Rename a memory (its id stays the same)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List memories, newest first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memories by keyword and meaning')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what matters for the work at hand, within a token budget: pinned memories, memories linked to the files changed in the git working tree, matches of a task, the hottest memories')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Rebuild the search indices from the memory files')
            [CompletionResult]::new('linked', 'linked', [CompletionResultType]::ParameterValue, 'Memories that link to a document (`[[src/auth.py]]`), best match for the query first')
            [CompletionResult]::new('relationships', 'relationships', [CompletionResultType]::ParameterValue, 'A memory''s typed links, both ways, and its whole version chain')
            [CompletionResult]::new('related', 'related', [CompletionResultType]::ParameterValue, 'Memories exactly N links away, ranked by link type and confidence')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Write a typed link into a memory''s frontmatter')
            [CompletionResult]::new('unlink', 'unlink', [CompletionResultType]::ParameterValue, 'Remove typed links from a memory''s frontmatter')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the config and the vault: hand-written files with problems, links to missing memories')
            [CompletionResult]::new('pin', 'pin', [CompletionResultType]::ParameterValue, 'Pin a memory: it never cools, never counts as cold, and ranks at full temperature')
            [CompletionResult]::new('unpin', 'unpin', [CompletionResultType]::ParameterValue, 'Unpin a memory: it cools normally again and can become cold')
            [CompletionResult]::new('cold', 'cold', [CompletionResultType]::ParameterValue, 'List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Print the vault as a tree: folders, memories and their sections, with temperature and tokens')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Shrink a memory in place: same name, id and links; the old version goes to history')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Merge memories into a new one; the sources go to the trash (or are archived)')
            [CompletionResult]::new('suggest-merges', 'suggest-merges', [CompletionResultType]::ParameterValue, 'Find clusters of near-duplicate memories worth merging')
            [CompletionResult]::new('split', 'split', [CompletionResultType]::ParameterValue, 'Split a memory into one memory per section')
            [CompletionResult]::new('maintain', 'maintain', [CompletionResultType]::ParameterValue, 'Run the self-maintenance jobs once and report what was found and changed')
            [CompletionResult]::new('model', 'model', [CompletionResultType]::ParameterValue, 'Manage the local sentence-transformer model')
            [CompletionResult]::new('trash', 'trash', [CompletionResultType]::ParameterValue, 'List, restore or empty the trash')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the stored versions of a memory')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring back an earlier version of a memory')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective configuration and where each value came from')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the indices fresh while files change, until interrupted')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve memories to an agent over MCP (stdio)')
            [CompletionResult]::new('merge-file', 'merge-file', [CompletionResultType]::ParameterValue, 'Merge three versions of a memory file (git''s merge driver)')
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Connect an agent client to this vault''s MCP server')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write completions, man pages and the reference docs (for maintainers)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memlane;help;init' {
            break
        }
        'memlane;help;add' {
            break
        }
        'memlane;help;show' {
            break
        }
        'memlane;help;edit' {
            break
        }
        'memlane;help;update' {
            break
        }
        'memlane;help;append' {
            break
        }
        'memlane;help;rm' {
            break
        }
        'memlane;help;mv' {
            break
        }
        'memlane;help;list' {
            break
        }
        'memlane;help;search' {
            break
        }
        'memlane;help;context' {
            break
        }
        'memlane;help;reindex' {
            break
        }
        'memlane;help;linked' {
            break
        }
        'memlane;help;relationships' {
            break
        }
        'memlane;help;related' {
            break
        }
        'memlane;help;link' {
            break
        }
        'memlane;help;unlink' {
            break
        }
        'memlane;help;doctor' {
            break
        }
        'memlane;help;pin' {
            break
        }
        'memlane;help;unpin' {
            break
        }
        'memlane;help;cold' {
            break
        }
        'memlane;help;tree' {
            break
        }
        'memlane;help;summarize' {
            break
        }
        'memlane;help;merge' {
            break
        }
        'memlane;help;suggest-merges' {
            break
        }
        'memlane;help;split' {
            break
        }
        'memlane;help;maintain' {
            break
        }
        'memlane;help;model' {
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Install a sentence-transformer model directory (model.safetensors, tokenizer.json, config.json) as the default local model')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Download a sentence-transformer from the Hugging Face Hub, verify it and make it the default local model (resumes an interrupted download)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the installed models and which one this vault uses')
            [CompletionResult]::new('distill', 'distill', [CompletionResultType]::ParameterValue, 'Distil a static token table from a sentence-transformer model, for `[embedding] model = "static:FILE"` (deterministic: same model, same file)')
            break
        }
        'memlane;help;model;import' {
            break
        }
        'memlane;help;model;pull' {
            break
        }
        'memlane;help;model;list' {
            break
        }
        'memlane;help;model;distill' {
            break
        }
        'memlane;help;trash' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List deleted memories, newest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring a deleted memory back')
            [CompletionResult]::new('empty', 'empty', [CompletionResultType]::ParameterValue, 'Delete trash entries for good (the only permanent delete in memlane)')
            break
        }
        'memlane;help;trash;list' {
            break
        }
        'memlane;help;trash;restore' {
            break
        }
        'memlane;help;trash;empty' {
            break
        }
        'memlane;help;history' {
            break
        }
        'memlane;help;restore' {
            break
        }
        'memlane;help;config' {
            break
        }
        'memlane;help;watch' {
            break
        }
        'memlane;help;mcp' {
            break
        }
        'memlane;help;merge-file' {
            break
        }
        'memlane;help;setup' {
            break
        }
        'memlane;help;hook' {
            [CompletionResult]::new('session-start', 'session-start', [CompletionResultType]::ParameterValue, 'Print the session-start digest (`memlane context`) for the event''s working directory')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)')
            break
        }
        'memlane;help;hook;session-start' {
            break
        }
        'memlane;help;hook;stop' {
            break
        }
        'memlane;help;completions' {
            break
        }
        'memlane;help;generate' {
            break
        }
        'memlane;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
