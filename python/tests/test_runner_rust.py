"""The Rust runner (runners/rust), driven through the protocol: its catalogue is the native one, a
tiny gated case measures on each provider (ring, aws-lc-rs, rustcrypto), its gate refuses a
corrupted known answer, and its agreement artifacts equal an independent implementation's
(pyca/cryptography in this process)."""

import hashlib
import json
import os
import subprocess

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
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

RUNNER = "cryptobench-runner-rust"
PROVIDERS = ("ring", "aws-lc-rs", "rustcrypto")
MATERIAL = {
    "key": bytes(range(32)).hex(),
    "iv": bytes(range(100, 112)).hex(),
    "aad": "",
    "input": (b"cryptobench agreement input " * 146)[:4096].hex(),
    "salt": bytes(16).hex(),
}


@pytest.fixture(scope="module")
def rust_runner():
    return runner_exe(RUNNER)


def test_list_offers_native_catalogue_entries_and_records_the_build(rust_runner, native_runner):
    caps = capabilities(rust_runner)
    native = native_catalogue(native_runner)
    assert caps["runner"] == RUNNER
    build = caps["machine"]["rust"]
    assert build["rustc"].startswith("rustc 1.") and build["profile"] == "release"
    assert build["target"].endswith("linux-gnu") and "sse2" in build["target_features"]
    assert {p["name"] for p in caps["providers"]} == set(PROVIDERS)
    for alg in caps["algorithms"]:
        assert alg == native[alg["name"]], alg["name"]
    for p in caps["providers"]:
        offered = {a["name"] for a in p["algorithms"]}
        assert {"aes-256-gcm", "chacha20-poly1305", "sha256", "ed25519"} <= offered, p["name"]
        for a in p["algorithms"]:
            assert a["operations"] == native[a["name"]]["operations"]
    versions = {p["name"]: p["version"] for p in caps["providers"]}
    assert versions["ring"].startswith("ring 0.17.")
    assert (
        versions["aws-lc-rs"].startswith("aws-lc-rs 1.") and "aws-lc-sys" in versions["aws-lc-rs"]
    )
    assert "aes-gcm 0.11." in versions["rustcrypto"]


@pytest.mark.parametrize(
    ("provider", "algorithm", "operation", "size"),
    [
        ("ring", "aes-256-gcm", "decrypt", 1024),
        ("ring", "sha256", "hash", 1024),
        ("aws-lc-rs", "aes-256-gcm", "encrypt", 1024),
        ("aws-lc-rs", "x25519", "derive", 0),
        ("rustcrypto", "chacha20-poly1305", "encrypt", 1024),
        ("rustcrypto", "ed25519", "verify", 64),
    ],
)
def test_a_tiny_gated_case_measures(rust_runner, provider, algorithm, operation, size):
    with Served(rust_runner) as served:
        assert served.hello["runner"] == RUNNER
        result = measure_tiny(served, tiny_case(provider, algorithm, operation, size))
        assert served.close()["ok"] == 1
    assert result["gate"]["kat"].startswith("passed")
    assert result["gate"]["roundtrip"] == "passed"
    assert result["gate"]["timed"].startswith("output equals the gated instance's")
    assert result["summary"]["n"] == 3 and result["summary"]["median_ns"] > 0
    assert result["samples"][0]["ticks"] > 0  # the TSC is read on x86-64
    assert {"allocs_per_op", "frees_per_op", "bytes_per_op", "peak_live_bytes"} <= set(
        result["heap"]
    )


def test_an_aead_runs_in_place_without_allocating(rust_runner):
    """In place is the default for AEADs; the counting allocator sees no allocation per
    operation in aws-lc-rs's or RustCrypto's AES-GCM."""
    with Served(rust_runner) as served:
        results = [
            measure_tiny(served, tiny_case(p, "aes-256-gcm", "encrypt", 4096))
            for p in ("aws-lc-rs", "rustcrypto")
        ]
    for r in results:
        assert r["layout"]["inplace"] is True and r["layout"]["distance"] == 0
        assert r["heap"]["allocs_per_op"] == 0.0


