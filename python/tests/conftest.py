"""Shared fixtures. Tests never touch the user's results database: every test gets its own."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from runner_harness import missing_part

from cryptobench import analysis, runner
from cryptobench.capabilities import Capabilities
from cryptobench.errors import UserError
from cryptobench.plan import CaseSpec
from cryptobench.runner import Outcome
from cryptobench.store import Store


@pytest.fixture(autouse=True)
def private_data_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("CRYPTOBENCH_DB", str(tmp_path / "default-results.db"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CRYPTOBENCH_TEST_PROVIDERS", raising=False)


@pytest.fixture(scope="session", autouse=True)
def cached_runner_lists(tmp_path_factory):
    """Each runner's `list` runs once per session and environment, in this process and in every
    `cryptobench` the tests start (listcache/sitecustomize.py says why and what is keyed)."""
    hook = Path(__file__).parent / "listcache"
    saved = {k: os.environ.get(k) for k in ("CRYPTOBENCH_TEST_LIST_CACHE", "PYTHONPATH")}
    os.environ["CRYPTOBENCH_TEST_LIST_CACHE"] = str(tmp_path_factory.mktemp("runner-lists"))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), saved["PYTHONPATH"]]))
    real = runner.discovery.list_capabilities
    runpy.run_path(str(hook / "sitecustomize.py"))
    yield
    runner.discovery.list_capabilities = real
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def native_runner() -> Path:
    """The runner the CLI would use; tests that need it are skipped only when it is absent (and
    fail then on CI)."""
    try:
        return runner.find_runner()
    except UserError as e:
        missing_part(f"native runner not built ({e})")


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 240):
    """`cryptobench ARGS` as a separate process, the way a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "cryptobench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


# ---- synthetic data for tests of planning, storing and presenting --------------------------------


def capabilities_message() -> dict:
    """A capabilities message shaped like the runner's, with two providers."""
    alg = {
        "aes-256-gcm": ("aead", ["encrypt", "decrypt"], 1, 0),
        "aes-256-cbc": ("cipher", ["encrypt", "decrypt"], 16, 1),
        "sha256": ("hash", ["hash"], 1, 0),
        "hmac-sha256": ("mac", ["mac"], 1, 0),
    }
    return {
        "type": "capabilities",
        "schema": 1,
        "runner": "cryptobench-native",
        "runner_version": "0.1.0",
        "machine": {"cpu_model": "Test CPU", "cores": 2, "tsc_hz": 2.0e9, "hostname": "h"},
        "algorithms": [
            {"name": n, "kind": k, "operations": ops, "block_bytes": b, "min_size": m}
            for n, (k, ops, b, m) in alg.items()
        ],
        "providers": [
            {
                "name": "alpha",
                "version": "alpha 1.0",
                "variant": "default",
                "variants": [{"name": "default"}, {"name": "soft"}],
                "algorithms": [
                    {"name": "aes-256-gcm", "operations": ["encrypt", "decrypt"]},
                    {"name": "aes-256-cbc", "operations": ["encrypt", "decrypt"]},
                    {"name": "sha256", "operations": ["hash"]},
                ],
                "code_path": {"aesni": "yes"},
            },
            {
                "name": "beta",
                "version": "beta 2.0",
                "variant": "default",
                "variants": [{"name": "default"}],
                "algorithms": [
                    {"name": "sha256", "operations": ["hash"]},
                    {"name": "hmac-sha256", "operations": ["mac"]},
                ],
                "code_path": {},
            },
        ],
    }


@pytest.fixture
def caps() -> Capabilities:
    return Capabilities.from_message(capabilities_message())


