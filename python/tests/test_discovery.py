"""Finding every runner: the native one, `cryptobench-runner-*` beside it and in
$CRYPTOBENCH_RUNNERS. The runners here are small shell scripts: one that fails its `list` (as a
runner without its JDK would), and one that serves the test provider `fault` through the real
native runner (standing in for a runner in another language)."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cryptobench import runner
from cryptobench.plan import CaseSpec


def script(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_runner_that_fails_its_list_is_absent_with_its_reason(
    native_runner, tmp_path, monkeypatch
):
    script(
        tmp_path,
        "cryptobench-runner-broken",
        'echo "no JDK found (install openjdk-17)" >&2; exit 3',
    )
    monkeypatch.setenv("CRYPTOBENCH_RUNNERS", f"{tmp_path}:/nonexistent")
    caps = runner.discover()
    assert "openssl" in caps.providers  # the native run is unaffected
    assert "no JDK found" in caps.absent["cryptobench-runner-broken"]
    assert caps.raw["absent_runners"] == caps.absent


def test_providers_of_another_runner_are_measured_by_that_runner(
    native_runner, tmp_path, monkeypatch
):
    # The twin runs the native runner with the test provider on: it offers `fault` (new) and the
    # nine libraries again (names that collide, so the native runner keeps them).
    twin = script(
        tmp_path,
        "cryptobench-runner-twin",
        f'CRYPTOBENCH_TEST_PROVIDERS=1 exec {native_runner} "$@"',
    )
    monkeypatch.setenv("CRYPTOBENCH_RUNNERS", str(tmp_path))
    caps = runner.discover()
    assert caps.runner_of["fault"] == str(twin)
    assert caps.runner_of["openssl"] == str(native_runner)
    assert any("already served by" in why for why in caps.absent.values())
    assert not os.environ.get("CRYPTOBENCH_TEST_PROVIDERS")
    cases = [
        CaseSpec(p, "default", "hash", "sha256", 1024, samples=2, batch=1, target_sample_ms=0.2,
                 warmup_ms=1)
        for p in ("fault", "openssl")
    ]  # fmt: skip
    outcomes = []
    runner.Measurement(
        native_runner,
        list(enumerate(cases, 1)),
        60,
        outcomes.append,
        caps=caps,  # its runner_of says which runner serves which provider
    ).run()
    by_provider = {o.case.provider: o for o in outcomes}
    assert by_provider["fault"].status == "ok", by_provider["fault"].reason
    assert by_provider["openssl"].status == "ok", by_provider["openssl"].reason
    assert by_provider["openssl"].gate["agreement"] == "agrees with fault/default"


def test_runner_selects_every_provider_of_one_runner_and_nothing_of_an_absent_one(
    native_runner, tmp_path, monkeypatch
):
    from cryptobench.plan import ANY_VARIANT, resolve_providers

    script(
        tmp_path,
        "cryptobench-runner-twin",
        f'CRYPTOBENCH_TEST_PROVIDERS=1 exec {native_runner} "$@"',
    )
    monkeypatch.setenv("CRYPTOBENCH_RUNNERS", str(tmp_path))
    caps = runner.discover()
    assert caps.runner_name("fault") == "twin" and caps.runner_name("openssl") == "native"
    twin = resolve_providers(["runner:twin"], caps)
    assert twin == [("fault", ANY_VARIANT)]  # without a variant: chosen per algorithm
    native = {p for p, _ in resolve_providers(["runner:native"], caps)}
    assert "openssl" in native and "fault" not in native
    assert ("openssl", "soft") in resolve_providers(["runner:native/all"], caps)
    assert resolve_providers(["runner:notbuilt", "runner:notbuilt/all"], caps) == []


@pytest.mark.parametrize(("ci", "outcome"), [("true", "failed"), ("", "skipped")])
def test_a_test_needing_an_absent_runner_skips_here_and_fails_on_ci(ci, outcome, tmp_path):
    """runner_harness.runner_exe: locally a missing toolchain skips with its reason; on CI
    (CI=true, as .ci/run sets it) every runner must be built, so the same test fails."""
    (tmp_path / "test_needs_runner.py").write_text(
        "from runner_harness import runner_exe\n\n"
        "def test_it():\n    runner_exe('cryptobench-runner-notbuilt')\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CI": ci, "PYTHONPATH": str(Path(__file__).parent)},
        check=False,
    )
    assert f"1 {outcome}" in done.stdout, done.stdout
    assert "cryptobench-runner-notbuilt is absent" in done.stdout + done.stderr
