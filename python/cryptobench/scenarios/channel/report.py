"""The channel scenario's report sections: handshakes (OpenVPN and TLS on loopback) with CPU,
the prediction from the core, latency by payload, bulk throughput and CPU, accelerated or not."""

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table, svg_row
from cryptobench.scenarios.channel import plots
from cryptobench.scenarios.channel.figures import (
    BREAK_EVEN_HEADERS,
    BULK_HEADERS,
    HANDSHAKE_HEADERS,
    PREDICT_HEADERS,
    TLS_HEADERS,
    break_even_rows,
    bulk_rows,
    handshake_rows,
    latency_table,
    predict_rows,
    problems,
    tls_rows,
)

CPU_HOW = (
    "CPU %: utime + stime of every process involved — clients from wait4 (with their "
    "children), daemons from /proc/PID/stat including the children they reaped — over the wall "
    "time; 100% is one core of this machine's two. "
)


def _figs(*svgs: str) -> str:
    kept = [s for s in svgs if s]
    return svg_row(kept) if kept else ""


def sections(figures: list[Figure], spec: dict) -> list[Section]:
    out = []
    hs, tl = handshake_rows(figures), tls_rows(figures)
    if hs or tl:
        body = _figs(plots.handshakes(figures), plots.tls(figures))
        if hs:
            body += html_table(HANDSHAKE_HEADERS, hs, numeric={3, 4, 5, 6, 7, 8})
        if tl:
            body += html_table(TLS_HEADERS, tl, numeric={4, 5, 6, 7})
        body += how(
            f"OpenVPN: one server in namespace A, {spec.get('clients', 10)} clients in B, each "
            "with its own TUN, renegotiating the TLS 1.2 DHE-RSA control channel every second for "
            f"{spec.get('handshake_window_s', 0):.0f} s; completed handshakes counted from the "
            "server's log; each cell repeated "
            f"{spec.get('handshake_runs', spec.get('runs', 1))} times (the thesis: five), the "
            "median shown with the runs' range; one connection: spawn to 'Initialization "
            "Sequence Completed' of a "
            "lone client. TLS: openssl s_time -new against s_server -www on loopback "
            f"({spec.get('tls_window_s')} s). accel off: OPENSSL_ia32cap="
            f"{spec.get('soft_ia32cap')} for every OpenSSL process. " + CPU_HOW
        )
        out.append(Section("channel-handshakes", "Handshakes and the server's CPU", body))
    pr, be = predict_rows(figures), break_even_rows(figures)
    if pr or be:
        body = html_table(PREDICT_HEADERS, pr, numeric={5, 6}) if pr else ""
        body += html_table(BREAK_EVEN_HEADERS, be, numeric={1, 2, 3, 4}) if be else ""
        body += how(
            "Public-key ops alone: 1 / (sign + 2 key agreements) from the newest stored core "
            "run of OpenSSL (default and soft); the share is measured ÷ predicted rate. "
            "Break-even: a₁ / (b₀ − b₁) from the core's fits t(n) = a + b·n — the size above "
            "which the accelerated path's per-byte gain exceeds its per-call overhead. An "
            "offload device or AF_ALG adds a system call and DMA set-up to a₁, which is why the "
            "thesis's device paid only above about 1 KiB."
        )
        out.append(Section("channel-predict", "What the core predicts", body))
    headers, rows = latency_table(figures)
    if rows:
        body = _figs(plots.latency(figures, "on"), plots.latency(figures, "off"))
        body += html_table(headers, rows) + how(
            f"ping from B to A's end of each channel, {spec.get('echoes')} echoes 2 ms apart per "
            "payload; median rtt in ms with × raw veth in brackets. Both ends share two cores."
        )
        out.append(Section("channel-latency", "Latency by payload", body))
    if rows := bulk_rows(figures):
        body = _figs(
            plots.throughput(figures, "ftp"),
            plots.throughput(figures, "scp aes256-gcm@openssh.com"),
            plots.accel(figures),
        )
        body += html_table(BULK_HEADERS, rows, numeric={3, 4, 5, 6}) + how(
            f"A {spec.get('bulk_bytes', 0) >> 20} MiB random file from A to B, checked "
            "byte for byte; scp includes its connection set-up (kept as its own figure). " + CPU_HOW
        )
        out.append(Section("channel-bulk", "Bulk transfer: throughput and CPU", body))
    if issues := problems(figures):
        out.append(
            Section(
                "channel-problems",
                "Skipped and failed",
                html_table(["what"], [[p] for p in issues]),
            )
        )
    return out
