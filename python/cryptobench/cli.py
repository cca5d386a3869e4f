"""The `cryptobench` command: the parser, assembled from one module per command group
(cryptobench/commands/), and the one place where errors become exit statuses.

User mistakes raise UserError and end as one line, `cryptobench: error: ...`, with a non-zero
exit. Nothing imports this module."""

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from cryptobench import __version__, store
from cryptobench.commands import (
    calibrate,
    check,
    compare,
    fidelity,
    importing,
    listing,
    output,
    push,
    recommend,
    reproduce,
    run,
    runs,
    scenario,
)
from cryptobench.commands.common import Parser, check_paths, db_parent
from cryptobench.errors import (
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    Interrupted,
    UserError,
    one_line,
)
from cryptobench.serve import command as serve
from cryptobench.store.engine import reason

# In the order --help lists them.
COMMAND_GROUPS = (
    listing,
    run,
    runs,
    output,
    compare,
    calibrate,
    check,
    fidelity,
    recommend,
    scenario,
    reproduce,
    importing,
    push,
    serve,
)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = ["cryptobench", *(sys.argv[1:] if argv is None else argv)]
    try:
        check_paths(args)
        return args.func(args)
    except UserError as e:
        print(f"cryptobench: error: {one_line(e)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except store.DatabaseError as e:
        path = getattr(args, "db", None) or store.default_path()
        if "locked" in str(e):
            print(f"cryptobench: error: {one_line(store.locked_message(path))}", file=sys.stderr)
        else:
            # The driver's own first line, never the SQL statement and its parameters.
            message = one_line(f"database {path}: {reason(e)}")
            print(f"cryptobench: error: {message}", file=sys.stderr)
        return EXIT_USER_ERROR
    except Interrupted as e:
        print(f"cryptobench: interrupted: {one_line(e)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("cryptobench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `cryptobench show | head`: the reader went away, nothing left to say.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="cryptobench",
        description="Measure the cryptographic primitives of every crypto library on this "
        "machine, store the results, and report and compare them.",
    )
    p.add_argument("--version", action="version", version=f"cryptobench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    db = db_parent()
    for group in COMMAND_GROUPS:
        group.register(sub, db)
    return p
