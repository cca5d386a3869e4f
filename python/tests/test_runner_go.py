"""The Go runner (runners/go), driven through the protocol: its catalogue is the native one, a
tiny gated case measures on each provider, its gate refuses a corrupted known answer, and its
agreement artifacts equal an independent implementation's (pyca/cryptography in this process)."""

import hashlib
import json
import os
import subprocess

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from runner_harness import (
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

RUNNER = "cryptobench-runner-go"
MATERIAL = {
    "key": bytes(range(32)).hex(),
    "iv": bytes(range(100, 112)).hex(),
    "aad": "",
    "input": (b"cryptobench agreement input " * 146)[:4096].hex(),
    "salt": bytes(16).hex(),
}


@pytest.fixture(scope="module")
def go_runner():
    return runner_exe(RUNNER)


def test_list_offers_native_catalogue_entries_and_records_the_go_version(go_runner, native_runner):
    caps = capabilities(go_runner)
    native = native_catalogue(native_runner)
    assert caps["runner"] == RUNNER
    assert caps["machine"]["go_version"].startswith("go1.")
    assert {p["name"] for p in caps["providers"]} == {"go", "go-x"}
    for alg in caps["algorithms"]:
        assert alg == native[alg["name"]], alg["name"]
    offered = {a["name"] for p in caps["providers"] for a in p["algorithms"]}
    assert {
        "aes-256-gcm",
        "sha256",
        "ed25519",
        "x25519",
        "chacha20-poly1305",
        "argon2id",
    } <= offered
    go_x = next(p for p in caps["providers"] if p["name"] == "go-x")
    assert go_x["version"].startswith("golang.org/x/crypto v")


@pytest.mark.parametrize(
    ("provider", "algorithm", "operation", "size"),
    [
        ("go", "aes-256-gcm", "decrypt", 1024),
        ("go-x", "chacha20-poly1305", "encrypt", 1024),
        ("go", "ed25519", "verify", 64),
        ("go-x", "argon2id", "derive", 16),
    ],
)
def test_a_tiny_gated_case_measures(go_runner, provider, algorithm, operation, size):
    extra = {"cost": {"t": 1, "m": 64, "p": 1}} if algorithm == "argon2id" else {}
    with Served(go_runner) as served:
        assert served.hello["runner"] == RUNNER
        result = measure_tiny(served, tiny_case(provider, algorithm, operation, size, **extra))
        assert served.close()["ok"] == 1
    assert result["gate"]["kat"].startswith("passed")
    assert result["gate"]["roundtrip"] == "passed"
    assert result["summary"]["n"] == 3 and result["summary"]["median_ns"] > 0
    assert result["samples"][0]["ticks"] > 0  # the TSC is read on amd64
    assert {"allocs_per_op", "bytes_per_op"} <= set(result["heap"])


def test_the_gate_refuses_a_provider_that_fails_a_known_answer(go_runner, tmp_path):
    vectors = corrupted_vectors(tmp_path, "aes-gcm", "tag")
    with Served(go_runner, "--vectors", str(vectors)) as served:
        case = tiny_case("go", "aes-128-gcm", "encrypt", 64)
        opened = served.send({"cmd": "open", "case": case})
    assert opened["status"] == "failed"
    assert "known-answer test" in opened["reason"] and "failed for go" in opened["reason"]


def test_agreement_artifacts_equal_an_independent_implementation(go_runner):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    with Served(go_runner) as served:

        def artifacts(provider, algorithm, operation, size=4096):
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

        gcm = artifacts("go", "aes-256-gcm", "encrypt")["ciphertext"]
        chacha = artifacts("go-x", "chacha20-poly1305", "decrypt")["ciphertext"]
        digest = artifacts("go", "sha256", "hash")["digest"]
        signature = artifacts("go", "ed25519", "sign", 4096)["signature"]
    assert gcm == AESGCM(key).encrypt(iv, data, None).hex()
    assert chacha == ChaCha20Poly1305(key).encrypt(iv, data, None).hex()
    assert digest == hashlib.sha256(data).hexdigest()
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv"))
    assert signature == signer.sign(data).hex()


def test_cross_check_accepts_a_good_peer_and_blames_a_bad_one(go_runner):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    good = AESGCM(key).encrypt(iv, data, None)
    bad = bytearray(good)
    bad[10] ^= 1
    with Served(go_runner) as served:
        reply = served.send(
            {
                "cmd": "cross_check",
                "material": MATERIAL,
                "case": tiny_case("go", "aes-256-gcm", "decrypt", 4096),
                "peers": {
                    "good/default": {"ciphertext": good.hex()},
                    "bad/default": {"ciphertext": bytes(bad).hex()},
                },
            }
        )
    assert reply["type"] == "cross_check"
    assert reply["verdicts"]["good/default"] == {"ok": True, "reason": ""}
    assert reply["verdicts"]["bad/default"]["ok"] is False


def test_unsupported_pairs_and_bad_requests(go_runner):
    with Served(go_runner) as served:
        xts = served.send({"cmd": "open", "case": tiny_case("go", "aes-256-xts", "encrypt", 64)})
        other = served.send({"cmd": "open", "case": tiny_case("openssl", "sha256", "hash", 64)})
        junk = served.send("not json")
        assert served.close()["unsupported"] == 1
    assert xts["status"] == "unsupported" and "does not offer" in xts["reason"]
    assert other["type"] == "error" and "unknown provider 'openssl'" in other["message"]
    assert junk["type"] == "error"


def test_a_bad_command_line_is_one_line_and_status_2(go_runner):
    done = run(go_runner, "serve", "--cpu", "many")
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        done.stderr.splitlines()[0] == "cryptobench-runner-go: --cpu takes a CPU number, got 'many'"
    )


