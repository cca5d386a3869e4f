"""The per-call/per-byte fit on cache-resident sizes, and the null provider's harness floor."""

import pytest
from conftest import store_run

from cryptobench import analysis, recommend


@pytest.fixture
def results(tmp_path):
    sizes = [16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576]
    timings = {}
    for n in sizes:
        # alpha: 40 ns per call + 0.5 ns/B while cache-resident, 1.0 ns/B beyond 16 KiB.
        extra = 0.5 * (n - 16384) if n > 16384 else 0.0
        timings[("alpha", "default", "encrypt", "aes-128-ctr", n)] = 40 + 0.5 * n + extra
        # beta: no measurable per-call cost; 16 B pays a partly filled block.
        timings[("beta", "default", "encrypt", "aes-128-ctr", n)] = (1 if n > 16 else 30) + 0.3 * n
    timings[("null", "default", "hash", "null", 16)] = 2.0
    timings[("alpha", "default", "hash", "sha256", 4096)] = 9000.0
    db, run_id = store_run(tmp_path / "r.db", timings, spread=0.002)
    return analysis.load(db, run_id)


def fit_of(results, provider):
    return next(f for f in results.fits if f.provider == provider)


def test_the_fit_uses_only_cache_resident_block_multiple_sizes(results):
    f = fit_of(results, "alpha")
    assert f.sizes == [64, 256, 1024, 4096, 16384]
    # Fitted over 16 B-1 MiB, the DRAM-regime sizes would double b; here it is the L1 cost.
    assert f.ns_per_byte == pytest.approx(0.5, rel=0.02)
    assert f.overhead_ns == pytest.approx(40, rel=0.1)
    assert f.fit.intercept_ci[0] <= 40 <= f.fit.intercept_ci[1] * 1.05


def test_a_negative_overhead_is_never_shown_as_a_figure(results):
    beta = fit_of(results, "beta")
    beta.fit = beta.fit.__class__(-3.0, 0.3, 1.0, 0.001, 1.0, 5, (-5.0, 0.5), (0.29, 0.31))
    assert beta.overhead_figure is None
    assert beta.overhead_text.startswith("below resolution")
    assert beta.row(1)["overhead_ns"] is None
    assert fit_of(results, "alpha").overhead_text.startswith(("39.", "40."))


def test_the_null_provider_is_a_floor_not_a_candidate(results):
    assert analysis.harness_floor(results.cases) == {16: pytest.approx(2.0, rel=0.05)}
    assert all(f.provider != "null" for f in results.fits)
    alpha16 = next(c for c in results.cases if c.provider == "alpha" and c.size == 16)
    share = analysis.floor_share(alpha16, analysis.harness_floor(results.cases))
    assert share == pytest.approx(2.0 / 48, rel=0.05)
    rec = recommend.recommend(results, level=0, size=4096, year=2026)
    hashes = [ch for ch in rec.choices if ch.kind == "hash"]
    assert hashes and hashes[0].case.algorithm == "sha256", "null is faster but is no hash"


def test_a_clock_that_moves_more_than_two_percent_over_a_case_is_flagged():
    assert analysis.clock_moved({"ghz_open": 3.0, "ghz_close": 3.03}) is None
    assert analysis.clock_moved({"ghz_open": 3.0, "ghz_close": 2.7}) == pytest.approx(-0.1)
    assert analysis.clock_moved({"ghz_open": 0, "ghz_close": 2.7}) is None
    assert analysis.clock_moved(None) is None


def test_cycles_are_called_core_cycles_only_where_the_machine_has_a_counter():
    assert analysis.cycles_label({"pmu_cycles": True}).startswith("core cycles")
    assert analysis.cycles_label({"pmu_cycles": False}).startswith("reference cycles")
    assert analysis.cycles_label({}).startswith("reference cycles")  # older runs
