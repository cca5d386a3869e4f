"""What only the Python runner (runners/python) has: the interpreter and the OpenSSL pyca bundles
in its record (and no TSC), pycryptodome without argon2id, the check of the timed instance after
sampling, how a result was measured, and its variants: pyca's OpenSSL masked by environment,
pycryptodome's AES-NI by its flag. What every runner owes the protocol is in
test_runner_protocol.py."""

import json
import os
import subprocess

import pytest
from protocol_schema import check
from runner_harness import (
    MATERIAL,
    REPO,
    Served,
    capabilities,
    measure_tiny,
    run,
    runner_exe,
    tiny_case,
)

from cryptobench import gate

RUNNER = "cryptobench-runner-python"
PROVIDERS = ("pyca", "pycryptodome")


@pytest.fixture(scope="module")
def py_runner():
    return runner_exe(RUNNER)


def test_list_records_the_interpreter_and_pycas_openssl(py_runner):
    caps = capabilities(py_runner)
    assert caps["machine"]["python"].startswith("CPython 3.")
    assert caps["machine"]["tsc_hz"] is None  # no TSC from Python, and the record says so
    providers = {p["name"]: p for p in caps["providers"]}
    assert "OpenSSL" in providers["pyca"]["version"]  # the OpenSSL cryptography bundles
    assert providers["pyca"]["code_path"]["openssl"].startswith("OpenSSL")


def test_an_agreement_pycryptodome_cannot_compute_is_unsupported(py_runner):
    with Served(py_runner) as served:
        case = tiny_case("pycryptodome", "argon2id", "derive", 16, cost={"t": 1, "m": 64, "p": 1})
        argon = served.agreement(case, MATERIAL)
        served.close()
    assert argon["status"] == "unsupported"


DRIFT = """
import json, sys
from cryptobench_pyrunner import engine, protocol, providers

name, alg, op, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
params = json.loads(sys.argv[5])  # the coordinator's, as open sends them
real = providers.provider_by_name(name)
prepare = real.prepare

def drifting(algorithm, operation, params):
    inner, runs = prepare(algorithm, operation, params), [0]
    def run(data):
        runs[0] += 1
        out = inner(data)
        # after 5 runs of one prepared instance, one bit of its output goes wrong
        return out if runs[0] <= 5 else bytes([out[0] ^ 1]) + out[1:]
    return run

real.prepare = drifting
spec = protocol.parse_case({"id": "d", "provider": name, "operation": op, "algorithm": alg,
    "size": size, "samples": 3, "target_sample_ms": 0.5, "warmup_ms": 1}, "case")
c = engine.OpenCase(spec, params)
while c.status == "ok" and len(c.samples) < 3:
    c.sample()
print(json.dumps(protocol.result_message(c)))
"""


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("algorithm", "operation", "size"), [("aes-256-gcm", "encrypt", 64), ("sha256", "hash", 64)]
)
def test_a_timed_instance_that_goes_wrong_after_the_gate_fails_its_case(
    py_runner, provider, algorithm, operation, size
):
    """The gate and the reference use fresh instances; the timed one drifts after 5 runs (far
    fewer than warm-up and calibration take), so only the check after sampling can catch it."""
    python = REPO / "runners" / "python" / ".venv" / "bin" / "python"
    info = next(a for a in capabilities(py_runner)["algorithms"] if a["name"] == algorithm)
    params = gate.case_params(info, {"seed": 1}, gate.Vectors()).to_json()
    done = subprocess.run(
        [str(python), "-c", DRIFT, provider, algorithm, operation, str(size), json.dumps(params)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "runners" / "python")},
    )
    assert done.returncode == 0, done.stderr
    result = check(json.loads(done.stdout))
    assert result["status"] == "failed"
    assert result["reason"].startswith("check of the timed instance after sampling: ")
    assert "differs from the gated instance's (byte 0)" in result["reason"]
    assert result["gate"]["timed"] == "failed"
    assert "samples" not in result


def test_a_result_says_how_the_case_was_measured(py_runner):
    with Served(py_runner) as served:
        result = measure_tiny(served, tiny_case("pyca", "aes-256-gcm", "decrypt", 64))
    assert result["gate"]["timed"] == "output equals the gated instance's"
    assert result["layout"]["inplace"] is False and "out of place" in result["layout"]["note"]
    assert isinstance(result["rewarms"], int)


def test_variants_switch_pycas_openssl_by_environment_and_pycryptodome_by_its_flag(py_runner):
    done = run(py_runner, "list", "--variant", "pyca=soft", "--variant", "pycryptodome=noaesni")
    assert done.returncode == 0, done.stderr
    providers = {p["name"]: p for p in json.loads(done.stdout)["providers"]}
    # pyca's OpenSSL read the mask at load: the runner re-executed itself with it set.
    assert providers["pyca"]["variant"] == "soft"
    assert providers["pyca"]["code_path"]["OPENSSL_ia32cap"] == "~0x200000200000000"
    assert [v["name"] for v in providers["pyca"]["variants"]] == ["default", "soft"]
    assert providers["pycryptodome"]["variant"] == "noaesni"
    assert providers["pycryptodome"]["code_path"]["aes_ni_used"] == "no"
    env = {**os.environ, "OPENSSL_ia32cap": "~0x200000200000000"}
    done = run(py_runner, "list", env=env)
    default = {p["name"]: p for p in json.loads(done.stdout)["providers"]}["pyca"]
    assert default["variant"] == "default" and default["code_path"]["OPENSSL_ia32cap"] == ""
    # (measuring in a served variant and refusing an unknown one: test_runner_protocol.py)


FLIPPING = """
import sys
from cryptobench_pyrunner import providers, serve

real = providers.provider_by_name(sys.argv[1])
prepare = real.prepare

def flipping(algorithm, operation, params):
    inner = prepare(algorithm, operation, params)
    def run(data):
        out = inner(data)  # one bit of every output is wrong
        return bytes([out[0] ^ 1]) + out[1:] if isinstance(out, bytes) and out else out
    return run

real.prepare = flipping
sys.exit(serve.serve(sys.stdin, sys.stdout, None))
"""


@pytest.mark.parametrize(
    ("algorithm", "operation", "size"), [("aes-256-gcm", "encrypt", 64), ("ed25519", "sign", 64)]
)
def test_the_coordinators_gate_refuses_a_real_provider_with_wrong_output(
    py_runner, algorithm, operation, size
):
    """pyca with one bit of every output flipped, served as the runner serves: the coordinator's
    known-answer steps catch it before anything is timed."""
    python = REPO / "runners" / "python" / ".venv" / "bin" / "python"
    info = next(a for a in capabilities(py_runner)["algorithms"] if a["name"] == algorithm)
    env = {**os.environ, "PYTHONPATH": str(REPO / "runners" / "python")}
    with subprocess.Popen(
        [str(python), "-c", FLIPPING, "pyca"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        assert json.loads(proc.stdout.readline())["type"] == "hello"

        def send(steps):
            case = tiny_case("pyca", algorithm, operation, size)
            proc.stdin.write(json.dumps({"cmd": "steps", "case": case, "steps": steps}) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline())

        gated = gate.gate_case(
            send, info, tiny_case("pyca", algorithm, operation, size), gate.Vectors(), set()
        )
        proc.stdin.close()
    assert gated.status == "failed"
    assert gated.reason.startswith("known-answer test ") and "failed for pyca" in gated.reason
