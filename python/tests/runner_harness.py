"""Driving a runner through the protocol (docs/protocol.md): spawn it, send JSON lines, read one
reply line per request. Every reply read here is validated against docs/protocol.schema.json, so
no test that drives a runner this way can pass on a reply the schema refuses. Shared by
test_runner_protocol.py (what every runner owes), test_protocol_schema.py (the native runner) and
test_runner_<name>.py (what only one runner has)."""

import functools
import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest
from protocol_schema import check, check_stdout

from cryptobench import gate

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "vectors"
REPLY_TIMEOUT_S = 120
# The coordinator's material for `agreement` and `cross_check` requests (docs/protocol.md).
MATERIAL = {
    "key": bytes(range(32)).hex(),
    "iv": bytes(range(100, 112)).hex(),
    "aad": "",
    "input": (b"cryptobench agreement input " * 146)[:4096].hex(),
    "salt": bytes(16).hex(),
}


def missing_part(reason: str) -> NoReturn:
    """A runner (or a build of one) the test needs is not there: locally the test is skipped with
    the reason (a missing toolchain is allowed); on CI (CI=true, as .ci/run sets it) every runner
    must be built, so the test fails instead of passing by skipping."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI=true: every runner must be built", pytrace=False)
    pytest.skip(reason)


def runner_exe(name: str) -> Path:
    """The runner `make setup` installed next to this Python (see missing_part when it is not)."""
    path = Path(sys.prefix) / "bin" / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        missing_part(f"{name} is absent (make setup prints why)")
    return path


def run(
    exe: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """One command of a runner (`env`: its whole environment); every line it writes on stdout
    must fit the protocol's schema."""
    done = subprocess.run(
        [str(exe), *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    check_stdout(done.stdout)
    return done


def capabilities(exe: Path) -> dict:
    done = run(exe, "list")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@functools.cache
def _caps(exe: Path) -> dict:
    return capabilities(exe)


class Served:
    """One `serve` process; always ended (by its pid) when the test ends. A runner gated by the
    coordinator (docs/protocol.md, "Who gates") is gated here with cryptobench.gate, as
    `cryptobench run` does, so every test drives every runner the same way."""

    def __init__(self, exe: Path, *args: str):
        self.exe = exe
        self.proc = subprocess.Popen(
            [str(exe), "serve", "--no-pin", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.hello = self._read()
        self.caps: dict | None = None  # another `list` (a variant's) to gate against

    def _read(self) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_TIMEOUT_S)
        assert ready, "the runner did not reply in time"
        line = self.proc.stdout.readline()
        assert line, f"the runner exited (status {self.proc.poll()})"
        return check(json.loads(line))

    def send(self, request: dict | str) -> dict:
        line = request if isinstance(request, str) else json.dumps(request)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self._read()

    @property
    def gated_by_coordinator(self) -> bool:
        return gate.gated_by_coordinator(self.hello)

    def _send_steps(self, case: dict):
        def send(steps: list) -> dict:
            # The coordinator's requests fit the schema too: hex and the case's input only, every
            # reference to an earlier output resolved (docs/protocol.md, "`steps`").
            request = check({"cmd": "steps", "case": case, "steps": steps}, "request")
            reply = self.send(request)
            assert reply["type"] == "steps", reply
            return reply

        return send

    def _info(self, case: dict) -> tuple[dict, set[str]]:
        caps = self.caps or _caps(self.exe)
        info = next(a for a in caps["algorithms"] if a["name"] == case["algorithm"])
        provider = next((p for p in caps["providers"] if p["name"] == case["provider"]), {})
        return info, {a["name"] for a in provider.get("algorithms", [])}

    def gate(self, case: dict, vectors: Path | None = None) -> "gate.Gated":
        info, offered = self._info(case)
        return gate.gate_case(self._send_steps(case), info, case, gate.Vectors(vectors), offered)

    def open(self, case: dict, vectors: Path | None = None) -> dict:
        """`open`, after the coordinator's gate where the runner does not gate itself; the reply
        carries the gate record either way."""
        if not self.gated_by_coordinator:
            return self.send({"cmd": "open", "case": case})
        gated = self.gate(case, vectors)
        if gated.status != "ok":
            return {
                "type": "case",
                "id": case["id"],
                "status": gated.status,
                "reason": gated.reason,
                "gate": gated.record,
            }
        opened = self.send({"cmd": "open", "case": case, "params": gated.params.to_json()})
        opened["gate"] = {**gated.record, **opened.get("gate", {})}
        return opened

    def agreement(self, case: dict, material: dict) -> dict:
        if not self.gated_by_coordinator:
            return self.send({"cmd": "agreement", "material": material, "case": case})
        info, _ = self._info(case)
        return gate.agreement_reply(self._send_steps(case), info, case, material, gate.Vectors())

    def cross_check(self, case: dict, material: dict, peers: dict) -> dict:
        if not self.gated_by_coordinator:
            request = {"cmd": "cross_check", "material": material, "case": case, "peers": peers}
            return self.send(request)
        info, offered = self._info(case)
        send = self._send_steps(case)
        verdicts = gate.cross_check_verdicts(
            send, info, case, material, peers, gate.Vectors(), offered
        )
        return {"type": "cross_check", "id": case["id"], "verdicts": verdicts}

    def close(self) -> dict:
        done = self.send({"cmd": "quit"})
        self.proc.wait(timeout=30)
        return done

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


def tiny_case(provider: str, algorithm: str, operation: str, size: int, **extra) -> dict:
    return {
        "id": f"{provider}-{algorithm}-{operation}-{size}",
        "provider": provider,
        "algorithm": algorithm,
        "operation": operation,
        "size": size,
        "target_sample_ms": 0.5,
        "warmup_ms": 1,
        **extra,
    }


def measure_tiny(served: Served, case: dict, samples: int = 3) -> dict:
    """open, sample, close: the result of one small gated case."""
    opened = served.open(case)
    assert opened["type"] == "case", opened
    assert opened["status"] == "ok", opened["reason"]
    got = served.send({"cmd": "sample", "id": case["id"], "count": samples})
    assert got["type"] == "samples" and len(got["samples"]) == samples
    result = served.send({"cmd": "close", "id": case["id"]})
    assert result["type"] == "result" and result["status"] == "ok"
    result["gate"] = {**opened["gate"], **result["gate"]}
    return result


def corrupted_vectors(tmp_path: Path, family: str, field: str) -> Path:
    """A copy of vectors/ whose first `family` vector has one byte of `field` changed."""
    copy = tmp_path / "vectors"
    shutil.copytree(VECTORS, copy)
    path = copy / f"{family}.json"
    doc = json.loads(path.read_text())
    value = bytearray.fromhex(doc["vectors"][0][field])
    value[0] ^= 0x01
    doc["vectors"][0][field] = value.hex()
    path.write_text(json.dumps(doc))
    return copy


def native_catalogue(native_runner: Path) -> dict[str, dict]:
    return {a["name"]: a for a in capabilities(native_runner)["algorithms"]}


def key_part(key_type: str, part: str) -> bytes:
    """A part of one of the fixed test keys in vectors/keys.json."""
    return bytes.fromhex(json.loads((VECTORS / "keys.json").read_text())["keys"][key_type][part])
