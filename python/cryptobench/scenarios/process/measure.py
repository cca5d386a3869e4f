"""Measuring: the program on an empty input (start-up), every cell's encrypting and decrypting
processes with their round trip checked, hyperfine on the same commands, and the core's
in-process figure for the crypto alone. Each function yields or stores Figures."""

from pathlib import Path

from cryptobench.figures import Figure, failed
from cryptobench.scenarios.process import driver
from cryptobench.scenarios.process.model import CHUNK, WARMUP

HYPERFINE_RUNS = 10


def _cost_figures(key: dict, costs: list, extra: dict | None = None) -> list[Figure]:
    return [
        Figure(key, "wall", "s", [c.wall_s for c in costs], "lower", extra=extra or {}),
        Figure(key, "cpu", "s", [c.user_s + c.sys_s for c in costs], "lower"),
        Figure(key, "peak_rss", "KiB", [c.max_rss_kib for c in costs], "lower"),
    ]


def startup(
    db, run_id: int, program: str, cells: list, work: Path, runs: int, roundtrip: bool = False
) -> None:
    """Each program on an empty input: process start-up and library loading, nothing else (and
    with `roundtrip`, the one-execution encrypt-then-decrypt program's start-up too)."""
    empty = work / "empty"
    empty.write_bytes(b"")
    back = work / "empty.back"
    for direction in ("encrypt", "roundtrip") if roundtrip else ("encrypt",):
        for provider, algorithm in cells:
            argv = driver.encfile(
                program,
                direction,
                provider,
                algorithm,
                empty,
                work / "empty.enc",
                back if direction == "roundtrip" else None,
            )
            costs = [driver.measure(argv) for _ in range(runs)]
            key = {
                "provider": provider,
                "algorithm": algorithm,
                "kind": "empty",
                "size": 0,
                "direction": direction,
            }
            bad = [c for c in costs if c.status != 0]
            if bad:
                reason = f"exit {bad[0].status}: {bad[0].stderr[-200:]}"
                db.add_figures(run_id, [failed(key, "wall", "s", reason)])
            else:
                db.add_figures(run_id, _cost_figures(key, costs))


def cell_runs(
    program: str, cells: list, inputs: list[tuple[str, Path]], size: int, work: Path, spec: dict
):
    """For the inputs of one size (one per kind): every provider × algorithm, encrypt then
    decrypt, and with spec["roundtrip"] also the paper's one execution doing both, warm-up runs
    first. Each run goes over every input and every cell in turn, so the
    machine's drift hits kinds and cells alike — a kind measured minutes after another would
    show the machine's drift as a difference between kinds. Every decryption is checked
    against the input's MD5 and SHA-256; a mismatch fails the cell."""
    directions = (
        ("encrypt", "decrypt", "roundtrip") if spec.get("roundtrip") else ("encrypt", "decrypt")
    )
    want = {kind: driver.digests(path) for kind, path in inputs}
    cost: dict[tuple, list] = {}
    failures: dict[tuple, str] = {}
    for run in range(spec["warmup"] + spec["runs"]):
        for kind, path in inputs:
            for cell in cells:
                if (kind, *cell) in failures:
                    continue
                provider, algorithm = cell
                ct, out = work / "ct.bin", work / "out.bin"
                e = driver.measure(
                    driver.encfile(program, "encrypt", provider, algorithm, path, ct)
                )
                d = driver.measure(driver.encfile(program, "decrypt", provider, algorithm, ct, out))
                got = {"encrypt": e, "decrypt": d}
                checked = [out]
                if "roundtrip" in directions:  # one execution: encrypt, then decrypt the result
                    back = work / "back.bin"
                    got["roundtrip"] = driver.measure(
                        driver.encfile(program, "roundtrip", provider, algorithm, path, ct, back)
                    )
                    checked.append(back)
                bad = next((c for c in got.values() if c.status != 0), None)
                if bad is not None:
                    failures[(kind, *cell)] = f"exit {bad.status}: {bad.stderr[-200:]}"
                    continue
                if any(driver.digests(f) != want[kind] for f in checked):
                    failures[(kind, *cell)] = "the round trip changed the data (MD5/SHA-256 differ)"
                    continue
                if run >= spec["warmup"]:
                    for direction, c in got.items():
                        cost.setdefault((kind, *cell, direction), []).append(c)
    for kind, _ in inputs:
        for provider, algorithm in cells:
            base = {"provider": provider, "algorithm": algorithm, "kind": kind, "size": size}
            if (kind, provider, algorithm) in failures:
                reason = failures[(kind, provider, algorithm)]
                yield [failed({**base, "direction": "encrypt"}, "wall", "s", reason)]
                continue
            figs = []
            for direction in directions:
                runs = cost[(kind, provider, algorithm, direction)]
                outliers = _outliers([c.wall_s for c in runs])
                figs += _cost_figures(
                    {**base, "direction": direction}, runs, {"outliers": outliers}
                )
            yield figs


