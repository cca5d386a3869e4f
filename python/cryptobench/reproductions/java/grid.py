"""Measuring the paper 001's grid: one core run (stored like any other) over the Java providers
and the native comparison, and the key-setup cases the JVM runner measures on its own (stored
with the run as figures, so the run alone holds what the reproduction shows)."""

import json
from dataclasses import dataclass, field
from typing import Any

from cryptobench import gate, lifecycle, plan, runner, stats, store
from cryptobench.capabilities import Capabilities
from cryptobench.errors import Interrupted
from cryptobench.figures import Figure, failed
from cryptobench.progress import ProgressBar
from cryptobench.reproductions.java import model
from cryptobench.runner.process import RunnerFailure, ServeProcess
from cryptobench.scenarios.base import Target


@dataclass
class Grid:
    providers: list[str]
    sizes: list[int]
    symmetric: list[str]
    hashes: list[str]
    macs: list[str]
    signatures: list[str]
    pk_encryption: list[str]
    keygen: list[str]
    key_setup: list[str]
    samples: int
    absent: dict[str, str] = field(default_factory=dict)  # provider -> why


KEY_SETUP = "key setup"  # the figures' part and metric


def wanted() -> list[str]:
    """The providers the grid asks for: the Java ones, the native comparison, the native twins."""
    names = [*model.JAVA_PROVIDERS, model.NATIVE, *(n for n, _ in model.SAME_LIBRARY.values())]
    return list(dict.fromkeys(names))


def choose(caps: Capabilities, quick: bool) -> Grid:
    wanted_here = wanted()
    present = [p for p in wanted_here if p in caps.providers]
    why = "; ".join(f"{r}: {w}" for r, w in caps.absent.items()) or "not built here"
    absent = {p: why for p in wanted_here if p not in caps.providers}
    if quick:
        return Grid(present, model.QUICK_SIZES, model.QUICK_SYMMETRIC, model.QUICK_HASHES,
                    model.QUICK_MACS, model.QUICK_SIGNATURES, model.QUICK_PK_ENCRYPTION, [],
                    model.QUICK_KEY_SETUP, 5, absent)  # fmt: skip
    return Grid(present, model.SIZES, model.SYMMETRIC, model.HASHES, model.MACS,
                model.SIGNATURES, model.PK_ENCRYPTION, model.KEYGEN, model.KEY_SETUP, 11,
                absent)  # fmt: skip


def suite_text(g: Grid, quick: bool) -> str:
    """The grid as a suite file (docs/methodology.md, "Suites")."""

    def names(xs: list[str]) -> str:
        return json.dumps(xs)

    ops = ["encrypt", "hash", "mac"] if quick else ["encrypt", "decrypt", "hash", "mac"]
    text = f"""description = "paper 001: Java providers and the native comparison, 128 KiB-2 MiB"
providers = {names(g.providers)}
sizes = {json.dumps(g.sizes)}
samples = {g.samples}
batch = 3
target_sample_ms = 5
warmup_ms = 20
heap_iterations = 2
timeout_s = 180
"""
    blocks = [
        (g.symmetric + g.hashes + g.macs, ops, ""),
        (g.signatures, ["sign", "verify"], ""),
        (g.pk_encryption, ["encrypt", "decrypt"], "sizes = [32]\n"),
        (g.keygen, ["keygen"], "samples = 11\n"),
    ]
    for algorithms, operations, extra in blocks:
        if algorithms:
            text += (
                f"\n[[matrix]]\nalgorithms = {names(algorithms)}\n"
                f"operations = {names(operations)}\n{extra}"
            )
    return text


