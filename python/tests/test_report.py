"""The HTML report: self-contained, with the figures inline."""

import re

import pytest
from conftest import store_run, sweep

from cryptobench import analysis, report
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
    # Nothing to fetch: no scripts, stylesheets or images from elsewhere.
    assert not re.search(r"<script|<link|<img|<iframe|@import|src=", html)
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
