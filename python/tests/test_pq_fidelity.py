"""The post-quantum fidelity bench (make bench-fidelity-pq) reads liboqs's speed_sig and speed_kem
tables and Go's testing.B on crypto/mlkem; these check the reading, not any speed."""

import pytest
from runner_harness import missing_part

from cryptobench import plan, pq_fidelity

# speed_sig --duration 1 ML-DSA-65 from the liboqs 0.13.0 build (make liboqs), 2026-11-26.
SPEED_SIG = """\
Operation                            | Iterations | Total time (s) | Time (us): mean | pop. stdev
------------------------------------ | ----------:| --------------:| ---------------:| ----------:
ML-DSA-65                            |            |                |                 |            |
keypair                              |       2145 |          1.011 |         471.222 |   3051.757
sign                                 |        790 |          1.004 |        1270.899 |   5113.266
verify                               |       2130 |          1.002 |         470.651 |   3046.637
"""


def test_speed_sig_rows_are_read_as_ns_per_op():
    assert pq_fidelity.parse_speed(SPEED_SIG, "keypair") == pytest.approx(471222)
    assert pq_fidelity.parse_speed(SPEED_SIG, "sign") == pytest.approx(1270899)
    with pytest.raises(ValueError, match="no 'encaps' row"):
        pq_fidelity.parse_speed(SPEED_SIG, "encaps")


def test_speed_kem_of_the_liboqs_build_gives_each_kem_operation():
    record = pq_fidelity.versions.built().get("liboqs")
    if not record:
        pytest.skip("liboqs is not built here (opt-in: make liboqs)")
    speed_kem = pq_fidelity.Path(record["home"]) / "prefix" / "bin" / "speed_kem"
    got = pq_fidelity.liboqs_ns_per_op(speed_kem, "ML-KEM-768", seconds=1)
    assert set(got) == {"keygen", "encaps", "decaps"}
    assert all(v > 0 for v in got.values())


def test_testing_b_on_crypto_mlkem_gives_each_operation():
    if not pq_fidelity._bin("cryptobench-mlkembench").exists():
        missing_part("cryptobench-mlkembench is absent (make setup builds it with the Go runner)")
    got = pq_fidelity.go_ns_per_op("768", benchtime="10ms")
    assert set(got) == {"keygen", "encaps", "decaps"}
    assert all(v > 0 for v in got.values())


def test_rounds_out_of_range_is_one_line(capsys):
    assert pq_fidelity.main(["--rounds", "0"]) == 2
    assert "--rounds must be between 1 and 50" in capsys.readouterr().err


def test_a_cpu_this_process_may_not_use_is_one_line(capsys):
    cpu = max(pq_fidelity.os.sched_getaffinity(0)) + 1000
    assert pq_fidelity.main(["--rounds", "1", "--cpu", str(cpu)]) == 2
    assert f"--cpu {cpu}: not a CPU this process may use" in capsys.readouterr().err


def test_our_side_is_a_valid_suite_signing_speed_sigs_message():
    # Like with like: speed_sig signs 50 bytes (tests/speed_sig.c), so our sign/verify cases do.
    sig = plan.parse_suite(
        pq_fidelity.suite_text("liboqs", "ml-dsa-65", ["keygen", "sign", "verify"]), "pq", "pq"
    )
    assert sig.blocks[0]["sizes"] == [50]
    assert sig.blocks[0]["operations"] == ["keygen", "sign", "verify"]
    kem = plan.parse_suite(
        pq_fidelity.suite_text("go", "ml-kem-768", ["keygen", "encaps", "decaps"]), "pq", "pq"
    )
    assert kem.blocks[0]["sizes"] == [0]
