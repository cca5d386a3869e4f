"""The fidelity check runs the libraries' own benchmark tools next to cryptobench-native."""

import shutil
from dataclasses import replace

import pytest

from cryptobench import fidelity, runner


@pytest.fixture
def native():
    return runner.find_runner()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_one_round_of_the_openssl_pair_gives_both_rates_and_a_ratio(native):
    pair = replace(
        fidelity.default_pairs(size=4096)[0],
        tool=[
            "openssl",
            "speed",
            "-aead",
            "-evp",
            "aes-256-gcm",
            "-bytes",
            "4096",
            "-seconds",
            "1",
        ],
    )
    [r] = fidelity.check(native, [pair], rounds=1, samples=3, target_sample_ms=0.5)
    assert r.error == ""
    assert len(r.cryptobench_bps) == 1 and len(r.tool_bps) == 1
    assert r.ratio is not None and r.ratio > 0
    assert r.best_ratio == pytest.approx(r.ratio)  # one round: its only round is its fastest
    assert r.row()["agrees"] == (0.97 <= r.ratio <= 1.03)


def test_a_missing_tool_is_that_pairs_error_not_a_crash(native):
    pair = replace(fidelity.default_pairs()[1], tool=["no-such-bench-tool", "speed"])
    [r] = fidelity.check(native, [pair], rounds=1)
    assert "no-such-bench-tool is not installed" in r.error
    assert r.ratio is None and not r.agrees


def test_output_a_tool_did_not_write_as_expected_is_reported(native):
    pair = replace(fidelity.default_pairs()[0], tool=["openssl", "version"])
    [r] = fidelity.check(native, [pair], rounds=1, samples=3, target_sample_ms=0.5)
    assert "no result row in openssl speed's output" in r.error


@pytest.mark.skipif(shutil.which("botan") is None, reason="botan not installed (mk/fidelity.mk)")
def test_the_botan_pair_reads_botan_speeds_output(native):
    pair = replace(
        fidelity.default_pairs(size=4096)[1],
        tool=["botan", "speed", "--msec=50", "--buf-size=4096", "AES-256/GCM"],
    )
    [r] = fidelity.check(native, [pair], rounds=1, samples=3, target_sample_ms=0.5)
    assert r.error == "" and r.tool_bps[0] > 0
