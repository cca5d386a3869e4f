"""The channel figures as tables: TLS on loopback, OpenVPN handshakes, latency by payload and
bulk transfers, each with the ratio to the unencrypted baseline where there is one."""

from cryptobench.figures import Figure
from cryptobench.scenarios.channel.model import RAW
from cryptobench.tables import text_table


def ok(figures: list[Figure], part: str, metric: str) -> list[Figure]:
    return [
        f
        for f in figures
        if f.key.get("part") == part and f.metric == metric and f.status == "ok" and f.values
    ]


def median_of(figures: list[Figure], metric: str, match: dict) -> float | None:
    """The median of the first figure of `metric` whose key has every item of `match`."""
    for f in ok(figures, match["part"], metric):
        if all(f.key.get(k) == v for k, v in match.items()):
            return f.median
    return None


def _g(v: float | None, fmt: str = ".3g") -> str:
    return "-" if v is None else format(v, fmt)


TLS_HEADERS = [
    "protocol",
    "certificate",
    "group",
    "accel",
    "handshakes/s",
    "per server CPU-s",
    "per CPU-s (both ends)",
    "server CPU %",
]


def tls_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    for f in ok(figures, "tls", "handshakes/s"):
        k = f.key
        m = {
            x: median_of(figures, x, k)
            for x in ("handshakes per server CPU-s", "handshakes per CPU-s", "server cpu")
        }
        rows.append(
            [
                k["protocol"],
                k["cert"],
                k["group"],
                k["accel"],
                _g(f.median, ".0f"),
                _g(m["handshakes per server CPU-s"], ".0f"),
                _g(m["handshakes per CPU-s"], ".0f"),
                _g(m["server cpu"], ".0f"),
            ]
        )
    return rows


HANDSHAKE_HEADERS = [
    "certificate",
    "DH group",
    "accel",
    "handshakes/min",
    "server CPU %",
    "per server CPU-s",
    "capacity/min at 100% CPU",
    "one connection, s",
    "runs",
    "per server CPU-s, min-max",
]


def spread_of(figures: list[Figure], metric: str, match: dict) -> tuple[int, float, float] | None:
    """(runs, min, max) of the first figure of `metric` matching `match` (a figure's values are
    its repetitions)."""
    for f in ok(figures, match["part"], metric):
        if all(f.key.get(k) == v for k, v in match.items()):
            return len(f.values), min(f.values), max(f.values)
    return None


def relative_iqr(values) -> float | None:
    """Interquartile range ÷ median of repeated measurements (None below 4 of them)."""
    import statistics

    values = list(values)
    if len(values) < 4 or not statistics.median(values):
        return None
    q = statistics.quantiles(values, n=4)
    return (q[2] - q[0]) / statistics.median(values)


def handshake_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    for f in ok(figures, "handshake", "handshakes/min"):
        k = f.key
        rows.append(
            [
                k["cert"],
                k["dh"],
                k["accel"],
                _g(f.median, ".0f"),
                _g(median_of(figures, "server cpu", k), ".0f"),
                _g(per_cpu := median_of(figures, "handshakes per server CPU-s", k), ".1f"),
                _g(per_cpu * 60 if per_cpu else None, ".0f"),
                _g(median_of(figures, "connect time", k), ".3f"),
                str(len(f.values)),
                "-"
                if (s := spread_of(figures, "handshakes per server CPU-s", k)) is None
                else f"{s[1]:.1f}-{s[2]:.1f}",
            ]
        )
    return rows


def latency_table(figures: list[Figure], stat: str = "median") -> tuple[list[str], list[list[str]]]:
    """Rows: channel (accel); columns: payloads; cells: the statistic in ms and × raw veth."""
    lat = ok(figures, "latency", "rtt")
    payloads = sorted({f.key["payload"] for f in lat})
    chans = list(dict.fromkeys((f.key["channel"], f.key["accel"]) for f in lat))
    cell = {(f.key["channel"], f.key["accel"], f.key["payload"]): f for f in lat}
    rows = []
    for ch, accel in chans:
        row = [ch, accel]
        for p in payloads:
            f = cell.get((ch, accel, p))
            raw = cell.get((RAW, "on", p))
            if f is None:
                row.append("-")
                continue
            v = f.extra.get(stat, f.median)
            base = raw.extra.get(stat, raw.median) if raw else None
            row.append(f"{v:.3f}" + (f" ({v / base:.2f})" if base and ch != RAW else ""))
        rows.append(row)
    return ["channel", "accel", *[f"{p} B" for p in payloads]], rows


BULK_HEADERS = ["channel", "accel", "transfer", "MB/s", "CPU %", "MB/s per CPU-%", "× raw MB/s"]


