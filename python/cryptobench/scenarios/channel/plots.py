"""The channel scenario's plots (SVG through cryptobench.plots): handshakes by key size with the
server's CPU beside them, latency against payload, throughput and CPU per channel, accelerated
against not."""

from cryptobench.figures import Figure
from cryptobench.scenarios.channel.figures import median_of, ok


def _new(width: float = 7.2, height: float = 3.4):
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height))
    return fig, fig.add_subplot()


def _svg(fig) -> str:
    from cryptobench.plots import to_svg

    return to_svg(fig)


def handshakes(figures: list[Figure]) -> str:
    """Grouped bars: handshakes per server CPU-second by certificate, one bar per DH group and
    accel; the server's CPU % as hatched bars on the right axis."""
    hs = ok(figures, "handshake", "handshakes/min")
    if not hs:
        return ""
    certs = list(dict.fromkeys(f.key["cert"] for f in hs))
    series = list(dict.fromkeys((f.key["dh"], f.key["accel"]) for f in hs))
    fig, ax = _new()
    cpu_ax = ax.twinx()
    width = 0.8 / max(1, len(series))
    for i, (dh, accel) in enumerate(series):
        xs = [j + i * width for j in range(len(certs))]
        keys = [{"part": "handshake", "cert": c, "dh": dh, "accel": accel} for c in certs]
        rate = [median_of(figures, "handshakes/min", k) or 0 for k in keys]
        cpu = [median_of(figures, "server cpu", k) or 0 for k in keys]
        ax.bar(xs, rate, width, label=f"{dh}, accel {accel}")
        cpu_ax.bar(xs, cpu, width * 0.4, color="none", edgecolor="black", hatch="///")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(certs))], certs)
    ax.set_ylabel("handshakes/min (10 clients)")
    cpu_ax.set_ylabel("server CPU % (hatched)")
    ax.set_title("OpenVPN TLS 1.2 DHE-RSA; clients renegotiate every second (cap 600/min)")
    ax.legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.12, 1.0))
    return _svg(fig)


def tls(figures: list[Figure]) -> str:
    rows = ok(figures, "tls", "handshakes per server CPU-s")
    if not rows:
        return ""
    configs = list(dict.fromkeys((f.key["protocol"], f.key["cert"], f.key["group"]) for f in rows))
    fig, ax = _new(7.2, 3.0)
    width = 0.4
    for i, accel in enumerate(("on", "off")):
        vals = [
            median_of(
                figures,
                "handshakes per server CPU-s",
                {"part": "tls", "protocol": p, "cert": c, "group": g, "accel": accel},
            )
            or 0
            for p, c, g in configs
        ]
        ax.bar([j + i * width for j in range(len(configs))], vals, width, label=f"accel {accel}")
    labels = [f"{'1.3' if p.startswith('TLS 1.3') else '1.2'} {c}\n{g}" for p, c, g in configs]
    ax.set_xticks([j + width / 2 for j in range(len(configs))], labels, fontsize=6)
    ax.set_ylabel("handshakes per server CPU-s")
    ax.set_title("openssl s_server / s_time -new on loopback")
    ax.legend(fontsize=7, frameon=False)
    return _svg(fig)


def latency(figures: list[Figure], accel: str = "on") -> str:
    lat = ok(figures, "latency", "rtt")
    chans = list(dict.fromkeys(f.key["channel"] for f in lat if f.key["accel"] == accel))
    if not chans:
        return ""
    fig, ax = _new()
    for ch in chans:
        pts = sorted(
            (f.key["payload"], f.extra.get("median", f.median))
            for f in lat
            if f.key["channel"] == ch and f.key["accel"] == accel
        )
        ax.plot([p for p, _ in pts], [v for _, v in pts], marker="o", label=ch)
    ax.set_xlabel("ICMP payload, bytes")
    ax.set_ylabel("median rtt, ms")
    ax.set_title(f"ping through each channel (OpenSSL accel {accel})")
    ax.legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(fig)


def throughput(figures: list[Figure], transfer: str, accel: str = "on") -> str:
    rows = [
        f
        for f in ok(figures, "bulk", "throughput")
        if f.key["transfer"] == transfer and f.key["accel"] == accel
    ]
    if not rows:
        return ""
    fig, ax = _new()
    cpu_ax = ax.twinx()
    names = [f.key["channel"] for f in rows]
    xs = range(len(rows))
    ax.bar(xs, [f.median for f in rows], 0.6, label="MB/s")
    cpu = [median_of(figures, "cpu", f.key) or 0 for f in rows]
    cpu_ax.bar(xs, cpu, 0.25, color="none", edgecolor="black", hatch="///", label="CPU %")
    ax.set_xticks(list(xs), names, rotation=30, ha="right", fontsize=6)
    ax.set_ylabel("MB/s")
    cpu_ax.set_ylabel("CPU % of all processes (hatched)")
    ax.set_title(f"{transfer} (accel {accel})")
    return _svg(fig)


def accel(figures: list[Figure]) -> str:
    """Unaccelerated ÷ accelerated MB/s per channel and transfer: below 1, acceleration pays."""
    pairs = []
    for f in ok(figures, "bulk", "throughput"):
        if f.key["accel"] != "off":
            continue
        on = median_of(figures, "throughput", {**f.key, "accel": "on"})
        if on:
            pairs.append((f"{f.key['channel']} · {f.key['transfer']}", f.median / on))
    if not pairs:
        return ""
    fig, ax = _new(7.2, max(2.5, 0.18 * len(pairs)))
    ax.barh(range(len(pairs)), [v for _, v in pairs])
    ax.axvline(1.0, color="black", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(pairs)), [n for n, _ in pairs], fontsize=5)
    ax.set_xlabel("MB/s without AES-NI/PCLMUL/AVX ÷ with")
    ax.set_title("accelerated against not (OPENSSL_ia32cap)")
    return _svg(fig)
