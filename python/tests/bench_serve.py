"""How fast `cryptobench serve` answers over a team-sized PostgreSQL store: a benchmark, not a
test (`make bench-serve`; docs/serve.md has the figures).

A fresh PostgreSQL (postgres_server.py) gets the schema from the store's own migrations
(Store.open), then RUNS runs x CASES cases x SAMPLES samples, bulk-loaded with COPY: three
machines taking turns, one library upgraded halfway, a few cases slower in some runs. The real
server is started (serve_server.py) and each page is fetched REQUESTS times after one warm-up
request; the median and the first (cold) request are printed.

    python python/tests/bench_serve.py [--runs 200] [--cases 3000] [--requests 9]
"""

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import postgres_server
import psycopg
from serve_server import Served

from cryptobench.store import Store

PROVIDERS = [f"lib{i}" for i in range(10)]
SIZES = [16, 64, 256, 1024, 4096, 8192, 16384, 65536, 262144, 1048576]
HOSTS = [("build-a", "Test CPU A"), ("build-b", "Test CPU B"), ("laptop", "Test CPU C")]


def case_keys(n: int) -> list[tuple[str, str, int]]:
    algorithms = [f"alg-{i}" for i in range(-(-n // (len(PROVIDERS) * len(SIZES))))]
    keys = [(p, a, s) for a in algorithms for p in PROVIDERS for s in SIZES]
    return keys[:n]


def copy(cur, table: str, columns: str, rows) -> None:
    buf = io.StringIO()
    for row in rows:
        buf.write("\t".join("\\N" if v is None else str(v) for v in row) + "\n")
    buf.seek(0)
    with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as c:
        while chunk := buf.read(1 << 20):
            c.write(chunk)


def generate(url: str, runs: int, cases: int, samples: int) -> None:
    Store.open(url).close()  # the schema, through the store's own Alembic migrations
    keys = case_keys(cases)
    rng = np.random.default_rng(1)
    base = {k: 100 + k[2] * rng.uniform(0.2, 2.0) for k in keys}
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        case_id = 0
        for r in range(1, runs + 1):
            host, cpu = HOSTS[r % len(HOSTS)]
            started = f"2026-{1 + r // 28:02d}-{1 + r % 28:02d}T10:00:00+00:00"
            copy(cur, "runs", "id, uid, started_at, finished_at, status, suite, settings, argv,"
                 " cryptobench_version, runner, runner_version, runner_path, note",
                 [(r, f"bench-{r}", started, started, "complete", "default", "{}", "[]",
                   "bench", "cryptobench-native", "0.1", "-", f"bench run {r}")])  # fmt: skip
            copy(
                cur,
                "machine",
                "run_id, hostname, cpu_model, cores, record",
                [(r, host, cpu, 2, json.dumps({"hostname": host, "cpu_model": cpu}))],
            )
            version = "1.0" if r <= runs // 2 else "1.1"
            copy(
                cur,
                "libraries",
                "run_id, provider, variant, version, description, code_path",
                [(r, p, "default", f"{p} {version}", "", "{}") for p in PROVIDERS],
            )
            slower = set(rng.choice(len(keys), size=3, replace=False)) if r % 10 == 0 else set()
            case_rows, sample_rows = [], []
            for seq, k in enumerate(keys):
                case_id += 1
                median = base[k] * (1.3 if seq in slower else 1.0)
                case_rows.append((case_id, r, seq, k[0], "default", "encrypt", k[1], k[2],
                                  "random", 0, 0, "{}", "{}", "ok", 1000))  # fmt: skip
                ns = median * 1000 * rng.lognormal(0, 0.02, samples)
                sample_rows += [(case_id, i, 1000, int(v), int(v * 2)) for i, v in enumerate(ns)]
            copy(
                cur,
                "cases",
                "id, run_id, seq, provider, variant, operation, algorithm, size,"
                " input, align_offset, aad_bytes, cost, spec, status, iterations",
                case_rows,
            )
            copy(cur, "samples", "case_id, idx, iterations, ns, ticks", sample_rows)
            if r % 20 == 0:
                print(f"  {r} runs stored", file=sys.stderr, flush=True)
        conn.commit()
        conn.autocommit = True
        cur.execute("VACUUM ANALYZE")


def timed(served: Served, path: str, requests: int) -> tuple[float, float]:
    """(first request, median of the next `requests`) in milliseconds."""
    times = []
    for _ in range(requests + 1):
        start = time.perf_counter()
        response = served.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (path, response.status_code, response.text[:300])
    return times[0], statistics.median(times[1:])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--cases", type=int, default=3000)
    p.add_argument("--samples", type=int, default=11)
    p.add_argument("--requests", type=int, default=9)
    p.add_argument("--url", help="time the pages over this store instead of generating one")
    args = p.parse_args()
    if args.url:
        time_pages(args.url, args.requests)
        return 0
    server = postgres_server.Server()
    try:
        start = time.monotonic()
        print(f"generating {args.runs} runs x {args.cases} cases x {args.samples} samples",
              file=sys.stderr)  # fmt: skip
        generate(server.url, args.runs, args.cases, args.samples)
        print(f"generated in {time.monotonic() - start:.0f} s", file=sys.stderr)
        time_pages(server.url, args.requests)
    finally:
        server.stop()
    return 0


def time_pages(url: str, requests: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(url, Path(tmp) / "serve.log")
        try:
            case = "provider=lib3&operation=encrypt&algorithm=alg-1&size=16384"
            print(f"{'page':<40} {'first ms':>9} {'median ms':>10}")
            for name, path in (
                ("runs", "/runs"),
                ("runs (filtered: build-a, 1.1)", "/runs?machine=build-a&library=1.1"),
                ("history (one case, 200 runs)", f"/history?{case}"),
                (
                    "history (another case)",
                    "/history?provider=lib7&operation=encrypt&algorithm=alg-5&size=1024",
                ),
                ("regressions (newest 5 pairs)", "/regressions"),
                ("regressions, older page", "/regressions?before=150"),
                ("regressions JSON", "/api/regressions"),
            ):
                first, median = timed(served, path, requests)
                print(f"{name:<40} {first:>9.0f} {median:>10.0f}", flush=True)
            # The server compares every pair in the background; once it is through, a page
            # nobody asked for yet answers from memory too.
            start = time.monotonic()
            while "pairs compared" not in served.log.read_text():
                if time.monotonic() - start > 1200:
                    raise RuntimeError("the background comparison did not finish in 20 min")
                time.sleep(2)
            print(f"(background comparison of every pair done {time.monotonic() - start:.0f} s "
                  "after the requests above)")  # fmt: skip
            first, median = timed(served, "/regressions?before=60", requests)
            print(f"{'regressions, page not asked for before':<40} {first:>9.0f} {median:>10.0f}")
        finally:
            served.stop()


if __name__ == "__main__":
    sys.exit(main())