def pk_capabilities_message() -> dict:
    """The same two providers, with public-key algorithms and KDFs as the runner lists them."""
    msg = capabilities_message()
    pk = [
        ("rsa-2048", "keypair", ["keygen"], "rsa-2048", 2048, "", "rsa-keygen"),
        ("rsa-2048-pss-sha256", "signature", ["sign", "verify"], "rsa-2048", 2048, "sha256",
         "rsa-pss"),
        ("rsa-2048-oaep-sha256", "pk-encryption", ["encrypt", "decrypt"], "rsa-2048", 2048,
         "sha256", "rsa-oaep"),
        ("ed25519", "signature", ["keygen", "sign", "verify"], "ed25519", 255, "", "ed25519"),
        ("x25519", "key-agreement", ["keygen", "derive"], "x25519", 255, "", "x25519"),
        ("pbkdf2-sha256", "kdf", ["derive"], "", 0, "sha256", "pbkdf2"),
        ("scrypt", "kdf", ["derive"], "", 0, "", "scrypt"),
        ("argon2id", "kdf", ["derive"], "", 0, "", "argon2"),
        ("hkdf-sha256", "kdf", ["derive"], "", 0, "sha256", "hkdf"),
    ]  # fmt: skip
    msg["algorithms"] += [
        {"name": n, "kind": k, "operations": ops, "key_type": kt, "bits": bits, "digest": dg,
         "family": fam, "block_bytes": 1, "min_size": 0}
        for n, k, ops, kt, bits, dg, fam in pk
    ]  # fmt: skip
    alpha, beta = msg["providers"]
    alpha["algorithms"] += [{"name": n, "operations": ops} for n, _, ops, *_ in pk]
    beta["algorithms"] += [
        {"name": "ed25519", "operations": ["sign", "verify"]},
        {"name": "pbkdf2-sha256", "operations": ["derive"]},
    ]
    return msg


@pytest.fixture
def pk_caps() -> Capabilities:
    return Capabilities.from_message(pk_capabilities_message())


def synthetic_samples(median_ns: float, n: int, rng: np.random.Generator, spread=0.02):
    """n samples of 1000 operations whose per-operation time scatters around median_ns."""
    out = []
    for _ in range(n):
        per_op = median_ns * (1 + rng.normal(0, spread))
        out.append((1000, round(per_op * 1000), round(per_op * 1000 * 2)))  # TSC at 2 GHz
    return out


# A heap record as the native runner replies it.
HEAP = {
    "allocs_per_op": 1.0,
    "frees_per_op": 1.0,
    "bytes_per_op": 64.0,
    "peak_live_bytes": 64,
    "prepare_allocs": 3,
    "prepare_bytes": 512,
    "rss_before_kb": 20000,
    "rss_peak_kb": 20480,
}


def store_run(
    path: Path,
    timings: dict[tuple[str, str, str, str, int], float],
    n: int = 11,
    seed: int = 7,
    failed: dict[tuple[str, str, str, str, int], str] | None = None,
    spread: float = 0.02,
    costs: dict[tuple[str, str, str, str, int], dict[str, int]] | None = None,
    heaps: dict[tuple[str, str, str, str, int], dict] | None = None,
) -> tuple[Store, int]:
    """A stored run whose cases (provider, variant, operation, algorithm, size) took the given
    median ns per operation; `failed` cases carry a reason instead; `costs` gives KDF cases
    their cost parameters; `heaps` a case's heap record as its runner replied it (stored as
    the coordinator stores a reply: the heap columns and the measurement record)."""
    rng = np.random.default_rng(seed)
    failed = failed or {}
    costs = costs or {}
    keys = list(timings) + list(failed)
    cases = [
        CaseSpec(p, v, op, alg, size, samples=n, cost=costs.get((p, v, op, alg, size), {}))
        for p, v, op, alg, size in keys
    ]
    store = Store.open(path)
    libraries = sorted({(c.provider, c.variant) for c in cases})
    run_id = store.create_run(
        suite="synthetic",
        settings={"timeout_s": 60},
        argv=["cryptobench", "run"],
        versions={
            "cryptobench": "test",
            "runner": "cryptobench-native",
            "runner_version": "0.1.0",
            "runner_path": "/nowhere",
        },
        machine={
            "cpu_model": "Test CPU",
            "cores": 2,
            "tsc_hz": 2.0e9,
            "hostname": "h",
            "cpu_flags": ["aes", "avx2"],
        },
        libraries=[{"provider": p, "variant": v, "version": f"{p} 1.0"} for p, v in libraries],
        cases=cases,
    )
    for case_id, case in store.pending_cases(run_id):
        key = (case.provider, case.variant, case.operation, case.algorithm, case.size)
        if key in failed:
            outcome = Outcome(case_id, case, "failed", failed[key], failure="gate")
        else:
            outcome = Outcome(
                case_id,
                case,
                "ok",
                gate={"kat": "passed 2 vectors", "roundtrip": "passed", "agreement": ""},
                iterations=1000,
                samples=synthetic_samples(timings[key], n, rng, spread),
                heap=(heaps or {}).get(key, HEAP),
                max_rss_kb=9000,
                measurement={"heap": (heaps or {}).get(key, HEAP)},
            )
        store.complete_case(outcome)
    store.set_status(run_id, "complete")
    return store, run_id


