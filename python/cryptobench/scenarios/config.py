"""The `config` scenario: what encrypting configuration values costs an application.

It repeats the measurement of the thesis behind confcrypt (CONFCRYPT.md, last section): a
configuration of n values, written (encrypted) and read (decrypted) with no encryption, with
whole-file OpenPGP encryption, and with per-value encryption for each provider in both the
thesis's scheme (compatibility mode: PBKDF2 per value, AES-256-CBC) and confcrypt's own (one key
unwrap per file, AEAD per value); 11 runs, median; the overhead h = y - x and the factor f = y / x
against no encryption, averaged over n (the thesis's Tables 6.1 and 6.2).

The timing itself happens in the native driver `confcrypt-bench` (native/confcrypt/bench), which
calls the confcrypt library in-process; this module plans, runs it, stores and analyses what it
reports, and renders the report section and the terminal summary.

Driver contract (one JSON object on the driver's stdin, JSON lines on its stdout):
  in:  {"schemes": [...], "providers": [...], "n": [...], "runs": R, "dir": WORKDIR,
        "gnupghome": PATH, "recipient": FPR, "signer": FPR, "format": "ini"}
  out: {"type": "info", ...}  versions (gpg, providers) and method facts, first
       {"type": "skip", "scheme", "provider", "reason"}
       {"type": "notes", "scheme", "provider", "notes": [...]}  what confcrypt says it used
       {"type": "heap", "scheme", "provider", "n", "direction", "allocs", "bytes",
        "peak_live_bytes"}  one untimed pass with the heap counter on
       {"type": "sample", "scheme", "provider", "n", "direction", "run", "ns"}
       {"type": "error", "message"}  then a non-zero exit (2: bad input)
       {"type": "done"}  last
"""

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.tables import text_table

# The thesis's configuration sizes, exactly.
THESIS_N: tuple[int, ...] = (
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 17, 20, 25, 30, 31, 32, 35, 40, 50, 51, 52, 55, 56,
    57, 60, 70, 80, 90, 100, 150, 175, 200, 250, 300, 350, 400, 500, 1000,
)  # fmt: skip
QUICK_N: tuple[int, ...] = (1, 10, 100, 1000)
THESIS_RUNS = 11

# Schemes, in the order tables and plots show them. "plain" is the baseline x.
SCHEMES: dict[str, str] = {
    "plain": "no encryption",
    "wholefile": "whole file: OpenPGP encrypt + sign via gpg",
    "compat": "per value, the thesis's scheme (PBKDF2-HMAC-SHA512 x 15,000 per value, AES-256-CBC)",
    "confcrypt": "per value, confcrypt (one key unwrap per file, AES-256-GCM per value)",
}
PER_PROVIDER = ("compat", "confcrypt")
DIRECTIONS = ("write", "read")  # the thesis's "encryption" and "decryption"
THESIS_DIRECTION_NAME = {"write": "encryption", "read": "decryption"}
# What a provider must offer to be measured by default (`scenario config` without --providers).
REQUIRED_ALGORITHMS = (("aes-256-gcm", "encrypt"), ("pbkdf2-sha512", "derive"))

# The thesis's published averages over all n: overhead h in seconds and factor f.
# Table 6.1 (per-value encryption, by library) and Table 6.2 (whole-file, GnuPG).
THESIS_TABLE: dict[tuple[str, str], tuple[float, float]] = {
    ("compat/gcrypt", "read"): (1.168, 1837.868),
    ("compat/openssl", "read"): (1.805, 2835.492),
    ("compat/botan", "read"): (4.125, 6459.077),
    ("compat/gcrypt", "write"): (1.171, 192.912),
    ("compat/openssl", "write"): (1.808, 297.236),
    ("compat/botan", "write"): (4.124, 675.795),
    ("wholefile", "read"): (0.005, 25.609),
    ("wholefile", "write"): (0.007, 2.791),
}
THESIS_SOURCE = "the thesis, Table 6.1 (per value, by library) and Table 6.2 (whole file, GnuPG)"
# Reading 1,000 values in the thesis, in seconds, as CONFCRYPT.md quotes it ("about").
THESIS_READ_1000: dict[str, float] = {
    "plain": 0.003,
    "compat/gcrypt": 10.7,
    "compat/openssl": 16.6,
    "compat/botan": 38.0,
}

# How `runs` marks a scenario run (runs.suite); its figures live in scenario_samples and
# scenario_heap, its driver facts in runs.settings["scenario"].
STORE_SUITE = "scenario:config"


@dataclass(frozen=True)
class Series:
    """One line of the scenario: a scheme (with its provider, when it has one) and a direction."""

    scheme: str
    provider: str  # "" for plain and wholefile
    direction: str

    @property
    def label(self) -> str:
        return f"{self.scheme}/{self.provider}" if self.provider else self.scheme


@dataclass
class Overhead:
    series: Series
    n_values: list[int]
    mean_h_s: float  # mean over n of (median y - median x), seconds
    mean_f: float  # mean over n of (median y / median x)
    thesis: tuple[float, float] | None  # the thesis's (h, f) for the same line, if it has one


