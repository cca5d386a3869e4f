"""The serve command (docs/protocol.md, "Commands"): one request per line, dispatched to the case
engine or to the agreement; in its own module so that protocol.py (case parsing, messages) and
agreement.py (which parses cases) do not import each other."""

import json

from .agreement import agreement_request
from .engine import OpenCase
from .errors import SpecError
from .protocol import Fields, Totals, case_message, emit, hello, parse_case, result_message


def serve(inp, out, cpu: int | None) -> int:
    emit(out, hello(cpu))
    open_cases: dict[str, OpenCase] = {}
    totals = Totals()
    for line in inp:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            emit(out, {"type": "error", "message": f"request is not valid JSON: {e}"})
            continue
        cmd = req.get("cmd") if isinstance(req, dict) else None
        if not isinstance(cmd, str):
            emit(
                out,
                {
                    "type": "error",
                    "message": "cmd: missing (open, sample, close, quit, agreement, cross_check)",
                },
            )
            continue
        if cmd == "quit":
            break
        try:
            if cmd in ("agreement", "cross_check"):
                emit(out, agreement_request(cmd, req))
            else:
                emit(out, _serve_one(cmd, req, open_cases, totals))
        except SpecError as e:
            emit(out, {"type": "error", "message": str(e)})
    emit(out, totals.message())
    return 0


def _serve_one(cmd: str, req: dict, open_cases: dict, totals: Totals) -> dict:
    if cmd == "open":
        if "case" not in req:
            raise SpecError("case: missing")
        spec = parse_case(req["case"])
        if spec["id"] in open_cases:
            raise SpecError(f"case.id: '{spec['id']}' is already open")
        c = OpenCase(spec)
        if c.status == "ok":
            open_cases[spec["id"]] = c
        else:
            totals.count(c.status)
        return case_message(c)
    if cmd not in ("sample", "close"):
        raise SpecError(
            f"cmd: unknown command '{cmd}' (open, sample, close, quit, agreement, cross_check)"
        )
    cid = req.get("id")
    if not isinstance(cid, str):
        raise SpecError("id: missing")
    if cid not in open_cases:
        raise SpecError(f"id: no open case '{cid}'")
    c = open_cases[cid]
    if cmd == "close":
        c.check_timed_instance()
        del open_cases[cid]
        totals.count(c.status)
        return result_message(c)
    count = Fields(req, "request").uint("count", 1, 1, 100000)
    batch = []
    try:
        for _ in range(count):
            batch.append(c.sample())
            if c.status != "ok":  # the check of the timed instance failed
                break
    except Exception as e:
        c.fail(f"library error while sampling: {e}")
    if c.status != "ok":
        del open_cases[cid]
        totals.count("failed")
        return result_message(c)
    return {"type": "samples", "id": cid, "samples": batch}
