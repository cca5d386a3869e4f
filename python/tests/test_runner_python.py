"""The Python runner (runners/python), driven through the protocol: its catalogue is the native
one, a tiny gated case measures on each provider, its gate refuses a corrupted known answer, and
its agreement artifacts equal an independent implementation's (Python's hashlib and the test
environment's own cryptography, a different install from the runner's pinned one)."""

import hashlib
import hmac
import json
import os
import subprocess

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from runner_harness import (
    REPO,
    Served,
    capabilities,
    corrupted_vectors,
    key_part,
    measure_tiny,
    native_catalogue,
    run,
    runner_exe,
    tiny_case,
)

RUNNER = "cryptobench-runner-python"
PROVIDERS = ("pyca", "pycryptodome")
MATERIAL = {
    "key": bytes(range(32)).hex(),
    "iv": bytes(range(100, 112)).hex(),
    "aad": "",
    "input": (b"cryptobench agreement input " * 146)[:4096].hex(),
    "salt": bytes(16).hex(),
}


@pytest.fixture(scope="module")
def py_runner():
    return runner_exe(RUNNER)


def test_list_offers_native_catalogue_entries_and_records_versions(py_runner, native_runner):
    caps = capabilities(py_runner)
    native = native_catalogue(native_runner)
    assert caps["runner"] == RUNNER
    assert caps["machine"]["python"].startswith("CPython 3.")
    assert caps["machine"]["tsc_hz"] is None  # no TSC from Python, and the record says so
    for alg in caps["algorithms"]:
        assert alg == native[alg["name"]], alg["name"]
    providers = {p["name"]: p for p in caps["providers"]}
    assert set(providers) == set(PROVIDERS)
    assert "OpenSSL" in providers["pyca"]["version"]  # the OpenSSL cryptography bundles
    assert providers["pyca"]["code_path"]["openssl"].startswith("OpenSSL")
    for name in PROVIDERS:
        offered = {a["name"] for a in providers[name]["algorithms"]}
        assert {"aes-256-gcm", "chacha20-poly1305", "sha256", "ed25519", "x25519"} <= offered


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("algorithm", "operation", "size"),
    [
        ("aes-256-gcm", "decrypt", 1024),
        ("sha256", "hash", 16),
        ("x25519", "derive", 0),
        ("ed25519", "sign", 64),
    ],
)
def test_a_tiny_gated_case_measures(py_runner, provider, algorithm, operation, size):
    with Served(py_runner) as served:
        assert served.hello["runner"] == RUNNER
        result = measure_tiny(served, tiny_case(provider, algorithm, operation, size))
        assert served.close()["ok"] == 1
    assert result["gate"]["kat"].startswith("passed")
    assert result["gate"]["roundtrip"] == "passed"
    assert result["summary"]["n"] == 3 and result["summary"]["median_ns"] > 0
    assert result["heap"]["bytes_per_op"] > 0  # tracemalloc sees at least the result object


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_gate_refuses_a_provider_that_fails_a_known_answer(py_runner, provider, tmp_path):
    vectors = corrupted_vectors(tmp_path, "sha2", "digest")
    with Served(py_runner, "--vectors", str(vectors)) as served:
        opened = served.send({"cmd": "open", "case": tiny_case(provider, "sha224", "hash", 64)})
    assert opened["status"] == "failed"
    assert f"failed for {provider}" in opened["reason"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_agreement_artifacts_equal_an_independent_implementation(py_runner, provider):
    key, data = bytes.fromhex(MATERIAL["key"]), bytes.fromhex(MATERIAL["input"])
    with Served(py_runner) as served:

        def artifacts(algorithm, operation, size=4096):
            reply = served.send(
                {
                    "cmd": "agreement",
                    "material": MATERIAL,
                    "case": tiny_case(provider, algorithm, operation, size),
                }
            )
            assert reply["status"] == "ok", reply
            assert reply["kat"]["ok"] is True
            return reply["artifacts"]

        digest = artifacts("sha3-256", "hash")["digest"]
        mac = artifacts("hmac-sha256", "mac")["mac"]
        signature = artifacts("ed25519", "sign")["signature"]
        secret = artifacts("x25519", "derive", 0)["secret"]
        generated = artifacts("x25519", "keygen", 0)["generated"]
    assert digest == hashlib.sha3_256(data).hexdigest()
    assert mac == hmac.new(key, data, "sha256").hexdigest()
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv"))
    assert signature == signer.sign(data).hex()
    own = x25519.X25519PrivateKey.from_private_bytes(key_part("x25519", "priv"))
    peer = x25519.X25519PublicKey.from_public_bytes(key_part("x25519-peer", "pub"))
    assert secret == own.exchange(peer).hex()
    fresh = x25519.X25519PrivateKey.from_private_bytes(bytes.fromhex(generated["priv"]))
    assert fresh.public_key().public_bytes_raw().hex() == generated["pub"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cross_check_accepts_a_good_peer_and_blames_a_bad_one(py_runner, provider):
    data = bytes.fromhex(MATERIAL["input"])
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv"))
    good = signer.sign(data)
    bad = bytearray(good)
    bad[5] ^= 1
    with Served(py_runner) as served:
        reply = served.send(
            {
                "cmd": "cross_check",
                "material": MATERIAL,
                "case": tiny_case(provider, "ed25519", "verify", 4096),
                "peers": {
                    "good/default": {"signature": good.hex()},
                    "bad/default": {"signature": bytes(bad).hex()},
                },
            }
        )
    assert reply["verdicts"]["good/default"] == {"ok": True, "reason": ""}
    assert reply["verdicts"]["bad/default"]["ok"] is False


def test_unsupported_pairs_and_bad_requests(py_runner):
    with Served(py_runner) as served:
        xts = served.send(
            {"cmd": "open", "case": tiny_case("pycryptodome", "aes-256-xts", "encrypt", 64)}
        )
        argon = served.send(
            {
                "cmd": "agreement",
                "material": MATERIAL,
                "case": tiny_case(
                    "pycryptodome", "argon2id", "derive", 16, cost={"t": 1, "m": 64, "p": 1}
                ),
            }
        )
        other = served.send({"cmd": "open", "case": tiny_case("go", "sha256", "hash", 64)})
        junk = served.send("not json")
        assert served.close()["unsupported"] == 1
    assert xts["status"] == "unsupported" and "does not offer" in xts["reason"]
    assert argon["status"] == "unsupported"
    assert other["type"] == "error" and "unknown provider 'go'" in other["message"]
    assert junk["type"] == "error"


def test_a_bad_command_line_is_one_line_and_status_2(py_runner):
    done = run(py_runner, "serve", "--cpu", "many")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("cryptobench-runner-python: ")


DRIFT = """
import json, sys
from cryptobench_pyrunner import engine, protocol, providers

name, alg, op, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
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
c = engine.OpenCase(spec)
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
    done = subprocess.run(
        [str(python), "-c", DRIFT, provider, algorithm, operation, str(size)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "runners" / "python")},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
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
    done = subprocess.run(
        [str(py_runner), "list"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    default = {p["name"]: p for p in json.loads(done.stdout)["providers"]}["pyca"]
    assert default["variant"] == "default" and default["code_path"]["OPENSSL_ia32cap"] == ""
    with Served(py_runner, "--variant", "pycryptodome=noaesni") as served:
        assert served.hello["variants"] == {"pyca": "default", "pycryptodome": "noaesni"}
        case = tiny_case("pycryptodome", "aes-256-gcm", "decrypt", 1024, variant="noaesni")
        result = measure_tiny(served, case)
        other = served.send(
            {"cmd": "open", "case": tiny_case("pyca", "sha256", "hash", 64, variant="soft")}
        )
        served.close()
    assert result["variant"] == "noaesni" and result["gate"]["roundtrip"] == "passed"
    assert other["status"] == "unsupported" and "--variant pyca=soft" in other["reason"]
    done = run(py_runner, "list", "--variant", "pyca=noaesni")
    assert done.returncode == 2 and "pyca has no variant 'noaesni' (default, soft)" in done.stderr