@dataclass
class ScenarioResults:
    medians: dict[Series, dict[int, float]]  # series -> n -> median seconds
    runs: dict[Series, dict[int, int]]  # series -> n -> number of runs
    heap: dict[Series, dict[int, dict[str, float]]]  # series -> n -> heap figures
    overheads: list[Overhead]
    skipped: list[dict[str, str]] = field(default_factory=list)
    ranges: dict[Series, dict[int, tuple[float, float]]] = field(default_factory=dict)  # min, max

    def n_values(self) -> list[int]:
        return sorted({n for by_n in self.medians.values() for n in by_n})

    def labels(self) -> list[str]:
        """scheme[/provider] in table order."""
        out: list[str] = []
        for s in sorted(self.medians, key=_series_order):
            if s.label not in out:
                out.append(s.label)
        return out


@dataclass
class ScenarioRun:
    """Everything one driver run reported, as it came."""

    spec: dict[str, Any]  # what the driver was asked (without the throwaway paths)
    info: dict[str, Any] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)
    heap: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # series label -> notes
    done: bool = False

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "sample":
            self.samples.append(message)
        elif kind == "heap":
            self.heap.append(message)
        elif kind == "skip":
            self.skipped.append(
                {k: str(message.get(k, "")) for k in ("scheme", "provider", "reason")}
            )
        elif kind == "notes":
            label = Series(message["scheme"], message.get("provider") or "", "").label
            self.notes[label] = list(message.get("notes", []))
        elif kind == "info":
            self.info = {k: v for k, v in message.items() if k != "type"}
        elif kind == "done":
            self.done = True

    def expected_samples(self) -> int:
        """Samples the driver will print in all, once its skips are known."""
        lines = 0
        for scheme in self.spec["schemes"]:
            if scheme in PER_PROVIDER:
                skipped = sum(1 for s in self.skipped if s["scheme"] == scheme)
                lines += len(self.spec["providers"]) - skipped
            else:
                lines += 1
        return lines * len(self.spec["n"]) * self.spec["runs"] * len(DIRECTIONS)

    def analyse(self) -> ScenarioResults:
        return analyse(self.samples, self.heap, self.skipped)


# ---- running the driver --------------------------------------------------------------------------


def find_driver(explicit: str | None = None) -> str:
    """The confcrypt-bench executable: --driver, $CRYPTOBENCH_CONFCRYPT_BENCH, next to this
    Python's interpreter (make setup installs it into .venv/bin), the build tree, or PATH."""
    env = os.environ.get("CRYPTOBENCH_CONFCRYPT_BENCH")
    for name, given in (("--driver", explicit), ("CRYPTOBENCH_CONFCRYPT_BENCH", env)):
        if given:
            if not (Path(given).is_file() and os.access(given, os.X_OK)):
                raise UserError(f"{name}={given}: not an executable file")
            return given
    repo = Path(__file__).resolve().parents[3]
    candidates = [
        str(Path(sys.executable).parent / "confcrypt-bench"),
        str(repo / "native" / "build" / "confcrypt-bench"),
        shutil.which("confcrypt-bench"),
    ]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    raise UserError("confcrypt-bench not found: run `make setup` (it builds and installs it)")


