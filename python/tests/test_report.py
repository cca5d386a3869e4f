"""The HTML report: self-contained, with the figures inline."""

import re

import pytest
from conftest import store_run, sweep

from cryptobench import analysis, report, terminal
from cryptobench.errors import UserError


@pytest.fixture
def results(tmp_path):
    timings = {}
    for provider, variant, a, b in [
        ("alpha", "default", 90, 0.3),
        ("alpha", "soft", 120, 2.5),
        ("beta", "default", 150, 0.6),
    ]:
        timings |= sweep(provider, variant, "hash", "sha256", a, b)
    timings |= sweep("alpha", "default", "encrypt", "aes-256-gcm", 200, 0.2)
    failed = {("beta", "default", "mac", "hmac-sha256", 256): "runner crashed (killed by SIGABRT)"}
    db, run_id = store_run(tmp_path / "r.db", timings, failed=failed)
    return analysis.load(db, run_id)


def test_report_is_self_contained_html_with_inline_svg(results):
    html = report.render(results)
    assert html.startswith("<!DOCTYPE html>")
    assert html.count("<svg") >= 5  # throughput ×2, heatmap, heap, box plots, variants
    # Nothing to fetch: no scripts, stylesheets or images from elsewhere; one inline script
    # (sorting and filtering tables) that asks the network for nothing.
    assert not re.search(r"<link|<img|<iframe|@import|src=|fetch\(|XMLHttpRequest", html)
    assert html.count("<script>") == 1
    assert not re.search(r"(?:href|src)=\"https?:", html)
    for section in (
        "machine",
        "libraries",
        "throughput",
        "heatmap",
        "overhead",
        "heap",
        "boxplots",
        "variants",
        "failures",
    ):
        assert f'<section id="{section}">' in html
    assert "Test CPU" in html and "alpha 1.0" in html
    assert html.count("How this was obtained.") >= 8
    assert "reference cycles (TSC)" in html
    assert "runner crashed (killed by SIGABRT)" in html


def test_report_at_a_chosen_size(results):
    assert "at 256 B" in report.render(results, size=256)
    with pytest.raises(UserError, match="not measured"):
        report.render(results, size=12345)


def test_default_size_is_the_largest_most_cases_share(results):
    assert report.chosen_size(results, None) == 65536


def test_report_of_a_run_with_nothing_measured(tmp_path):
    db, run_id = store_run(
        tmp_path / "r.db", {}, failed={("beta", "default", "hash", "sha256", 64): "gate failed"}
    )
    html = report.render(analysis.load(db, run_id))
    assert "gate failed" in html and "No successful cases" in html


@pytest.fixture
def pk_results(tmp_path):
    timings = sweep("alpha", "default", "encrypt", "aes-256-gcm", 200, 0.2)
    for provider, scale in (("alpha", 1.0), ("beta", 1.7)):
        timings |= {
            (provider, "default", "sign", "rsa-2048-pkcs1-sha256", 32): 900_000.0 * scale,
            (provider, "default", "verify", "rsa-2048-pkcs1-sha256", 32): 25_000.0 * scale,
            (provider, "default", "sign", "ed25519", 32): 20_000.0 * scale,
            (provider, "default", "verify", "ed25519", 32): 60_000.0 * scale,
            (provider, "default", "derive", "x25519", 0): 30_000.0 * scale,
            (provider, "default", "encrypt", "rsa-2048-oaep-sha256", 32): 30_000.0 * scale,
            (provider, "default", "keygen", "ed25519", 0): 25_000.0 * scale,
            (provider, "default", "keygen", "rsa-2048", 0): 150_000_000.0 * scale,
            (provider, "default", "derive", "pbkdf2-sha256", 16): 3_000_000.0 * scale,
        }
    costs = {
        (p, "default", "derive", "pbkdf2-sha256", 16): {"iterations": 10000}
        for p in ("alpha", "beta")
    }
    # Key generation spreads widely from key to key.
    db, run_id = store_run(tmp_path / "r.db", timings, n=15, costs=costs, spread=0.3)
    return analysis.load(db, run_id)


def test_report_has_a_public_key_section(pk_results):
    html = report.render(pk_results)
    assert '<section id="publickey">' in html and '<section id="security">' in html
    section = html[html.index('<section id="publickey">') : html.index('<section id="security">')]
    for heading in ("Signatures, public-key encryption", "Sign and verify", "Key agreement",
                    "Key generation", "Key derivation"):  # fmt: skip
        assert f"<h3>{heading}" in section
    # Bar charts (sign/verify, key agreement, KDFs) and one box plot per key type.
    assert section.count("<svg") == 5
    assert "RSA-2048 sign (rsa-2048-pkcs1-sha256)" in section and "Ed25519 verify" in section
    assert "ops/s" in section and "iterations=10000" in section
    assert "keys/s (from the median)" in section
    # Public-key cases have no throughput: the per-byte figures stay symmetric.
    heatmap = html[html.index('<section id="heatmap">') : html.index('<section id="overhead">')]
    assert "ed25519" not in heatmap and "aes-256-gcm" in heatmap
    assert report.chosen_size(pk_results, None) == 65536


