"""The serve command (docs/protocol.md, "Commands"): one request per line, dispatched to the case
engine or to the steps of the coordinator's gate."""

import json

from .engine import OpenCase, case_input, resolve
from .errors import SpecError, Unsupported
from .leak import leak
from .protocol import case_message, done_message, emit, hello, parse_case, result_message
from .steps import digest, run_steps

COMMANDS = "open, sample, close, steps, leak, quit"


def serve(inp, out, cpu: int | None) -> int:
    emit(out, hello(cpu))
    open_cases: dict[str, OpenCase] = {}
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
            emit(out, {"type": "error", "message": f"cmd: missing ({COMMANDS})"})
            continue
        if cmd == "quit":
            break
        try:
            emit(out, _serve_one(cmd, req, open_cases))
        except SpecError as e:
            emit(out, {"type": "error", "message": str(e)})
    emit(out, done_message())
    return 0


def _steps(req: dict) -> dict:
    """Runs the coordinator's known-answer steps on the case's provider (docs/protocol.md)."""
    spec = parse_case(req.get("case"))
    reply = {"type": "steps", "id": spec["id"], "status": "ok", "reason": ""}
    try:
        info, provider = resolve(spec)
    except Unsupported as e:
        return {**reply, "status": "unsupported", "reason": str(e)}
    data = case_input(spec, info)
    reply["input"] = digest(data)
    reply["results"] = run_steps(provider.prepare, info["name"], req.get("steps"), data)
    return reply


def _serve_one(cmd: str, req: dict, open_cases: dict) -> dict:
    if cmd == "steps":
        return _steps(req)
    if cmd == "leak":
        return leak(req)
    if cmd == "open":
        if "case" not in req:
            raise SpecError("case: missing")
        spec = parse_case(req["case"])
        if spec["id"] in open_cases:
            raise SpecError(f"case.id: '{spec['id']}' is already open")
        c = OpenCase(spec, req.get("params"))
        if c.status == "ok":
            open_cases[spec["id"]] = c
        return case_message(c)
    if cmd not in ("sample", "close"):
        raise SpecError(f"cmd: unknown command '{cmd}' ({COMMANDS})")
    cid = req.get("id")
    if not isinstance(cid, str):
        raise SpecError("id: missing")
    if cid not in open_cases:
        raise SpecError(f"id: no open case '{cid}'")
    c = open_cases[cid]
    if cmd == "close":
        c.check_timed_instance()
        del open_cases[cid]
        return result_message(c)
    count = req.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 100000:
        raise SpecError("request.count: must be between 1 and 100000")
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
        return result_message(c)
    return {"type": "samples", "id": cid, "samples": batch}