class GnupgHome:
    """A throwaway GnuPG home with one signing+encryption key, like the thesis's user key.

    The gpg-agent it starts is stopped on exit (gpgconf --kill all)."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="cryptobench-gpg-"))
        self.fingerprint = ""

    def __enter__(self) -> "GnupgHome":
        os.chmod(self.path, 0o700)
        gpg = shutil.which("gpg")
        if not gpg:
            shutil.rmtree(self.path, ignore_errors=True)
            raise UserError("gpg not found: install gnupg (make setup does)")
        env = {**os.environ, "GNUPGHOME": str(self.path)}
        uid = "cryptobench scenario <scenario@cryptobench.invalid>"
        try:
            cmd = [gpg, "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign"]
            subprocess.run([*cmd, "0"], env=env, check=True, capture_output=True)
            listing = subprocess.run(
                [gpg, "--batch", "--with-colons", "--list-secret-keys", uid],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            self.fingerprint = next(
                line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:")
            )
            subprocess.run(
                [
                    gpg,
                    "--batch",
                    "--passphrase",
                    "",
                    "--quick-add-key",
                    self.fingerprint,
                    "cv25519",
                ],
                env=env,
                check=True,
                capture_output=True,
            )
        except (subprocess.CalledProcessError, StopIteration) as e:
            self.__exit__()
            detail = getattr(e, "stderr", b"") or b""
            raise UserError(
                f"cannot create a GnuPG key for the scenario: {detail.decode(errors='replace')}"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        env = {**os.environ, "GNUPGHOME": str(self.path)}
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True, check=False)
        shutil.rmtree(self.path, ignore_errors=True)


def driver_spec(
    providers: list[str], n_values: Iterable[int], runs: int, workdir: Path, gnupg: GnupgHome
) -> dict[str, Any]:
    return {
        "schemes": list(SCHEMES),
        "providers": providers,
        "n": list(n_values),
        "runs": runs,
        "dir": str(workdir),
        "gnupghome": str(gnupg.path),
        "recipient": gnupg.fingerprint,
        "signer": gnupg.fingerprint,
        "format": "ini",
    }


def run_driver(
    driver: str,
    spec: dict[str, Any],
    on_message: Callable[[dict[str, Any]], None],
) -> None:
    """Runs the driver on `spec` and hands every JSON line it prints to on_message."""
    env = {**os.environ}
    if spec.get("gnupghome"):
        env["GNUPGHOME"] = spec["gnupghome"]
    try:
        proc = subprocess.Popen(
            [driver],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    except OSError as e:
        raise UserError(f"cannot start {driver}: {e.strerror}") from None
    with proc:
        try:
            _read_driver(proc, spec, on_message)
        except BaseException:
            # Interrupted, or a bad line: the driver must not go on measuring unattended.
            if proc.poll() is None:
                proc.kill()
            raise


def _read_driver(
    proc: subprocess.Popen, spec: dict[str, Any], on_message: Callable[[dict[str, Any]], None]
) -> None:
    assert proc.stdin and proc.stdout and proc.stderr
    proc.stdin.write(json.dumps(spec))
    proc.stdin.close()
    for line in proc.stdout:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise UserError(
                f"confcrypt-bench printed a line that is not JSON: {line[:200]}"
            ) from None
        if message.get("type") == "error":
            proc.wait()
            raise UserError(f"confcrypt-bench: {message.get('message', '?')}")
        on_message(message)
    stderr = proc.stderr.read()
    if proc.wait() != 0:
        raise UserError(
            f"confcrypt-bench exited with status {proc.returncode}: {stderr.strip()[-500:]}"
        )


def default_providers(provider_algorithms: dict[str, dict[str, Sequence[str]]]) -> list[str]:
    """Providers offering every REQUIRED_ALGORITHMS, from `cryptobench-native list`:
    provider -> algorithm -> operations (Capabilities.providers[p].algorithms)."""
    return [
        name
        for name, algorithms in provider_algorithms.items()
        if all(op in algorithms.get(alg, ()) for alg, op in REQUIRED_ALGORITHMS)
    ]


def run_scenario(
    providers: list[str],
    n_values: Sequence[int],
    runs: int = THESIS_RUNS,
    driver: str | None = None,
    workdir: Path | None = None,
    on_message: Callable[[ScenarioRun, dict[str, Any]], None] | None = None,
) -> ScenarioRun:
    """Creates the GnuPG key and a work directory, runs the driver, returns what it reported.
    `workdir` is where the directory of configuration files is made (default: $TMPDIR): its file
    system is part of the measurement, since every write is fsync'ed."""
    if runs < 1:
        raise UserError("--runs must be at least 1")
    if not n_values or any(n < 1 for n in n_values):
        raise UserError("--n: configuration sizes must be positive")
    exe = find_driver(driver)
    with (
        GnupgHome() as gnupg,
        tempfile.TemporaryDirectory(prefix="cryptobench-config-", dir=workdir) as d,
    ):
        spec = driver_spec(providers, n_values, runs, Path(d), gnupg)
        public = {k: v for k, v in spec.items() if k not in ("dir", "gnupghome")}
        public["driver"] = exe
        public["workdir_fs"] = filesystem_of(Path(d))
        result = ScenarioRun(spec=public)

        def handle(message: dict[str, Any]) -> None:
            result.handle(message)
            if on_message:
                on_message(result, message)

        run_driver(exe, spec, handle)
    if not result.done:
        raise UserError("confcrypt-bench stopped before it was done")
    return result


def filesystem_of(path: Path) -> str:
    """The type of the file system holding `path` (ext4, tmpfs, ...), from /proc/self/mounts."""
    best, fs_type = "", "?"
    target = str(path.resolve())
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return fs_type
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        mount = parts[1].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, fs_type = mount, parts[2]
    return fs_type


# ---- analysis ------------------------------------------------------------------------------------


def series_of(row: dict[str, Any]) -> Series:
    return Series(row["scheme"], row.get("provider") or "", row["direction"])


