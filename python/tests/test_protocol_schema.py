"""docs/protocol.schema.json against docs/protocol.md and against the native runner: the document
and the schema name the same message types, requests and case fields (so neither can drift), the
document's examples fit the schema, the schema refuses what the document forbids, and every reply
of the native runner (list, run, serve, check, errors) fits it. Every other runner's replies are
validated by the same helpers (runner_harness.py) in test_runner_protocol.py."""

import json
import re

import pytest
from jsonschema import Draft202012Validator
from protocol_schema import REPO, check, problems, schema
from runner_harness import MATERIAL, Served, capabilities, run, tiny_case

from cryptobench import plan, runner

DOC = (REPO / "docs" / "protocol.md").read_text()
SERVE = "`serve`: a runner kept alive for interleaving"


def _section(title: str) -> str:
    """The text of `## title` (or `### title`) up to the next heading of the same level."""
    match = re.search(rf"^(#+) {re.escape(title)}\n(.*?)(?=^\1 )", DOC, re.S | re.M)
    assert match, f"docs/protocol.md has no section '{title}'"
    return match.group(2)


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in text, as lists of cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows[1:] if rows else rows


def doc_reply_types() -> set[str]:
    """Every reply the document describes: a `### \\`type\\`` heading under "Messages", or a
    reply named in the serve table."""
    headings = set(re.findall(r"^### `(\w+)`", _section("Messages"), re.M))
    served = {re.findall(r"`(\w+)`", reply)[0] for _, reply in _table_rows(_section(SERVE))}
    return headings | served


def doc_request_commands() -> set[str]:
    return set(re.findall(r'\{"cmd": "(\w+)"', _section(SERVE)))


def doc_case_fields() -> dict[str, str]:
    """field -> its default column, from the case specification table."""
    rows = _table_rows(_section("Case specification").split("### ")[0])
    return {re.findall(r"`(\w+)`", field)[0]: default for field, _, default, _ in rows}


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(schema())


def test_the_document_and_the_schema_name_the_same_replies():
    defs = schema()["$defs"]
    in_schema = set(defs["reply"]["properties"]["type"]["enum"])
    assert in_schema == doc_reply_types()
    assert {d.removeprefix("reply_") for d in defs if d.startswith("reply_")} == in_schema
    for name in in_schema:
        assert defs[f"reply_{name}"]["properties"]["type"] == {"const": name}


def test_the_document_and_the_schema_name_the_same_requests():
    defs = schema()["$defs"]
    in_schema = set(defs["request"]["properties"]["cmd"]["enum"])
    assert in_schema == doc_request_commands()
    assert {d.removeprefix("request_") for d in defs if d.startswith("request_")} == in_schema


def test_the_document_and_the_schema_name_the_same_case_fields():
    fields = doc_case_fields()
    defs = schema()["$defs"]
    assert set(defs["case_fields"]["properties"]) == set(fields)
    required = {f for f, default in fields.items() if default == "required"}
    assert set(defs["case_spec"]["required"]) == required


def _fill_placeholders(value):
    """The document writes `…` for a value it leaves out; any value of that field will do."""
    if isinstance(value, dict):
        return {k: _fill_placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill_placeholders(v) for v in value]
    if isinstance(value, str) and "…" in value:
        return ""
    return value


def test_every_json_example_of_the_document_fits_the_schema():
    checked = 0
    for block in re.findall(r"```json\n(.*?)```", DOC, re.S):
        try:
            example = json.loads(block)
        except json.JSONDecodeError:
            continue  # an outline such as {"cmd": "cross_check", "case": {…}, …}
        definition = "case_spec" if "provider" in example and "type" not in example else None
        definition = definition or ("request" if "cmd" in example else "reply")
        check(_fill_placeholders(example), definition)
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize(
    ("message", "definition", "why"),
    [
        (
            {"type": "result", "id": "a", "status": "failed", "reason": "x", "provider": "p",
             "variant": "default", "operation": "hash", "algorithm": "sha256", "size": 16,
             "samples": [{"iterations": 1, "ns": 5, "ticks": 9}]},
            "reply",
            "samples",
        ),
        ({"type": "error", "message": "two\nlines"}, "reply", "does not match"),
        ({"type": "done", "ok": -1, "max_rss_kb": 9}, "reply", "less than the minimum"),
        ({"type": "hello", "schema": 2}, "reply", "1 was expected"),
        ({"type": "case", "id": "a", "status": "maybe", "reason": ""}, "reply", "'maybe'"),
        ({"type": "verdict"}, "reply", "'verdict' is not one of"),
        ({"cmd": "open", "case": {**tiny_case("openssl", "sha256", "hash", 16), "colour": 1}},
         "request", "'colour' was unexpected"),
        ({"cmd": "sample", "id": "a", "count": 0}, "request", "less than the minimum"),
        # a runner resolves no references: the coordinator sends earlier outputs as hex
        ({"cmd": "steps", "case": tiny_case("go", "aes-128-gcm", "encrypt", 16),
          "steps": [{"op": "decrypt", "inputs": [{"ref": [0, 0], "flip": [0, 1]}]}]},
         "request", "'case_input' is a required property"),
        ({"cmd": "steps", "case": tiny_case("go", "ed25519", "verify", 16),
          "steps": [{"op": "verify", "params": {"keypair": {"ref": [0, 0]}}, "inputs": ["00"]}]},
         "request", "is not of type 'string'"),
    ],
)  # fmt: skip
def test_the_schema_refuses_what_the_document_forbids(message, definition, why):
    found = problems(message, definition)
    assert any(why in p for p in found), found


