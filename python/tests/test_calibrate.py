"""`cryptobench calibrate` with the real runner: two identical runs, their spread stored as this
machine's noise, which `compare` then uses."""

from cryptobench import cli, noise, runner
from cryptobench.store import Store

SUITE = """
description = "tiny calibration suite"
providers = ["openssl", "gcrypt"]
algorithms = ["sha256", "aes-128-ctr"]
sizes = [1024]
samples = 7
target_sample_ms = 0.5
warmup_ms = 1
"""


def test_calibrate_stores_the_noise_compare_uses(tmp_path, capsys):
    suite = tmp_path / "tiny.toml"
    suite.write_text(SUITE)
    db_path = tmp_path / "r.db"
    assert cli.main(["calibrate", "--suite", str(suite), "--db", str(db_path)]) == 0
    out = capsys.readouterr().out
    assert "provider ÷ openssl ratios" in out and "noise threshold is" in out
    db = Store.open(db_path)
    machine = runner.list_capabilities(runner.find_runner()).machine
    stored = noise.for_machine(db, machine)
    assert stored.calibrated and 0 <= stored.threshold < 1
    found = db.latest_calibration(machine["hostname"], machine["cpu_model"])
    assert (found["run_a"], found["run_b"]) == (1, 2)
    assert found["figures"]["cases"] >= 4  # every measured case (and the null floor)
    assert cli.main(["compare", "1", "2", "--db", str(db_path)]) == 0
    assert f"{stored.threshold:.1%}" in capsys.readouterr().out
