"""The paper 001 reproduction's analysis: its security levels, the linearity fit it reports and
the Java ÷ native ratios, on cases with known figures."""

from types import SimpleNamespace

import pytest

from cryptobench.reproductions import CORE
from cryptobench.reproductions.java import figures, model

KIB = 1024


def case(provider, algorithm, size, ns, operation="encrypt", bits=128):
    return SimpleNamespace(
        provider=provider,
        variant="default",
        label=provider,
        algorithm=algorithm,
        operation=operation,
        size=size,
        median_ns=ns,
        symmetric=True,
        bytes_per_s=size / ns * 1e9,
        ops_per_s=1e9 / ns,
        security_bits=bits,
    )


def test_levels_follow_the_papers_time_frames():
    assert [figures.level_of(b) for b in (64, 80, 96, 112, 128, 256)] == [
        "0", "1", "2", "3", "4", "4"
    ]  # fmt: skip
    assert "001" in CORE


def test_a_linear_sweep_fits_with_r2_one_and_a_curved_one_does_not():
    sizes = model.SIZES
    linear = [case("sunjce", "aes-128-cbc", n, 500 + 0.8 * n) for n in sizes]
    curved = [case("bouncycastle", "aes-128-cbc", n, 1e-6 * n * n) for n in sizes]
    fits = {f.label: f for f in figures.linear_fits(linear + curved)}
    assert fits["sunjce"].r2 == pytest.approx(1.0)
    assert fits["sunjce"].b_ns_per_byte == pytest.approx(0.8)
    assert fits["sunjce"].a_ns == pytest.approx(500, rel=1e-3)
    assert fits["bouncycastle"].r2 < 0.99


def test_ratios_and_rankings_are_taken_at_one_mebibyte():
    cases = [
        case("openssl", "sha256", 2 * 1024 * KIB, 1000.0, "hash"),
        case("openssl", "sha256", 1024 * KIB, 1000.0, "hash"),
        case("sunjce", "sha256", 1024 * KIB, 2000.0, "hash"),
        case("accp", "sha256", 1024 * KIB, 500.0, "hash"),
    ]
    ratios = {p: r for p, _, _, r in figures.ratios(cases)}
    assert ratios == {"sunjce": pytest.approx(0.5), "accp": pytest.approx(2.0)}
    ranking = figures.rankings(cases)
    assert ranking.index("accp") < ranking.index("openssl") < ranking.index("sunjce")