def bulk_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    for f in ok(figures, "bulk", "throughput"):
        k = f.key
        accel = k["accel"] if k["transfer"].startswith("scp") else "on"
        raw = median_of(
            figures,
            "throughput",
            {"part": "bulk", "channel": RAW, "transfer": k["transfer"], "accel": accel},
        )
        rows.append(
            [
                k["channel"],
                k["accel"],
                k["transfer"],
                _g(f.median, ".1f"),
                _g(median_of(figures, "cpu", k), ".0f"),
                _g(median_of(figures, "MB/s per CPU-%", k), ".2f"),
                "-" if not raw or k["channel"] == RAW else f"{f.median / raw:.2f}",
            ]
        )
    return rows


PREDICT_HEADERS = [
    "measured in",
    "protocol",
    "certificate",
    "group",
    "accel",
    "measured per server CPU-s",
    "public-key ops alone",
    "public-key share",
]


def predict_rows(figures: list[Figure]) -> list[list[str]]:
    """The measured handshakes per server CPU-second beside what the core's public-key figures
    allow (sign + 2 key agreements): their ratio is the share of the server's CPU the
    public-key cryptography takes."""
    rows = []
    for f in ok(figures, "predict", "predicted handshakes per server CPU-s"):
        k = f.key
        match = {"part": k["of"], "cert": k["cert"], "accel": k["accel"]}
        match.update(
            {"group": k["group"], "protocol": k["protocol"]}
            if k["of"] == "tls"
            else {"dh": k["group"]}
        )
        measured = median_of(figures, "handshakes per server CPU-s", match)
        share = f"{measured / f.median:.0%}" if measured and f.median else "-"
        if f.extra.get("unstable"):
            share += " (core case unstable)"
        rows.append(
            [
                k["of"],
                k["protocol"],
                k["cert"],
                k["group"],
                k["accel"],
                _g(measured, ".0f"),
                _g(f.median, ".0f"),
                share,
            ]
        )
    return rows


BREAK_EVEN_HEADERS = [
    "cipher (OpenSSL)",
    "per-call overhead a, ns",
    "ns/B accelerated",
    "ns/B unaccelerated",
    "break-even size, B",
]


def break_even_rows(figures: list[Figure]) -> list[list[str]]:
    return [
        [
            f.key["algorithm"],
            _g(f.extra.get("overhead_ns"), ".0f"),
            _g(f.extra.get("ns_per_byte_accel"), ".3f"),
            _g(f.extra.get("ns_per_byte_soft"), ".3f"),
            _g(f.median, ".0f"),
        ]
        for f in ok(figures, "break-even", "break-even size")
    ]


def problems(figures: list[Figure]) -> list[str]:
    return [f"{f.label}: {f.status}: {f.reason}" for f in figures if f.status != "ok"]


def summary(figures: list[Figure], spec: dict) -> str:
    lines: list[str] = []
    if rows := tls_rows(figures):
        lines += [
            f"TLS on loopback (openssl s_server/s_time -new, {spec.get('tls_window_s')} s "
            "each; accel off = OPENSSL_ia32cap masks AES-NI/PCLMUL/AVX):",
            text_table(TLS_HEADERS, rows),
            "",
        ]
    if rows := handshake_rows(figures):
        lines += [
            f"OpenVPN TLS 1.2 DHE-RSA handshakes: {spec.get('clients')} clients "
            f"renegotiating every second for {spec.get('handshake_window_s'):.0f} s, "
            f"{spec.get('handshake_runs', spec.get('runs', 1))} runs per cell (median; the "
            "runs' range beside it):",
            text_table(HANDSHAKE_HEADERS, rows),
            "",
        ]
    headers, rows = latency_table(figures)
    if rows:
        lines += [
            f"ping rtt, median of {spec.get('echoes')} echoes, ms (× raw veth):",
            text_table(headers, rows),
            "",
        ]
    if rows := bulk_rows(figures):
        size = spec.get("bulk_bytes", 0) >> 20
        lines += [
            f"Bulk: a {size} MiB random file A→B; CPU % = every process involved "
            "(client, server, tunnel daemons) per wall second, 100 = one core:",
            text_table(BULK_HEADERS, rows),
            "",
        ]
    if rows := predict_rows(figures):
        core = next(
            f.extra.get("core_run")
            for f in ok(figures, "predict", "predicted handshakes per server CPU-s")
        )
        lines += [
            f"Handshake cost predicted from core run {core} (server: sign + 2 key "
            "agreements): the public-key share of the server's CPU per handshake:",
            text_table(PREDICT_HEADERS, rows),
            "",
        ]
    if rows := break_even_rows(figures):
        lines += [
            "Break-even analogue from the core's fits t(n) = a + b·n: above a₁/(b₀−b₁) "
            "bytes the accelerated path's gain exceeds its whole per-call overhead:",
            text_table(BREAK_EVEN_HEADERS, rows),
            "",
        ]
    lines += problems(figures)
    return "\n".join(lines).rstrip()