def analyse(
    samples: Iterable[dict[str, Any]],
    heap_rows: Iterable[dict[str, Any]] = (),
    skipped: Iterable[dict[str, str]] = (),
) -> ScenarioResults:
    """Medians per (series, n); h and f against plain of the same direction, averaged over the n
    both have (the thesis's method)."""
    times: dict[Series, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in samples:
        times[series_of(s)][int(s["n"])].append(s["ns"] / 1e9)
    medians = {
        k: {n: statistics.median(v) for n, v in sorted(by_n.items())} for k, by_n in times.items()
    }
    counts = {k: {n: len(v) for n, v in sorted(by_n.items())} for k, by_n in times.items()}
    ranges = {
        k: {n: (min(v), max(v)) for n, v in sorted(by_n.items())} for k, by_n in times.items()
    }
    heap: dict[Series, dict[int, dict[str, float]]] = defaultdict(dict)
    for h in heap_rows:
        heap[series_of(h)][int(h["n"])] = {
            "allocs": h["allocs"],
            "bytes": h["bytes"],
            "peak_live_bytes": h["peak_live_bytes"],
        }
    overheads = []
    for series in sorted(medians, key=_series_order):
        if series.scheme == "plain":
            continue
        base = medians.get(Series("plain", "", series.direction), {})
        common = [n for n in medians[series] if n in base and base[n] > 0]
        if not common:
            continue
        h = [medians[series][n] - base[n] for n in common]
        f = [medians[series][n] / base[n] for n in common]
        overheads.append(
            Overhead(
                series,
                common,
                statistics.fmean(h),
                statistics.fmean(f),
                THESIS_TABLE.get((series.label, series.direction)),
            )
        )
    return ScenarioResults(medians, counts, dict(heap), overheads, list(skipped), ranges)


def _series_order(s: Series) -> tuple:
    scheme = list(SCHEMES).index(s.scheme) if s.scheme in SCHEMES else len(SCHEMES)
    return (DIRECTIONS.index(s.direction), scheme, s.provider)


def overhead_rows(results: ScenarioResults) -> list[list[str]]:
    """The overhead table with the thesis's figures beside ours, for terminal and report."""
    rows = []
    for o in results.overheads:
        thesis_h, thesis_f = o.thesis if o.thesis else (None, None)
        rows.append(
            [
                THESIS_DIRECTION_NAME[o.series.direction],
                o.series.label,
                f"{o.mean_h_s:.4f}",
                f"{o.mean_f:.2f}",
                "" if thesis_h is None else f"{thesis_h:.3f}",
                "" if thesis_f is None else f"{thesis_f:.3f}",
                str(len(o.n_values)),
            ]
        )
    return rows


OVERHEAD_HEADERS = [
    "direction",
    "scheme/provider",
    "h (s), ours",
    "f, ours",
    "h (s), thesis",
    "f, thesis",
    "n values",
]


def time_at(results: ScenarioResults, n: int, direction: str) -> list[tuple[str, float]]:
    """(series label, median seconds) at one n, e.g. reading 1,000 values."""
    out = []
    for series in sorted(results.medians, key=_series_order):
        if series.direction == direction and n in results.medians[series]:
            out.append((series.label, results.medians[series][n]))
    return out


def headline_n(results: ScenarioResults) -> int | None:
    """1,000 values (the thesis's headline figure) when measured, else the largest n."""
    ns = results.n_values()
    if not ns:
        return None
    return 1000 if 1000 in ns else ns[-1]


TIME_HEADERS = [
    "scheme/provider",
    "write, median",
    "write, min–max",
    "read, median",
    "read, min–max",
    "read, vs compat",
    "read, thesis (about)",
    "runs",
]


def time_rows(results: ScenarioResults, n: int) -> list[list[str]]:
    """Per scheme/provider: median and range of writing and reading n values; for confcrypt
    the speed-up over the thesis's scheme on the same provider; the thesis's n = 1000 reads."""
    rows = []
    for label in results.labels():
        scheme, _, provider = label.partition("/")
        cells = [label]
        for direction in DIRECTIONS:
            s = Series(scheme, provider, direction)
            median = results.medians.get(s, {}).get(n)
            low, high = results.ranges.get(s, {}).get(n, (None, None))
            cells.append(_seconds(median))
            cells.append("-" if low is None else f"{_seconds(low)} – {_seconds(high)}")
        read = results.medians.get(Series(scheme, provider, "read"), {}).get(n)
        compat = results.medians.get(Series("compat", provider, "read"), {}).get(n)
        cells.append(
            f"{compat / read:.0f}× faster"
            if scheme == "confcrypt" and read and compat is not None
            else ""
        )
        thesis = THESIS_READ_1000.get(label) if n == 1000 else None
        cells.append("" if thesis is None else _seconds(thesis))
        counts = [results.runs.get(Series(scheme, provider, d), {}).get(n, 0) for d in DIRECTIONS]
        cells.append(str(min(counts)))
        rows.append(cells)
    return rows


HEAP_HEADERS = [
    "scheme/provider",
    "direction",
    "allocations",
    "bytes allocated",
    "peak live bytes",
    "allocations per value",
]


def heap_rows(results: ScenarioResults, n: int) -> list[list[str]]:
    rows = []
    for series in sorted(results.heap, key=_series_order):
        figures = results.heap[series].get(n)
        if not figures:
            continue
        rows.append(
            [
                series.label,
                series.direction,
                f"{figures['allocs']:.0f}",
                _bytes(figures["bytes"]),
                _bytes(figures["peak_live_bytes"]),
                f"{figures['allocs'] / n:.1f}",
            ]
        )
    return rows


def _seconds(v: float | None) -> str:
    if v is None:
        return "-"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.0f} µs"