# ---- every reply of the native runner --------------------------------------------------------


def test_the_native_list_fits_the_schema(native_runner):
    caps = capabilities(native_runner)  # validated by the harness
    assert caps["runner"] == "cryptobench-native"
    soft = run(native_runner, "list", "--variant", "openssl=soft")
    assert soft.returncode == 0, soft.stderr


def test_every_line_of_a_native_run_fits_the_schema(native_runner):
    spec = {
        "schema": 1,
        "defaults": {"samples": 2, "target_sample_ms": 0.2, "warmup_ms": 1},
        "cases": [
            tiny_case("openssl", "aes-256-gcm", "encrypt", 64),
            tiny_case("sodium", "aes-256-xts", "encrypt", 64),  # unsupported
            tiny_case("gcrypt", "ed25519", "sign", 32),
            tiny_case("openssl", "pbkdf2-sha256", "derive", 16, cost={"iterations": 10}),
        ],
    }
    done = run(native_runner, "run", "--no-pin", stdin=json.dumps(spec))
    assert done.returncode == 0, done.stderr
    types = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert types[0] == "hello" and types[-1] == "done"
    assert {"case", "samples", "result"} <= set(types)
    bad = run(native_runner, "run", "--no-pin", stdin='[{"id": 1}]')
    assert bad.returncode == 2 and json.loads(bad.stdout)["type"] == "error"


def test_every_serve_reply_of_the_native_runner_fits_the_schema(native_runner):
    with Served(native_runner) as served:  # the harness validates hello and every reply
        case = tiny_case("openssl", "sha256", "hash", 64)
        assert served.send({"cmd": "open", "case": case})["status"] == "ok"
        assert served.send({"cmd": "sample", "id": case["id"], "count": 2})["type"] == "samples"
        assert served.send({"cmd": "close", "id": case["id"]})["type"] == "result"
        for algorithm, operation, size in [
            ("aes-256-gcm", "encrypt", 4096),
            ("ed25519", "sign", 64),
            ("x25519", "keygen", 0),
            ("x25519", "derive", 0),
            ("rsa-2048-oaep-sha256", "encrypt", 32),
        ]:
            reply = served.send(
                {
                    "cmd": "agreement",
                    "case": tiny_case("openssl", algorithm, operation, size),
                    "material": MATERIAL,
                }
            )
            assert reply["status"] == "ok", reply
        unsupported = served.send(
            {
                "cmd": "agreement",
                "case": tiny_case("sodium", "aes-256-xts", "encrypt", 64),
                "material": MATERIAL,
            }
        )
        assert unsupported["status"] == "unsupported"
        verdicts = served.send(
            {
                "cmd": "cross_check",
                "case": tiny_case("openssl", "ed25519", "verify", 64),
                "material": MATERIAL,
                "peers": {"other/default": {"signature": "00" * 64}},
            }
        )
        assert verdicts["verdicts"]["other/default"]["ok"] is False
        assert served.send({"cmd": "frob"})["type"] == "error"
        assert served.send("not json")["type"] == "error"
        assert served.close()["type"] == "done"


def test_every_line_of_a_native_check_fits_the_schema(native_runner):
    done = run(native_runner, "check", "--provider", "sodium")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert {line["type"] for line in lines} == {"check", "done"}


@pytest.mark.parametrize("name", ["quick", "default", "full"])
def test_every_case_the_coordinator_sends_fits_the_case_spec(native_runner, name):
    """Runners the coordinator drives decode a case without checking it field by field
    (docs/protocol.md, "Who checks a case"): what the plan sends must already be valid."""
    p = plan.expand(plan.load_suite(name), runner.list_capabilities(native_runner))
    for i, case in enumerate(p.cases):
        check(case.to_protocol(f"c{i}"), "case_spec")