def run_grid(target: Target, g: Grid, quick: bool) -> int:
    suite = plan.parse_suite(suite_text(g, quick), "paper-001", "the paper 001 grid")
    exe = runner.find_runner()
    caps = runner.discover()
    the_plan = plan.expand(suite, caps)
    db = store.Store.open(target.db)
    note = "reproduce 001" + (" --quick" if quick else "")
    argv = list(target.argv) or ["cryptobench", "reproduce", "001"]
    run_id = lifecycle.create_core_run(db, the_plan, exe, caps, argv, note)
    runner_args, _ = lifecycle.runner_pinning(None, False)
    bar = ProgressBar()
    try:
        status = lifecycle.measure(
            db, run_id, exe, the_plan.timeout_s, runner_args, bar.update, caps
        )
    finally:
        bar.close()
    if status == "interrupted":
        raise Interrupted(
            f"run {run_id} is stored in part; `cryptobench run --resume {run_id}` finishes it"
        )
    return run_id


def key_setup(g: Grid, caps: Capabilities) -> list[Figure]:
    """The JVM runner's key-setup cases (docs/protocol.md, `key_setup`), one serve process per
    provider, as the coordinator runs one: a figure per (provider, algorithm), ns per key
    setup; one that could not be measured is failed with the runner's status and reason."""
    out: list[Figure] = []
    paths = runner.runner_paths(caps)
    catalogue = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    vectors = gate.Vectors()
    for provider in g.providers:
        if provider not in model.JAVA_PROVIDERS or provider not in paths:
            continue
        offered = caps.providers[provider].algorithms
        serve = ServeProcess(paths[provider], provider, "default", 120.0, ["--no-pin"])
        try:
            serve.start()
            for alg in g.key_setup:
                if "encrypt" not in offered.get(alg, ()):
                    continue
                case = {"id": f"{provider}-{alg}", "provider": provider, "algorithm": alg,
                        "operation": "encrypt", "size": 0, "key_setup": True,
                        "target_sample_ms": 2, "warmup_ms": 20}  # fmt: skip
                key = {"part": KEY_SETUP, "provider": provider, "algorithm": alg}
                request: dict[str, Any] = {"cmd": "open", "case": case}
                if gate.gated_by_coordinator(serve.hello):
                    # As the core run's cases: the coordinator's gate first, then the case's
                    # parameters (its key) go with `open`.
                    send = _steps_sender(serve, case)
                    gated = gate.gate_case(send, catalogue[alg], case, vectors, set(offered))
                    if gated.status != "ok":
                        result = {"status": gated.status, "reason": gated.reason}
                        out.append(setup_figure(key, result))
                        continue
                    request["params"] = gated.params.to_json()
                opened = serve.request(request, "opening a key setup")
                if opened.get("status") != "ok":
                    out.append(setup_figure(key, opened))
                    continue
                serve.request({"cmd": "sample", "id": case["id"], "count": g.samples}, "sampling")
                out.append(setup_figure(key, serve.request({"cmd": "close", "id": case["id"]},
                                                           "closing")))  # fmt: skip
        except RunnerFailure as e:
            key = {"part": KEY_SETUP, "provider": provider, "algorithm": "*"}
            out.append(failed(key, KEY_SETUP, "ns", str(e), status="failed"))
        finally:
            serve.stop()
    return out


def setup_figure(key: dict, result: dict) -> Figure:
    """A key-setup case's reply as a figure: ns per setup of each sample, or failed with the
    runner's status and reason."""
    samples = [(x["iterations"], x["ns"], x["ticks"]) for x in result.get("samples", [])]
    per_setup = stats.per_op(samples) if samples else []
    if result.get("status") == "ok" and len(per_setup):
        return Figure(key, KEY_SETUP, "ns", tuple(per_setup), better="lower")
    status = result.get("status", "?")
    return failed(key, KEY_SETUP, "ns", result.get("reason", ""), status=status)


def _steps_sender(serve: ServeProcess, case: dict[str, Any]):
    """The gate's `steps` requests for `case` through `serve`. Raises RunnerFailure."""

    def send(steps: list[dict[str, Any]]) -> dict[str, Any]:
        reply = serve.request({"cmd": "steps", "case": case, "steps": steps}, "gating a key setup")
        if reply.get("type") != "steps" or reply.get("id") != case["id"]:
            raise RunnerFailure(
                "protocol", f"runner answered the key setup's gate with {reply.get('type')!r}"
            )
        return reply

    return send
