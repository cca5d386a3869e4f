"""The paper 001 reproduction's analysis: its security levels, the linearity fit it reports and
the Java ÷ native ratios, on cases with known figures."""

from types import SimpleNamespace

import pytest
from test_reproduce import claims_of

from cryptobench import cli
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


def test_reproduce_001_measures_the_java_providers_beside_openssl(
    tmp_path, capsys, monkeypatch, native_runner
):
    """End to end on a small grid (SHA-256 at two sizes, AES-128-CBC key setup): JVM providers
    (the JDK's, Bouncy Castle, and ACCP with its AWS-LC twin aws-lc-rs) and OpenSSL in one stored
    run, rankings, fits, ratios and claims. Conscrypt and NSS go through the same JVM runner and
    code path; each JVM provider costs at least 7 s of JIT warm-up (Engine.MIN_WARMUP_NS plus a
    further size's MIN_CASE_NS), so the test keeps three."""
    from runner_harness import runner_exe

    runner_exe("cryptobench-runner-jvm")  # skipped, with the reason, where setup left it absent
    for name, value in {
        "JAVA_PROVIDERS": ["sunjce", "bouncycastle", "accp"],
        "QUICK_SIZES": [4 * KIB, 64 * KIB],
        "QUICK_SYMMETRIC": [],
        "QUICK_HASHES": ["sha256"],
        "QUICK_MACS": [],
        "QUICK_SIGNATURES": [],
        "QUICK_PK_ENCRYPTION": [],
        "QUICK_KEY_SETUP": ["aes-128-cbc"],
    }.items():
        monkeypatch.setattr(model, name, value)
    report = tmp_path / "rep.html"
    args = ["reproduce", "001", "--quick", "--db", str(tmp_path / "r.db"), "--report", str(report)]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "RSA JSafe 3.6" in out and "accp" in out  # the defunct providers and stand-ins
    ranking = next(line for line in out.splitlines() if line.lstrip().startswith("4  sha256"))
    for provider in ("sunjce", "bouncycastle", "openssl"):
        assert provider in ranking
    assert "Encryption time is proportional to the input length [§3.1]" in out
    assert "Calling a native library through JCA" in out  # ours, listed apart
    assert "criterion:" in out
    assert "key setup ns" in out
    # Each JVM provider's key setup is gated and timed: a number of ns, not a refusal.
    setups = out[out.index("key setup ns") :].splitlines()
    for provider in ("sunjce", "bouncycastle", "accp"):
        row = next(line.split() for line in setups if line.startswith(provider + " "))
        assert row[1] == "aes-128-cbc" and row[2].isdigit(), row
    assert 'id="paper-001"' in report.read_text()
    # the same from the stored run, the key setups included (stored with it as figures)
    args = ["reproduce", "001", "--quick", "--stored", "--db", str(tmp_path / "r.db")]
    assert cli.main(args) == 0
    again = capsys.readouterr().out
    assert claims_of(again, "001") == claims_of(out, "001") != []
    table = out.split("Key setup (a new key object", 1)[1].split("\n\n", 1)[0]
    assert "aes-128-cbc" in table and table in again
