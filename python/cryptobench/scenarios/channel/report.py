"""The channel scenario's report sections (filled in below)."""

from cryptobench.figures import Figure
from cryptobench.report.html import Section, html_table
from cryptobench.scenarios.channel.figures import (
    BULK_HEADERS,
    HANDSHAKE_HEADERS,
    TLS_HEADERS,
    bulk_rows,
    handshake_rows,
    latency_table,
    tls_rows,
)


def sections(figures: list[Figure], spec: dict) -> list[Section]:
    out = []
    if rows := tls_rows(figures):
        out.append(
            Section("channel-tls", "TLS handshakes on loopback", html_table(TLS_HEADERS, rows))
        )
    if rows := handshake_rows(figures):
        out.append(
            Section("channel-handshakes", "OpenVPN handshakes", html_table(HANDSHAKE_HEADERS, rows))
        )
    headers, rows = latency_table(figures)
    if rows:
        out.append(Section("channel-latency", "Latency by payload", html_table(headers, rows)))
    if rows := bulk_rows(figures):
        out.append(Section("channel-bulk", "Bulk transfer", html_table(BULK_HEADERS, rows)))
    return out
