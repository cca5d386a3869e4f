"""What only the Go runner (runners/go) has: the Go version in its record, golang.org/x/crypto's
version, and variants that hide CPU features from the Go runtime through GODEBUG (one runtime, so
one variant for both providers). What every runner owes the protocol is in
test_runner_protocol.py."""

import json
import os

import pytest
from runner_harness import capabilities, run, runner_exe

RUNNER = "cryptobench-runner-go"


@pytest.fixture(scope="module")
def go_runner():
    return runner_exe(RUNNER)


def test_list_records_the_go_version_and_x_crypto_version(go_runner):
    caps = capabilities(go_runner)
    assert caps["machine"]["go_version"].startswith("go1.")
    go_x = next(p for p in caps["providers"] if p["name"] == "go-x")
    assert go_x["version"].startswith("golang.org/x/crypto v")


def test_a_variant_hides_cpu_features_from_the_go_runtime(go_runner):
    """--variant re-executes the runner with GODEBUG set; both providers share the runtime, so
    both report the variant, and the code path shows the hidden features as absent. (Measuring
    in a served variant: test_runner_protocol.py.)"""
    done = run(go_runner, "list", "--variant", "go=soft")
    assert done.returncode == 0, done.stderr
    caps = json.loads(done.stdout)
    for p in caps["providers"]:
        assert p["variant"] == "soft"
        assert [v["name"] for v in p["variants"]] == ["default", "soft", "noaesni"]
        assert p["code_path"]["godebug"] == "cpu.all=off"
        assert p["code_path"]["aes"] == "no" and p["code_path"]["avx2"] == "no"


def test_without_variant_a_caller_godebug_cpu_setting_is_undone(go_runner):
    default = capabilities(go_runner)["providers"][0]["code_path"]
    done = run(go_runner, "list", env={**os.environ, "GODEBUG": "cpu.all=off,madvdontneed=1"})
    assert done.returncode == 0, done.stderr
    path = json.loads(done.stdout)["providers"][0]
    assert path["variant"] == "default"
    assert path["code_path"]["aes"] == default["aes"]
    assert path["code_path"]["godebug"] == "madvdontneed=1"  # the non-cpu entries are kept


def test_one_runner_runs_one_variant(go_runner):
    done = run(go_runner, "list", "--variant", "go=soft", "--variant", "go-x=default")
    assert done.returncode == 2
    assert "use separate runners" in done.stderr.splitlines()[0]