def _bytes(v: float) -> str:
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= factor:
            return f"{v / factor:.1f} {unit}"
    return f"{v:.0f} B"


# ---- storing -------------------------------------------------------------------------------------
# The tables come from the store's migration (see docs/confcrypt.md, "Benchmark"):
#   scenario_samples(run_id, scheme, provider, n, direction, run_index, ns)
#   scenario_heap(run_id, scheme, provider, n, direction, allocs, bytes, peak_live_bytes)


def store_settings(run: ScenarioRun) -> dict[str, Any]:
    """What goes into runs.settings: the request and the driver's facts (versions, skips, notes)."""
    return {
        "scenario": {
            "name": "config",
            "spec": run.spec,
            "info": run.info,
            "skipped": run.skipped,
            "notes": run.notes,
        }
    }


def store_figures(conn: sqlite3.Connection, run_id: int, run: ScenarioRun) -> None:
    """Samples, heap rows and the run's settings, in the caller's transaction."""
    conn.executemany(
        "INSERT INTO scenario_samples (run_id, scheme, provider, n, direction, run_index, ns)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                s["scheme"],
                s.get("provider") or "",
                int(s["n"]),
                s["direction"],
                int(s["run"]),
                int(s["ns"]),
            )
            for s in run.samples
        ],
    )
    conn.executemany(
        "INSERT INTO scenario_heap (run_id, scheme, provider, n, direction, allocs, bytes,"
        " peak_live_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                h["scheme"],
                h.get("provider") or "",
                int(h["n"]),
                h["direction"],
                int(h["allocs"]),
                int(h["bytes"]),
                int(h["peak_live_bytes"]),
            )
            for h in run.heap
        ],
    )
    conn.execute(
        "UPDATE runs SET settings = ? WHERE id = ?", (json.dumps(store_settings(run)), run_id)
    )


