"""docs/protocol.schema.json for the tests: validate a reply, a request or a catalogue against
one of its definitions, with an error that says where the message breaks the schema."""

import functools
import json
from pathlib import Path

from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SCHEMA_FILE = REPO / "docs" / "protocol.schema.json"
CATALOGUE_FILE = REPO / "catalogue" / "algorithms.json"


@functools.cache
def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text())


@functools.cache
def validator(definition: str) -> Draft202012Validator:
    """A validator of `#/$defs/<definition>` (references resolve inside the schema)."""
    whole = schema()
    assert definition in whole["$defs"], f"{SCHEMA_FILE.name} has no $defs/{definition}"
    return Draft202012Validator({**whole, "anyOf": [{"$ref": f"#/$defs/{definition}"}]})


def problems(instance: object, definition: str) -> list[str]:
    """Every way `instance` breaks `$defs/<definition>`, deepest first, as 'path: message'."""
    found = []
    for error in validator(definition).iter_errors(instance):
        for leaf in _leaves(error):
            where = "/".join(str(p) for p in leaf.absolute_path) or "(top)"
            found.append(f"{where}: {leaf.message}")
    return found


def _leaves(error):
    if not error.context:
        return [error]
    return [leaf for sub in error.context for leaf in _leaves(sub)]


def check(instance: object, definition: str = "reply") -> object:
    """`instance` unchanged when it fits the schema; else an AssertionError naming the problems."""
    found = problems(instance, definition)
    if found:
        shown = json.dumps(instance)[:600]
        raise AssertionError(
            f"breaks {SCHEMA_FILE.name} $defs/{definition}:\n  "
            + "\n  ".join(found[:8])
            + f"\nmessage: {shown}"
        )
    return instance


def check_stdout(stdout: str) -> list[dict]:
    """Every line of a runner's stdout is one JSON reply that fits the schema."""
    replies = []
    for line in stdout.splitlines():
        try:
            reply = json.loads(line)
        except json.JSONDecodeError as e:
            raise AssertionError(f"a stdout line is not JSON ({e}): {line[:200]!r}") from e
        replies.append(check(reply))
    return replies