def test_a_variant_hides_cpu_features_from_the_go_runtime(go_runner):
    """--variant re-executes the runner with GODEBUG set; both providers share the runtime, so
    both report the variant, and the code path shows the hidden features as absent."""
    done = run(go_runner, "list", "--variant", "go=soft")
    assert done.returncode == 0, done.stderr
    caps = json.loads(done.stdout)
    for p in caps["providers"]:
        assert p["variant"] == "soft"
        assert [v["name"] for v in p["variants"]] == ["default", "soft", "noaesni"]
        assert p["code_path"]["godebug"] == "cpu.all=off"
        assert p["code_path"]["aes"] == "no" and p["code_path"]["avx2"] == "no"
    with Served(go_runner, "--variant", "go-x=noaesni") as served:
        assert served.hello["variants"] == {"go": "noaesni", "go-x": "noaesni"}
        result = measure_tiny(
            served, tiny_case("go", "aes-256-gcm", "encrypt", 1024, variant="noaesni")
        )
        other = served.send(
            {"cmd": "open", "case": tiny_case("go", "sha256", "hash", 64, variant="default")}
        )
        served.close()
    assert result["variant"] == "noaesni" and result["gate"]["roundtrip"] == "passed"
    assert other["status"] == "unsupported" and "--variant go=default" in other["reason"]


def test_without_variant_a_caller_godebug_cpu_setting_is_undone(go_runner):
    default = capabilities(go_runner)["providers"][0]["code_path"]
    done = subprocess.run(
        [str(go_runner), "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GODEBUG": "cpu.all=off,madvdontneed=1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    path = json.loads(done.stdout)["providers"][0]
    assert path["variant"] == "default"
    assert path["code_path"]["aes"] == default["aes"]
    assert path["code_path"]["godebug"] == "madvdontneed=1"  # the non-cpu entries are kept


def test_one_runner_runs_one_variant(go_runner):
    done = run(go_runner, "list", "--variant", "go=soft", "--variant", "go-x=default")
    assert done.returncode == 2
    assert "use separate runners" in done.stderr.splitlines()[0]
    done = run(go_runner, "list", "--variant", "go=fast")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].endswith("has no variant 'fast' (default, soft, noaesni)")
