"""`cryptobench check`: the correctness gate of every offered provider × algorithm × operation,
nothing timed (docs/protocol.md, "Who gates"): the coordinator's gate (cryptobench.gate) for the
runners it gates, the runner's own `check` for a runner that gates itself (cryptobench-native).
One `check` line per pair, as the native runner prints them; exit status 1 when any failed."""

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

from cryptobench import gate, runner
from cryptobench.errors import UserError

# Cheap costs, so a check of every KDF takes seconds (gate_pk.cpp, cheap_kdf_params).
CHEAP_COST = {
    "pbkdf2-sha1": {"iterations": 1000},
    "pbkdf2-sha256": {"iterations": 1000},
    "pbkdf2-sha512": {"iterations": 1000},
    "scrypt": {"N": 1024, "r": 8, "p": 1},
    "argon2id": {"t": 2, "m": 1024, "p": 1},
}
TIMEOUT_S = 600


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser("check", help="the correctness gate of every provider, nothing timed")
    c.add_argument("-p", "--provider", action="append", default=[], help="only this provider")
    c.add_argument("--vectors", help="the known-answer vectors (default: the repository's)")
    c.set_defaults(func=cmd_check)


def check_case(info: dict, provider: str, operation: str, n: int) -> dict[str, Any]:
    """A small case of every kind: 1000 bytes (1024 for block ciphers), 32 for a public-key
    message or a (printable) password, nothing for key generation, key agreement, KEMs, keyload
    (which decodes its own encoded key) and handshakes."""
    if operation == "keygen" or info["kind"] in ("key-agreement", "kem", "keyload", "handshake"):
        size = 0
    elif info["kind"] in ("cipher", "aead", "hash", "mac"):
        size = 1024 if info["block_bytes"] > 1 else 1000
    else:
        size = 32
    case = {"id": f"check{n}", "provider": provider, "operation": operation, "seed": 7}
    case.update(algorithm=info["name"], size=size)
    if info["name"] in CHEAP_COST:
        case["cost"] = CHEAP_COST[info["name"]]
    if info["kind"] == "kdf":
        case["input"] = "text"  # a password: SunJCE's PBKDF2 takes only printable characters
    return case


def check_provider(
    proc: runner.ServeProcess, caps, vectors: gate.Vectors, emit, only: set[str] | None = None
) -> int:
    """Gates every offered algorithm × operation of a coordinator-gated provider (those in
    `only`, when given); the failures."""
    catalogue = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    offered = caps.providers[proc.provider].algorithms
    failed = n = 0
    for alg in offered:
        if only is not None and alg not in only:
            continue
        for op in offered[alg]:
            n += 1
            case = check_case(catalogue[alg], proc.provider, op, n)

            def send(steps: list, case: dict = case) -> dict:
                request = {"cmd": "steps", "case": case, "steps": steps}
                return proc.request(request, "running the gate's known-answer steps")

            g = gate.gate_case(send, catalogue[alg], case, vectors, set(offered))
            failed += g.status == "failed"
            record = {**g.record, "agreement": "skipped"}
            emit(
                {"type": "check", "provider": proc.provider, "variant": proc.variant}
                | {"algorithm": alg, "operation": op, "status": g.status, "reason": g.reason}
                | {"gate": record}
            )
    return failed


def cmd_check(args: argparse.Namespace) -> int:
    caps = runner.discover()
    names = args.provider or list(caps.providers)
    for name in names:
        if name not in caps.providers:
            raise UserError(f"unknown provider '{name}' ({', '.join(caps.providers)})")
    vectors = gate.Vectors(args.vectors)

    def emit(message: dict) -> None:
        print(json.dumps(message), flush=True)

    failed = 0
    for name in names:
        exe = Path(caps.runner_of.get(name, caps.runner))
        proc = runner.ServeProcess(exe, name, caps.providers[name].variant, TIMEOUT_S)
        try:
            proc.start()
            if gate.gated_by_coordinator(proc.hello):
                failed += check_provider(proc, caps, vectors, emit)
                continue
        except runner.RunnerFailure as e:
            raise UserError(f"{name}: {e.message}") from None
        finally:
            proc.stop()
        # A runner that gates itself checks itself.
        command = [str(exe), "check", "--provider", name]
        command += ["--vectors", str(vectors.dir)] if args.vectors else []
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        for line in done.stdout.splitlines():
            message = json.loads(line)
            if message.get("type") == "check":
                failed += message.get("status") == "failed"
                emit(message)
    return 1 if failed else 0