def test_the_gate_refuses_a_provider_that_fails_a_known_answer(rust_runner, tmp_path):
    vectors = corrupted_vectors(tmp_path, "aes-gcm", "tag")
    with Served(rust_runner, "--vectors", str(vectors)) as served:
        opened = {
            p: served.send({"cmd": "open", "case": tiny_case(p, "aes-128-gcm", "encrypt", 64)})
            for p in PROVIDERS
        }
    for p, reply in opened.items():
        assert reply["status"] == "failed", p
        assert "known-answer test" in reply["reason"] and f"failed for {p}" in reply["reason"]


def test_agreement_artifacts_equal_an_independent_implementation(rust_runner):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv"))
    peer = x25519.X25519PublicKey.from_public_bytes(key_part("x25519-peer", "pub"))
    secret = x25519.X25519PrivateKey.from_private_bytes(key_part("x25519", "priv")).exchange(peer)
    with Served(rust_runner) as served:

        def artifacts(provider, algorithm, operation, size=4096):
            reply = served.send(
                {
                    "cmd": "agreement",
                    "material": MATERIAL,
                    "case": tiny_case(provider, algorithm, operation, size),
                }
            )
            assert reply["status"] == "ok", reply
            assert reply["kat"]["ok"] is True, reply["kat"]
            return reply["artifacts"]

        for p in PROVIDERS:
            gcm = artifacts(p, "aes-256-gcm", "encrypt")["ciphertext"]
            chacha = artifacts(p, "chacha20-poly1305", "decrypt")["ciphertext"]
            digest = artifacts(p, "sha256", "hash")["digest"]
            signature = artifacts(p, "ed25519", "sign")["signature"]
            assert gcm == AESGCM(key).encrypt(iv, data, None).hex(), p
            assert chacha == ChaCha20Poly1305(key).encrypt(iv, data, None).hex(), p
            assert digest == hashlib.sha256(data).hexdigest(), p
            assert signature == signer.sign(data).hex(), p
        for p in ("aws-lc-rs", "rustcrypto"):
            assert artifacts(p, "x25519", "derive", 0)["secret"] == secret.hex(), p


def test_cross_check_accepts_a_good_peer_and_blames_a_bad_one(rust_runner):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    good = AESGCM(key).encrypt(iv, data, None)
    bad = bytearray(good)
    bad[10] ^= 1
    with Served(rust_runner) as served:
        replies = [
            served.send(
                {
                    "cmd": "cross_check",
                    "material": MATERIAL,
                    "case": tiny_case(p, "aes-256-gcm", "decrypt", 4096),
                    "peers": {
                        "good/default": {"ciphertext": good.hex()},
                        "bad/default": {"ciphertext": bytes(bad).hex()},
                    },
                }
            )
            for p in PROVIDERS
        ]
    for reply in replies:
        assert reply["type"] == "cross_check"
        assert reply["verdicts"]["good/default"] == {"ok": True, "reason": ""}
        assert reply["verdicts"]["bad/default"]["ok"] is False


def test_unsupported_pairs_and_bad_requests(rust_runner):
    with Served(rust_runner) as served:
        xts = served.send({"cmd": "open", "case": tiny_case("ring", "aes-256-xts", "encrypt", 64)})
        other = served.send({"cmd": "open", "case": tiny_case("openssl", "sha256", "hash", 64)})
        junk = served.send("not json")
        assert served.close()["unsupported"] == 1
    assert xts["status"] == "unsupported" and "does not offer" in xts["reason"]
    assert other["type"] == "error" and "unknown provider 'openssl'" in other["message"]
    assert junk["type"] == "error"


def test_a_bad_command_line_is_one_line_and_status_2(rust_runner):
    done = run(rust_runner, "serve", "--cpu", "many")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[0] == f"{RUNNER}: --cpu takes a CPU number, got 'many'"
    done = run(rust_runner, "list", "--variant", "ring=fast")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].endswith("ring has no variant 'fast' (default)")


