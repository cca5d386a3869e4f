"""What every command's arguments share: one-line usage errors, number and list parsing."""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from cryptobench.errors import EXIT_USAGE, UserError, one_line
from cryptobench.files import check_output
from cryptobench.store.engine import check_target


class Parser(argparse.ArgumentParser):
    """One rule for every option value, in every command: only an absent option means the
    default. An empty value (`--systems ""`, `--json-out ""`) is an error, unless the option's
    own default is the empty text (`--note ""`); a count or a duration given as int or float
    must be positive (`--runs 0`, `--window 0`, `--window -1` are errors, not the default)."""

    def add_argument(self, *names, **kwargs):
        optional = bool(names) and names[0].startswith("-")
        if optional and kwargs.get("action", "store") in ("store", "append"):
            kind = kwargs.get("type")
            kind = {int: positive_int, float: positive_float}.get(kind, kind)
            if kwargs.get("default") != "":
                kind = _non_empty(kind)
            if kind is not None:
                kwargs["type"] = kind
        return super().add_argument(*names, **kwargs)

    def error(self, message: str) -> NoReturn:
        # One line, like every other user error, instead of argparse's usage block.
        text = one_line(f"{message} (see `{self.prog} --help`)")
        print(f"cryptobench: error: {text}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def db_parent() -> argparse.ArgumentParser:
    db = Parser(add_help=False)
    db.add_argument(
        "--db",
        metavar="FILE|URL",
        help="results database: an SQLite file or a postgresql:// URL (default: "
        "$CRYPTOBENCH_DB, else $XDG_DATA_HOME/cryptobench/results.db)",
    )
    return db


def number(kind: Callable[[str], float], test: Callable[[float], bool], what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}")
        return value

    return parse


positive_int = number(int, lambda v: v > 0, "a positive integer")
non_negative_int = number(int, lambda v: v >= 0, "a CPU number")
positive_float = number(float, lambda v: v > 0, "a positive number")
percent = number(float, lambda v: 0 <= v < 100, "a percentage between 0 and 100")
probability = number(float, lambda v: 0 < v < 1, "a probability between 0 and 1")


def _non_empty(kind: Callable[[str], Any] | None) -> Callable[[str], Any]:
    def parse(text: str):
        if not text.strip():
            raise argparse.ArgumentTypeError("an empty value (omit the option for the default)")
        return kind(text) if kind is not None else text

    parse.__name__ = getattr(kind, "__name__", "text")
    return parse


def names(values: list[str] | None) -> list[str] | None:
    """`-p a,b -p c` → ['a', 'b', 'c']; None when the option was not given."""
    if values is None:
        return None
    out = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not out:
        raise UserError("an empty list of names was given")
    return out


# Options that name a file a command writes, and how the user spells them.
OUTPUT_OPTIONS = {"output": "-o/--output", "report": "--report", "json_out": "--json-out"}


def check_paths(args: argparse.Namespace) -> None:
    """Every output path and working directory of any command, checked before any work: a run
    must not measure for an hour and then fail to write its report."""
    for dest, option in OUTPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if isinstance(value, Path):
            check_output(value, option)
    for dest in ("db", "to"):  # the stores: a file or a postgresql:// URL, nothing else
        value = getattr(args, dest, None)
        if isinstance(value, str):
            check_target(value)
    workdir = getattr(args, "workdir", None)
    if isinstance(workdir, Path) and not workdir.is_dir():
        raise UserError(f"--workdir {workdir}: not an existing directory")


def say(message: str) -> None:
    """Progress and status lines go to stderr, so stdout stays the result."""
    print(message, file=sys.stderr, flush=True)
