"""The `cryptobench` commands, one module per command group. Each module's `register(sub, db)`
adds its subcommands to the parser (`db` is the parent parser that gives `--db`) and sets
`func`, a function from the parsed arguments to an exit status. Commands parse and print; the
work is done by the modules they call (plan, lifecycle, store, analysis, report, scenarios)."""