def test_an_aws_lc_variant_reexecutes_with_openssl_ia32cap(rust_runner):
    """--variant re-executes the runner with OPENSSL_ia32cap set for AWS-LC; the other providers
    keep their default, and a case asking for another variant says which runner to start."""
    done = run(rust_runner, "list", "--variant", "aws-lc-rs=soft")
    assert done.returncode == 0, done.stderr
    providers = {p["name"]: p for p in json.loads(done.stdout)["providers"]}
    lc = providers["aws-lc-rs"]
    assert lc["variant"] == "soft"
    assert [v["name"] for v in lc["variants"]] == ["default", "soft", "noaesni"]
    assert lc["code_path"]["ia32cap_env"] == "~0x200000200000000:~0xffffffffffffffff"
    assert providers["ring"]["variant"] == "default"
    with Served(rust_runner, "--variant", "aws-lc-rs=noaesni") as served:
        assert served.hello["variants"] == {
            "ring": "default",
            "aws-lc-rs": "noaesni",
            "rustcrypto": "default",
        }
        result = measure_tiny(
            served, tiny_case("aws-lc-rs", "aes-256-gcm", "encrypt", 1024, variant="noaesni")
        )
        other = served.send(
            {"cmd": "open", "case": tiny_case("aws-lc-rs", "sha256", "hash", 64, variant="soft")}
        )
        served.close()
    assert result["variant"] == "noaesni" and result["gate"]["roundtrip"] == "passed"
    assert other["status"] == "unsupported" and "--variant aws-lc-rs=soft" in other["reason"]


def test_without_variant_a_caller_openssl_ia32cap_is_undone(rust_runner):
    done = subprocess.run(
        [str(rust_runner), "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OPENSSL_ia32cap": "~0x200000200000000"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lc = next(p for p in json.loads(done.stdout)["providers"] if p["name"] == "aws-lc-rs")
    assert lc["variant"] == "default" and lc["code_path"]["ia32cap_env"] == ""


def test_rustcrypto_soft_runs_in_the_soft_build(rust_runner):
    """RustCrypto's portable backends are chosen at compile time: --variant rustcrypto=soft
    re-executes the soft build make setup installs beside the runner, which has only rustcrypto;
    the soft build goes back to the main one for any other variant."""
    soft = rust_runner.parent.parent / "libexec" / "cryptobench-runner-rust-soft"
    if not soft.is_file():
        pytest.skip("the soft build is absent (make setup prints why)")
    done = run(rust_runner, "list", "--variant", "rustcrypto=soft")
    assert done.returncode == 0, done.stderr
    caps = json.loads(done.stdout)
    assert caps["machine"]["rust"]["build"].startswith("soft")
    [rc] = caps["providers"]
    assert rc["name"] == "rustcrypto" and rc["variant"] == "soft"
    assert rc["code_path"]["backends"] == "soft (forced at compile time)"
    assert [v["name"] for v in rc["variants"]] == ["default", "soft"]
    with Served(rust_runner, "--variant", "rustcrypto=soft") as served:
        assert served.hello["variants"] == {"rustcrypto": "soft"}
        result = measure_tiny(
            served, tiny_case("rustcrypto", "aes-256-gcm", "encrypt", 1024, variant="soft")
        )
        served.close()
    assert result["variant"] == "soft" and result["gate"]["kat"].startswith("passed")
    back = json.loads(run(soft, "list").stdout)
    assert back["machine"]["rust"]["build"] == "main" and len(back["providers"]) == 3
    mixed = run(rust_runner, "list", "--variant", "rustcrypto=soft", "--variant", "ring=default")
    assert mixed.returncode == 2 and "--variant rustcrypto=soft alone" in mixed.stderr


def test_aws_lc_allocations_in_c_are_counted(rust_runner):
    """AWS-LC allocates its RSA and EC contexts with OPENSSL_malloc, which the runner routes
    through its counting allocator (CRYPTO_set_mem_functions): the heap figures see them."""
    lc = next(p for p in capabilities(rust_runner)["providers"] if p["name"] == "aws-lc-rs")
    assert "CRYPTO_set_mem_functions" in lc["code_path"]["heap"]
    with Served(rust_runner) as served:
        result = measure_tiny(served, tiny_case("aws-lc-rs", "ecdsa-p256", "sign", 64))
    assert result["heap"]["allocs_per_op"] > 0
    assert result["heap"]["frees_per_op"] == result["heap"]["allocs_per_op"]