def _outliers(values: list[float]) -> int:
    """hyperfine's rule: modified Z-score (median absolute deviation) above 14.826."""
    import statistics

    if len(values) < 3:
        return 0
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    if mad == 0:
        return 0
    return sum(1 for v in values if 0.6745 * abs(v - median) / mad > 14.826 * 0.6745)


def hyperfine_crosscheck(db, run_id: int, program: str, cells: list, files: dict, work: Path):
    """hyperfine times the same encrypt commands (its JSON export), beside our wall times."""
    import json
    import shutil
    import subprocess

    if shutil.which("hyperfine") is None or "random" not in files:
        return
    size = max(files["random"])
    src = files["random"][size]
    for provider, algorithm in cells:
        argv = driver.encfile(program, "encrypt", provider, algorithm, src, work / "hf.bin")
        out = work / "hyperfine.json"
        key = {
            "provider": provider,
            "algorithm": algorithm,
            "kind": "random",
            "size": size,
            "direction": "encrypt",
        }
        try:
            subprocess.run(
                [
                    "hyperfine",
                    "-N",
                    "--warmup",
                    str(WARMUP),
                    "--runs",
                    str(HYPERFINE_RUNS),
                    "--export-json",
                    str(out),
                    " ".join(argv),
                ],
                capture_output=True,
                timeout=600,
                check=True,
            )
            times = json.loads(out.read_text())["results"][0]["times"]
            db.add_figures(run_id, [Figure(key, "wall (hyperfine)", "s", times, "lower")])
        except (subprocess.SubprocessError, OSError, ValueError, KeyError) as e:
            db.add_figures(run_id, [failed(key, "wall (hyperfine)", "s", str(e)[-200:])])


def in_process(db, run_id: int, exe, cells: list) -> None:
    """The crypto alone: the core's in-process time per operation for the same algorithm and
    provider on one 64 KiB record, the program's unit of work."""
    from cryptobench import plan, runner

    specs = [
        (i, plan.CaseSpec(p, "default", "encrypt", a, CHUNK, samples=9))
        for i, (p, a) in enumerate(cells)
    ]
    outcomes: list = []
    runner.Measurement(
        exe,
        specs,
        60.0,
        on_outcome=outcomes.append,
        on_progress=lambda *a, **k: None,
        runner_args=["--no-pin"],
    ).run()
    for o in outcomes:
        key = {
            "provider": o.case.provider,
            "algorithm": o.case.algorithm,
            "kind": "in-process",
            "size": CHUNK,
            "direction": "encrypt",
        }
        if o.status != "ok" or not o.samples:
            db.add_figures(run_id, [failed(key, "ns_per_byte", "ns/B", o.reason or o.status)])
            continue
        per_byte = [ns / it / CHUNK for it, ns, _ in o.samples]
        db.add_figures(run_id, [Figure(key, "ns_per_byte", "ns/B", per_byte, "lower")])
