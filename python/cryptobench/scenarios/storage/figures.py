"""The storage figures as tables: throughput and CPU per system and workload with the ratio to
the clean file system on the same backing, and the security checks."""

from cryptobench.figures import Figure
from cryptobench.tables import text_table
from cryptobench.units import compact

CLEAN = {"ext4": "ext4", "tmpfs": "tmpfs"}


def _medians(figures: list[Figure], metric: str) -> dict[tuple, float]:
    return {
        (f.key.get("system"), f.key.get("backing"), f.key.get("workload")): f.median
        for f in figures
        if f.metric == metric and f.status == "ok" and f.median is not None and "workload" in f.key
    }


def throughput_rows(figures: list[Figure]) -> list[list[str]]:
    tput = _medians(figures, "throughput")
    times = _medians(figures, "time")
    cpu = _medians(figures, "cpu")
    rows = []
    for (system, backing, workload), value in {**tput, **times}.items():
        clean = (CLEAN.get(backing, "ext4"), backing, workload)
        base = tput.get(clean) if (system, backing, workload) in tput else times.get(clean)
        is_time = (system, backing, workload) in times
        ratio = "-"
        if base and value and system != clean[0]:
            ratio = f"{(base / value) if is_time else (value / base):.2f}"
        rows.append(
            [
                system,
                backing,
                workload,
                f"{compact(value)} {'s' if is_time else ''}".strip(),
                f"{cpu[(system, backing, workload)]:.0f}"
                if (system, backing, workload) in cpu
                else "-",
                ratio,
            ]
        )
    return rows


THROUGHPUT_HEADERS = ["system", "on", "workload", "MB/s, K/s or s", "CPU %", "× clean speed"]


def security_rows(figures: list[Figure]) -> list[list[str]]:
    return [
        [
            f.key["system"],
            f.key.get("backing", ""),
            f.key["check"],
            "pass" if f.values and f.values[0] else "FAIL",
            f.extra.get("detail", ""),
        ]
        for f in figures
        if f.metric == "passed"
    ]


def security_matrix(figures: list[Figure]) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """The checks as a matrix (one row per system and backing, pass/FAIL per check) and the
    detail of each, for the report."""
    checks = [f for f in figures if f.metric == "passed"]
    names = list(dict.fromkeys(f.key["check"] for f in checks))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for f in checks:
        row = cells.setdefault((f.key["system"], f.key.get("backing", "")), {})
        row[f.key["check"]] = "pass" if f.values and f.values[0] else "FAIL"
    rows = [[s, b, *(row.get(n, "-") for n in names)] for (s, b), row in cells.items()]
    details = [[r[0], r[1], r[2], r[4]] for r in security_rows(figures)]
    return ["system", "on", *names], rows, details


def problems(figures: list[Figure]) -> list[str]:
    return [f"{f.label}: {f.status} {f.metric}: {f.reason}" for f in figures if f.status != "ok"]


def _runs_text(spec: dict) -> str:
    by_backing = {b: n for b, n in spec.get("runs_by_backing", {}).items() if b in spec.get(
        "backings", [])}  # fmt: skip
    if len(set(by_backing.values())) > 1:
        return ", ".join(f"{n} run{'s' if n > 1 else ''} on {b}" for b, n in by_backing.items())
    return f"{spec.get('runs', '?')} runs"


def summary(figures: list[Figure], spec: dict) -> str:
    lines = []
    rows = throughput_rows(figures)
    if rows:
        lines += [
            f"Medians of {_runs_text(spec)}, {spec.get('size', 0) >> 20} MiB files; "
            "× clean speed = the system's speed ÷ the clean file system's on the same "
            "backing:",
            text_table(THROUGHPUT_HEADERS, rows),
        ]
    sec = security_rows(figures)
    if sec:
        lines += [
            "",
            "Security checks:",
            text_table(["system", "on", "check", "result", "detail"], sec),
        ]
    speed = [f for f in figures if f.key.get("system") == "gocryptfs -speed"]
    if speed:
        lines += [
            "",
            "gocryptfs -speed (its ciphers alone, in memory): "
            + ", ".join(f"{f.key['cipher']} {f.median:.0f} MB/s" for f in speed),
        ]
    if spec.get("kernel_cipher"):
        lines.append(f"kernel AES-XTS driver: {spec['kernel_cipher']}")
    for p in problems(figures):
        lines.append(p)
    return "\n".join(lines)