def sweep(
    provider: str,
    variant: str,
    operation: str,
    algorithm: str,
    overhead: float,
    per_byte: float,
    sizes=(16, 256, 1024, 4096, 65536),
) -> dict:
    """Timings of a size sweep that follows t(n) = overhead + per_byte · n exactly."""
    return {(provider, variant, operation, algorithm, n): overhead + per_byte * n for n in sizes}


# What each runner replies about memory (docs/protocol.md, result `heap`): native counts every
# byte; a JVM without an allocation counter and a kernel that refuses the resident-set reset
# count nothing; a Python runner counts its own heap, and the resident peak sees the 64 MiB an
# extension's Argon2id takes; an old native result said -1 for a refused reset.
_SHA = ("default", "hash", "sha256", 1024)
_KDF = ("pyca", "default", "derive", "argon2id", 16)
MEMORY_HEAPS = {
    ("native", *_SHA): HEAP,
    ("quiet", *_SHA): HEAP | {"bytes_per_op": 0.0, "allocs_per_op": 0.0},
    ("jvm", *_SHA): {
        "bytes_per_op": None,
        "prepare_bytes": None,
        "counter": "ThreadMXBean.getCurrentThreadAllocatedBytes",
        "rss_before_kb": 41000,
        "rss_peak_kb": None,
    },
    ("old", *_SHA): HEAP | {"rss_peak_kb": -1},
    _KDF: {
        "bytes_per_op": 1200.0,
        "peak_live_bytes": 900,
        "prepare_bytes": 300,
        "rss_before_kb": 40000,
        "rss_peak_kb": 40000 + 65 * 1024,
    },
}


@pytest.fixture
def memory_results(tmp_path):
    """A stored run of the cases of MEMORY_HEAPS."""
    timings = dict.fromkeys(MEMORY_HEAPS, 1000.0) | {_KDF: 90_000_000.0}
    costs = {_KDF: {"t": 1, "m": 65536, "p": 1}}
    db, run_id = store_run(tmp_path / "r.db", timings, costs=costs, heaps=MEMORY_HEAPS)
    return analysis.load(db, run_id)


def error_of(capsys, *argv: str) -> str:
    """Runs `cryptobench ARGV` in this process and returns its one error line, after checking
    that it is exactly one `cryptobench: error:` line, no traceback, and a non-zero exit."""
    from cryptobench.cli import main

    try:
        status = main(list(argv))
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err
    assert status not in (0, None), f"exit status {status} for {argv}"
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cryptobench: error: ")
    return lines[0]


@pytest.fixture
def db(tmp_path):
    """A store holding one tiny stored run."""
    path = tmp_path / "r.db"
    store_run(path, {("alpha", "default", "hash", "sha256", 64): 100.0})
    return str(path)
