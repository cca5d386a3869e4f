"""Driving a runner through the protocol (docs/protocol.md): spawn it, send JSON lines, read one
reply line per request. Every reply read here is validated against docs/protocol.schema.json, so
no test that drives a runner this way can pass on a reply the schema refuses. Shared by
test_runner_protocol.py (what every runner owes), test_protocol_schema.py (the native runner) and
test_runner_<name>.py (what only one runner has)."""

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


class Served:
    """One `serve` process; always ended (by its pid) when the test ends."""

    def __init__(self, exe: Path, *args: str):
        self.proc = subprocess.Popen(
            [str(exe), "serve", "--no-pin", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.hello = self._read()

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
    opened = served.send({"cmd": "open", "case": case})
    assert opened["type"] == "case", opened
    assert opened["status"] == "ok", opened["reason"]
    got = served.send({"cmd": "sample", "id": case["id"], "count": samples})
    assert got["type"] == "samples" and len(got["samples"]) == samples
    result = served.send({"cmd": "close", "id": case["id"]})
    assert result["type"] == "result" and result["status"] == "ok"
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