def test_report_groups_results_by_security_level(pk_results):
    html = report.render(pk_results)
    section = html[html.index('<section id="security">') : html.index('<section id="failures">')]
    rows = re.findall(
        r"<tr><td>(\d+|&lt; 80 \(broken\))</td><td>([^<]+)</td><td>([^<]+)</td>", section
    )
    assert ("256", "aead", "aes-256-gcm") in rows
    assert ("128", "signature", "ed25519") in rows
    assert ("112", "signature", "rsa-2048-pkcs1-sha256") in rows
    assert ("256", "kdf", "pbkdf2-sha256 (iterations=10000)") in rows
    # Highest level first.
    levels = [int(level) for level, _, _ in rows]
    assert levels == sorted(levels, reverse=True)
    assert "BSI TR-02102-1" in section and "Version 2024-01" in section


def _cells(html: str, section: str, first: str) -> list[str]:
    """The cells of the row that starts with `first` in one section's table."""
    start = html.index(f'<section id="{section}">')
    body = html[start : html.index("</section>", start)]
    row = re.search(rf"<tr><td>{re.escape(first)}</td>(.*?)</tr>", body).group(1)
    return re.findall(r"<td[^>]*>([^<]*)</td>", row)


def test_a_memory_figure_not_measured_is_said_so_in_the_report_never_0(memory_results):
    html = report.render(memory_results)
    # provider, algorithm, operation: then heap bytes/op, allocations/op, peak live bytes,
    # key-setup allocations and bytes, peak RSS rise, max RSS
    assert _cells(html, "heap", "native")[2:8] == ["64", "1.00", "64", "3", "512", "480 KiB"]
    assert _cells(html, "heap", "quiet")[2:4] == ["0", "0.00"]
    jvm = _cells(html, "heap", "jvm")
    assert jvm[2:8] == ["not measured"] * 6
    assert _cells(html, "heap", "old")[7] == "not measured"
    # The KDF table: peak live heap as the Python heap saw it, and the extension's 64 MiB.
    kdf = _cells(html, "publickey", "pyca")
    assert kdf[-2:] == ["900", "65.0 MiB"]


def test_a_memory_figure_not_measured_is_said_so_in_the_terminal(memory_results):
    heap_at = terminal.CASE_HEADERS.index("heap B/op")
    rise_at = terminal.CASE_HEADERS.index("RSS rise")
    rows = {r[0]: r for r in terminal.case_rows(memory_results.cases)}
    assert (rows["native"][heap_at], rows["native"][rise_at]) == ("64", "480 KiB")
    assert rows["quiet"][heap_at] == "0"
    assert (rows["jvm"][heap_at], rows["jvm"][rise_at]) == ("not measured", "not measured")
    assert rows["old"][rise_at] == "not measured"
    assert (rows["pyca"][heap_at], rows["pyca"][rise_at]) == ("1200", "65.0 MiB")


def test_report_puts_the_versions_of_a_library_side_by_side(tmp_path):
    cases = {
        ("openssl", "default", "hash", "sha256", 16): 1000.0,
        ("openssl@1.1.1", "default", "hash", "sha256", 16): 500.0,  # twice as fast
        ("openssl@3.5", "default", "hash", "sha256", 16): 1000.0,
        ("gcrypt", "default", "hash", "sha256", 16): 100.0,  # one version only: no table
    }
    db, run_id = store_run(tmp_path / "r.db", cases, n=21, seed=3, spread=0.02)
    html = report.render(analysis.load(db, run_id))
    section = html[html.index('<section id="versions">') : html.index('<section id="security">')]
    assert "<h3>openssl</h3>" in section and "<h3>gcrypt</h3>" not in section
    assert "openssl@1.1.1 ÷ openssl" in section and "openssl@3.5 ÷ openssl" in section
    speedup = re.search(r"(\d\.\d\d)× \([\d.]+–[\d.]+\) ▲", section)
    assert speedup and float(speedup.group(1)) == pytest.approx(2.0, rel=0.05)


def test_report_says_when_no_library_has_two_versions(tmp_path):
    db, run_id = store_run(tmp_path / "r.db", {("openssl", "default", "hash", "sha256", 16): 9.0})
    html = report.render(analysis.load(db, run_id))
    assert "No library was measured in more than one version" in html