def load_run(conn: sqlite3.Connection, run_id: int) -> ScenarioRun | None:
    """The scenario run stored under run_id, or None when that run is not one."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "scenario_samples" not in tables:
        return None
    row = conn.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
    settings = json.loads(row[0]) if row and row[0] else {}
    meta = settings.get("scenario") if isinstance(settings, dict) else None
    samples = [
        {"scheme": r[0], "provider": r[1], "n": r[2], "direction": r[3], "run": r[4], "ns": r[5]}
        for r in conn.execute(
            "SELECT scheme, provider, n, direction, run_index, ns FROM scenario_samples"
            " WHERE run_id = ? ORDER BY run_index, n, scheme, provider, direction",
            (run_id,),
        )
    ]
    if meta is None and not samples:
        return None
    meta = meta or {}
    heap = [
        {
            "scheme": r[0],
            "provider": r[1],
            "n": r[2],
            "direction": r[3],
            "allocs": r[4],
            "bytes": r[5],
            "peak_live_bytes": r[6],
        }
        for r in conn.execute(
            "SELECT scheme, provider, n, direction, allocs, bytes, peak_live_bytes"
            " FROM scenario_heap WHERE run_id = ?",
            (run_id,),
        )
    ]
    return ScenarioRun(
        spec=meta.get("spec", {}),
        info=meta.get("info", {}),
        samples=samples,
        heap=heap,
        skipped=meta.get("skipped", []),
        notes=meta.get("notes", {}),
        done=True,
    )


def to_json(run: ScenarioRun, results: ScenarioResults | None = None) -> dict[str, Any]:
    """The whole scenario for --json-out: raw samples and heap rows, and what they come to."""
    results = results or run.analyse()
    return {
        "scenario": "config",
        "spec": run.spec,
        "info": run.info,
        "skipped": run.skipped,
        "notes": run.notes,
        "samples": run.samples,
        "heap": run.heap,
        "medians_s": [
            {
                "scheme": s.scheme,
                "provider": s.provider,
                "direction": s.direction,
                "n": n,
                "median_s": m,
                "runs": results.runs[s][n],
            }
            for s in sorted(results.medians, key=_series_order)
            for n, m in results.medians[s].items()
        ],
        "overheads": [
            {
                "scheme": o.series.scheme,
                "provider": o.series.provider,
                "direction": o.series.direction,
                "mean_h_s": o.mean_h_s,
                "mean_f": o.mean_f,
                "n_values": o.n_values,
                "thesis_h_s": o.thesis[0] if o.thesis else None,
                "thesis_f": o.thesis[1] if o.thesis else None,
            }
            for o in results.overheads
        ],
        "thesis_source": THESIS_SOURCE,
    }


# ---- presenting ----------------------------------------------------------------------------------


def summary(results: ScenarioResults, info: dict[str, Any] | None = None) -> str:
    """The terminal summary: time for the headline n, the overhead table beside the thesis's,
    skips."""
    out = []
    n = headline_n(results)
    if n is not None:
        out.append(f"Writing and reading a configuration of {n} values (median of the runs):")
        out.append(text_table(TIME_HEADERS, time_rows(results, n)))
        out.append("")
    if results.overheads:
        out.append(f"Overhead against no encryption, averaged over n; thesis: {THESIS_SOURCE}:")
        out.append(text_table(OVERHEAD_HEADERS, overhead_rows(results)))
    for s in results.skipped:
        out.append(f"skipped {s['scheme']}/{s['provider']}: {s['reason']}")
    if info and info.get("gpg"):
        out.append(f"gpg: {info['gpg']}; compat unwraps its master password with gpg every time")
    return "\n".join(out)


_SCHEME_STYLE = {  # line style and marker per scheme; colour per provider
    "plain": ("-", "o"),
    "wholefile": ("--", "D"),
    "compat": ("-", "s"),
    "confcrypt": (":", "^"),
}


def time_vs_n_svg(results: ScenarioResults, direction: str) -> str:
    """Median time against n, log–log, one line per scheme/provider, the band spanning the
    fastest and slowest run."""
    import matplotlib
    from matplotlib.figure import Figure

    from cryptobench.plots import to_svg

    colours = matplotlib.colormaps["tab10"].colors
    providers = sorted({s.provider for s in results.medians if s.provider})
    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    for series in sorted(results.medians, key=_series_order):
        if series.direction != direction:
            continue
        points = results.medians[series]
        ns = sorted(points)
        linestyle, marker = _SCHEME_STYLE.get(series.scheme, ("-", "o"))
        if series.provider:
            colour = colours[providers.index(series.provider) % len(colours)]
        else:
            colour = "black" if series.scheme == "plain" else "dimgray"
        ax.plot(
            ns,
            [points[n] for n in ns],
            linestyle=linestyle,
            marker=marker,
            markersize=3.5,
            linewidth=1.3,
            color=colour,
            label=series.label,
        )
        spans = results.ranges.get(series, {})
        if len(ns) > 1 and all(n in spans for n in ns):
            ax.fill_between(
                ns, [spans[n][0] for n in ns], [spans[n][1] for n in ns], color=colour, alpha=0.12
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("values in the configuration (n)")
    ax.set_ylabel("time (s)")
    ax.set_title(f"{direction} ({THESIS_DIRECTION_NAME[direction]}): time against n")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)


def render_section(
    results: ScenarioResults,
    info: dict[str, Any] | None = None,
    machine: dict[str, Any] | None = None,
    spec: dict[str, Any] | None = None,
    notes: dict[str, list[str]] | None = None,
) -> str:
    """The report's section on the scenario (HTML, without the <section> wrapper)."""
    info, machine, spec, notes = info or {}, machine or {}, spec or {}, notes or {}
    parts = [_method_html(results, info, machine, spec)]
    n = headline_n(results)
    if n is not None:
        parts.append(f"<h3>Writing and reading {n} values</h3>")
        parts.append(_html_table(TIME_HEADERS, time_rows(results, n), numeric={1, 2, 3, 4, 6, 7}))
        parts.append(
            '<p class="how">Median of the runs and the fastest and slowest run. The thesis column '
            "is CONFCRYPT.md's rounded quotation of the thesis's n = 1000 reads, measured on the "
            "thesis's machine.</p>"
        )
    if results.medians:
        parts.append("<h3>Time against the number of values</h3>")
        figs = [time_vs_n_svg(results, d) for d in DIRECTIONS]
        parts.append(
            '<div class="figs">' + "".join(f"<figure>{s}</figure>" for s in figs) + "</div>"
        )
    if results.overheads:
        parts.append("<h3>Overhead against no encryption (the thesis's Tables 6.1 and 6.2)</h3>")
        parts.append(_html_table(OVERHEAD_HEADERS, overhead_rows(results), numeric={2, 3, 4, 5, 6}))
        parts.append(
            '<p class="how">For every n measured for both, h = y − x and f = y / x of the medians '
            "of the scheme (y) and of no encryption (x) in the same direction; the table gives "
            f"their means over n, as the thesis did. Thesis figures: {escape(THESIS_SOURCE)}; "
            "the thesis measured all 40 of its n values, a --quick run only a few, which weights "
            "the mean differently.</p>"
        )
    if n is not None and any(n in by_n for by_n in results.heap.values()):
        parts.append(f"<h3>Heap at n = {n}</h3>")
        parts.append(_html_table(HEAP_HEADERS, heap_rows(results, n), numeric={2, 3, 4, 5}))
        parts.append(
            '<p class="how">One extra, untimed write and read per line with the allocator '
            "counters of the driver process on: allocation calls, bytes requested, and the "
            "highest live heap. gpg runs as separate processes: its memory is not included.</p>"
        )
    if results.skipped:
        items = "".join(
            f"<li>{escape(s['scheme'])}/{escape(s['provider'])}: {escape(s['reason'])}</li>"
            for s in results.skipped
        )
        parts.append(f"<h3>Not measured</h3><ul>{items}</ul>")
    notable = {
        label: [x for x in lines if "does not offer" in x or "computed from" in x]
        for label, lines in notes.items()
    }
    notable = {k: v for k, v in notable.items() if v}
    if notable:
        items = "".join(
            f"<li>{escape(label)}: {escape('; '.join(lines))}</li>"
            for label, lines in sorted(notable.items())
        )
        parts.append(
            "<h3>Algorithms from another provider</h3><p>confcrypt takes an algorithm a "
            f"provider lacks from another one; these lines did so:</p><ul>{items}</ul>"
        )
    return "".join(parts)


