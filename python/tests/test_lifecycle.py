"""The life cycle of a run with real runner processes: one resume per run, CPUs not shared
silently between concurrent runs."""

import os
import subprocess
import sys

import pytest

from cryptobench import lifecycle, plan, runner
from cryptobench.store import Store


def _stopped_run(path, native_runner) -> int:
    """A run with one pending case, as a killed `cryptobench run` leaves it."""
    caps = runner.list_capabilities(native_runner)
    case = plan.CaseSpec("openssl", "default", "hash", "sha256", 1 << 20, samples=60,
                         target_sample_ms=20.0)  # fmt: skip
    db = Store.open(path)
    run_id = db.create_run(
        suite="test",
        settings={"timeout_s": 60},
        argv=["cryptobench"],
        versions={"cryptobench": "0", "runner": "r", "runner_version": "0", "runner_path": ""},
        machine=caps.machine,
        libraries=[],
        cases=[case],
    )
    db.set_status(run_id, "interrupted")
    db.close()
    return run_id


def test_two_resumes_started_together_do_not_both_measure(tmp_path, native_runner):
    path = tmp_path / "r.db"
    run_id = _stopped_run(path, native_runner)
    argv = [sys.executable, "-m", "cryptobench", "run", "--resume", str(run_id), "--db",
            str(path), "--no-pin"]  # fmt: skip
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]  # fmt: skip
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    statuses = sorted(status for status, _ in results)
    assert statuses == [0, 1], results
    loser = next(err for status, err in results if status == 1)
    assert "is being measured right now" in loser or "is already complete" in loser
    db = Store.open(path)
    assert db.run(run_id).status == "complete"
    assert len(db.cases(run_id)[0]["samples"]) == 60  # measured once, not twice


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_a_second_run_does_not_pin_to_a_cpu_another_runs_runner_holds(native_runner, monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    last = allowed[-1]
    holder = subprocess.Popen([str(native_runner), "serve", "--cpu", str(last)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    scan = lifecycle._pinned_runner_cpus
    try:
        holder.stdout.readline()  # hello: it is up and pinned
        assert last in scan()  # the scan of every process finds it
        # Only the holder from here on: other runs on this machine (another test worker, a
        # measurement) may hold CPUs of their own, which this test cannot know.
        monkeypatch.setattr(lifecycle, "_pinned_runner_cpus", lambda: scan([holder.pid]))
        args, note = lifecycle.runner_pinning(None, False)
        assert args == ["--cpu", str(allowed[-2])]
        assert f"CPU {last} is taken" in note
        args, warning = lifecycle.runner_pinning(last, False)
        assert args == ["--cpu", str(last)] and "pinned to CPU" in warning
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    assert lifecycle.runner_pinning(None, False) == (["--cpu", str(last)], "")


def test_claiming_a_run_is_atomic(tmp_path, native_runner):
    """Check-then-act under the database's write lock: while one process checks whether a run
    is free (slowly), another that checks at the same time must wait and then see it taken."""
    import threading
    import time

    from cryptobench.errors import UserError

    path = tmp_path / "r.db"
    run_id = _stopped_run(path, native_runner)
    outcomes: list[str] = []

    def claim() -> None:
        db = Store.open(path)
        try:
            db.claim_run(run_id, lambda info: (time.sleep(0.3), info.status == "running")[1])
            outcomes.append("claimed")
        except UserError as e:
            outcomes.append(str(e))
        finally:
            db.close()

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == ["claimed", f"run {run_id} is being measured right now (process "
                                           f"{os.getpid()})"]  # fmt: skip


def test_sampling_past_the_check_of_the_timed_instance_keeps_working(tmp_path):
    """Adaptive sampling asks for more samples than `samples`, after the runner has checked the
    timed instance; an in-place AEAD decryption must still meet its own tag afterwards."""
    from cryptobench import cli

    suite = tmp_path / "s.toml"
    suite.write_text(
        'providers = ["openssl"]\nalgorithms = ["aes-256-gcm", "chacha20-poly1305"]\n'
        'operations = ["decrypt"]\nsizes = [16, 1024]\nsamples = 3\nmin_samples = 3\n'
        "max_samples = 9\nci_target = 0.000001\ntarget_sample_ms = 0.2\n"
    )
    db = tmp_path / "r.db"
    assert cli.main(["run", "--suite", str(suite), "--db", str(db), "--no-pin"]) == 0
    cases = [c for c in Store.open(db).cases(1) if c["provider"] == "openssl"]
    assert [c["status"] for c in cases] == ["ok"] * 4, [c["reason"] for c in cases]
    assert all(len(c["samples"]) == 9 for c in cases)  # extended to the cap, past `samples`
