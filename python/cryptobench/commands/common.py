"""What every command's arguments share: one-line usage errors, number and list parsing."""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from cryptobench.errors import EXIT_USAGE, UserError


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, like every other user error, instead of argparse's usage block.
        print(f"cryptobench: error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def db_parent() -> argparse.ArgumentParser:
    db = Parser(add_help=False)
    db.add_argument(
        "--db",
        type=Path,
        help="results database (default: $CRYPTOBENCH_DB, else "
        "$XDG_DATA_HOME/cryptobench/results.db)",
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


def names(values: list[str] | None) -> list[str] | None:
    """`-p a,b -p c` → ['a', 'b', 'c']; None when the option was not given."""
    if values is None:
        return None
    out = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not out:
        raise UserError("an empty list of names was given")
    return out


def say(message: str) -> None:
    """Progress and status lines go to stderr, so stdout stays the result."""
    print(message, file=sys.stderr, flush=True)