def _method_html(
    results: ScenarioResults, info: dict[str, Any], machine: dict[str, Any], spec: dict[str, Any]
) -> str:
    ns = results.n_values()
    n_text = ", ".join(str(n) for n in ns) or "-"
    thesis_n = "the thesis's 40 values of n" if tuple(ns) == THESIS_N else f"n = {n_text}"
    runs = spec.get("runs")
    runs_text = f"{runs} runs" if runs else "runs"
    cpu = machine.get("cpu_model") or "this machine"
    cores = f", {machine['cores']} cores" if machine.get("cores") else ""
    os_name = f", {machine['os']}" if machine.get("os") else ""
    gpg = info.get("gpg") or "gpg"
    gpg_lib = f" ({info['gpg_libgcrypt']})" if info.get("gpg_libgcrypt") else ""
    versions = "; ".join(f"{k}: {v}" for k, v in sorted((info.get("providers") or {}).items()))
    fs = spec.get("workdir_fs")
    fs_text = f"; the work directory is on {escape(fs)}" if fs and fs != "?" else ""
    iterations = info.get("compat_iterations", 15000)
    return (
        "<p>The thesis's benchmark, repeated: a configuration file (INI) of n string values of "
        "16 to 32 characters under key names like <code>section03/key0081</code>, written "
        "(encrypted) and read (decrypted) with "
        + "; ".join(f"<b>{escape(k)}</b>: {escape(v)}" for k, v in SCHEMES.items())
        + f". Measured for {escape(thesis_n)}, {escape(runs_text)} each, the median reported.</p>"
        + _how(
            "The native driver <code>confcrypt-bench</code> calls the confcrypt library "
            "in-process and times each operation with CLOCK_MONOTONIC. <b>Write</b>: from the "
            "plaintext key set in memory to the file on disk (confcrypt's save chain, then an "
            f"atomic write: temp file, fsync, rename, fsync of the directory{fs_text}). "
            "<b>Read</b>: from the file on disk to the plaintext key set (read, then the open "
            "chain). The runs are interleaved (for each run, for each n, every scheme and "
            "provider writes then reads), so drift of the machine spreads over all lines alike; "
            "before them each configuration is written once untimed (warm-up), read back and "
            "compared value by value (every scheme and provider must return exactly what was "
            "written, and the encrypted ones must not contain any value in the clear), then "
            "written and read once more with the heap counters on."
        )
        + _how(
            "What differs from the thesis. <i>Machine and software</i>: ours is "
            f"{escape(cpu)}{escape(cores)}{escape(os_name)}, with {escape(gpg)}{escape(gpg_lib)}"
            + (f" and {escape(versions)}" if versions else "")
            + "; the thesis measured on its own, older machine and library versions, so compare "
            "factors and orders of magnitude rather than seconds. <i>Master password</i>: as in "
            "the thesis, the compatibility scheme keeps its random 30-character master password "
            "GnuPG-encrypted to the user's key and decrypts it with gpg inside every timed write "
            f"and read, then runs PBKDF2-HMAC-SHA512 with {iterations:,} iterations for every "
            "value; so its h includes one gpg process per operation. <i>confcrypt's scheme</i> "
            "wraps a fresh data key with gpg on every write (one gpg process) and unwraps it on "
            "every read (one gpg process: decrypt), then uses "
            "AES-256-GCM per value and an HMAC over the file. <i>Whole file</i>: gpg encrypts "
            "and signs (ASCII armour) on write, decrypts and verifies the signer on read, through "
            "pipes; the thesis's filter used a plaintext temporary file and did not check the "
            "signer. <i>Software under test</i>: confcrypt's storage format and filter chain, "
            "not the thesis's configuration library, so the baseline x (no encryption) differs "
            "too, and with it every factor f."
        )
    )


def _how(text: str) -> str:
    return f'<p class="how">{text}</p>'


def _html_table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{escape(v)}</td>' if i in numeric else f"<td>{escape(v)}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


SECTION_KEY = "scenario-config"
SECTION_TITLE = "Configuration files: the thesis's benchmark"


def render_page(
    run: ScenarioRun,
    results: ScenarioResults | None = None,
    machine: dict[str, Any] | None = None,
    title: str = "cryptobench scenario config",
) -> str:
    """A self-contained HTML page with only the scenario section (`scenario config --report`)."""
    from cryptobench import __version__
    from cryptobench.report import CSS

    results = results or run.analyse()
    body = render_section(results, run.info, machine, run.spec, run.notes)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>"
        f'<section id="{SECTION_KEY}"><h2>{escape(SECTION_TITLE)}</h2>{body}</section>'
        f"<p>Report by cryptobench {escape(__version__)}.</p></body></html>\n"
    )


# ---- the `cryptobench scenario config` command ---------------------------------------------------
# cli.py's subcommand is these two functions: its options, and what it does.


def _n_list(text: str) -> tuple[int, ...]:
    import argparse

    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--n {text!r}: expected integers, e.g. 1,10,100"
        ) from None
    if not values or any(v < 1 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"--n {text!r}: expected distinct positive integers")
    return values


def _runs(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--runs {text!r}: expected a positive integer")
    return value


def add_arguments(p: Any) -> None:
    """The options of `cryptobench scenario config` (p: an argparse parser with --db)."""
    sizes = p.add_mutually_exclusive_group()
    sizes.add_argument(
        "--quick",
        action="store_true",
        help=f"n = {', '.join(map(str, QUICK_N))} instead of the thesis's 40 sizes",
    )
    sizes.add_argument(
        "--n", type=_n_list, metavar="LIST", help="configuration sizes, comma-separated"
    )
    p.add_argument(
        "--runs",
        type=_runs,
        default=THESIS_RUNS,
        metavar="N",
        help=f"runs per size, the median is reported (default: {THESIS_RUNS}, the thesis's)",
    )
    p.add_argument(
        "-p",
        "--providers",
        metavar="LIST",
        help="providers, comma-separated (default: every provider offering "
        + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
        + ")",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        metavar="DIR",
        help="where the configuration files are written (default: $TMPDIR); writes are "
        "fsync'ed, so its file system is part of the measurement",
    )
    p.add_argument("--driver", metavar="PATH", help="the confcrypt-bench executable to use")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the results as JSON")


def command(args: Any) -> int:
    """Runs the scenario, stores it as a run, prints the summary, writes --report/--json-out."""
    import signal

    from cryptobench import __version__, runner, store
    from cryptobench.cli import EXIT_INTERRUPTED, write_file
    from cryptobench.progress import ProgressBar

    n_values = args.n or (QUICK_N if args.quick else THESIS_N)
    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    if args.providers:
        providers = [p.strip() for p in args.providers.split(",") if p.strip()]
        for name in providers:
            caps.provider(name)  # UserError naming the ones there are
    else:
        providers = default_providers({n: p.algorithms for n, p in caps.providers.items()})
        if not providers:
            raise UserError(
                "no provider offers "
                + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
                + "; name some with --providers"
            )
    driver = find_driver(args.driver)
    db = store.Store.open(args.db)
    run_id = db.create_run(
        suite=STORE_SUITE,
        settings={"scenario": {"name": "config", "spec": {"providers": providers, "n": n_values}}},
        argv=getattr(args, "argv", ["cryptobench", "scenario", "config"]),
        versions={
            "cryptobench": __version__,
            "runner": "confcrypt-bench",
            "runner_version": __version__,
            "runner_path": driver,
        },
        machine=caps.machine,
        libraries=[
            {
                "provider": name,
                "variant": "default",
                "version": caps.providers[name].version,
                "description": "",
                "code_path": caps.providers[name].code_path,
            }
            for name in providers
        ],
        cases=[],
        note=args.note,
    )
    print(
        f"run {run_id}: scenario config, n = {', '.join(map(str, n_values))}, {args.runs} runs, "
        f"providers {', '.join(providers)}",
        file=sys.stderr,
        flush=True,
    )
    bar = ProgressBar()
    collected: list[ScenarioRun] = []

    def progress(run: ScenarioRun, message: dict[str, Any]) -> None:
        if not collected:
            collected.append(run)
        if message.get("type") == "sample":
            label = Series(message["scheme"], message.get("provider") or "", "").label
            where = f"{label} n={message['n']} run {message['run'] + 1}/{args.runs}"
            bar.update(len(run.samples), run.expected_samples(), where)

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    status, failure = "complete", None
    try:
        scenario = run_scenario(providers, n_values, args.runs, driver, args.workdir, progress)
    except KeyboardInterrupt:
        status = "interrupted"
    except UserError as e:
        status, failure = "interrupted", e
    finally:
        signal.signal(signal.SIGTERM, previous)
        bar.close()
    if status != "complete":
        # What was measured before the stop is kept: samples are complete runs of single lines.
        scenario = collected[0] if collected else ScenarioRun(spec={})
    with db.transaction():
        store_figures(db.conn, run_id, scenario)
    db.set_status(run_id, status)
    if failure is not None:
        raise UserError(f"{failure} (what was measured is stored as run {run_id})")
    results = scenario.analyse()
    print(summary(results, scenario.info))
    if args.report:
        page = render_page(
            scenario, results, caps.machine, title=f"cryptobench run {run_id}: scenario config"
        )
        write_file(args.report, page)
        print(f"report: {args.report}")
    if args.json_out:
        write_file(args.json_out, json.dumps(to_json(scenario, results), indent=1) + "\n")
        print(f"JSON: {args.json_out}")
    print(f"\nstored as run {run_id} in {db.path}")
    if status == "interrupted":
        print(f"interrupted: run {run_id} holds the samples measured so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0
