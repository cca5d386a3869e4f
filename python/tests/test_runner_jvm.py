"""The JVM runner (runners/jvm), driven through the protocol: its catalogue is the native one, a
tiny gated case measures on each JCA provider (with the JVM's warm-up, allocation and GC figures),
its gate refuses a corrupted known answer, and its agreement artifacts equal an independent
implementation's (pyca/cryptography in this process)."""

import hashlib
import hmac
import json

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

RUNNER = "cryptobench-runner-jvm"
PROVIDERS = {"sunjce", "bouncycastle", "accp", "conscrypt", "nss"}
MATERIAL = {
    "key": bytes(range(32)).hex(),
    "iv": bytes(range(100, 112)).hex(),
    "aad": "",
    "input": (b"cryptobench agreement input " * 146)[:4096].hex(),
    "salt": bytes(16).hex(),
}


@pytest.fixture(scope="module")
def jvm_runner():
    return runner_exe(RUNNER)


@pytest.fixture(scope="module")
def caps(jvm_runner):
    return capabilities(jvm_runner)


def loaded(caps, provider):
    """The provider's capability entry; skipped (with its loading error) where it cannot load."""
    entry = next(p for p in caps["providers"] if p["name"] == provider)
    if entry.get("loading_error"):
        pytest.skip(f"{provider} cannot load here: {entry['loading_error']}")
    return entry


def test_list_offers_native_catalogue_entries_and_records_the_jdk(caps, native_runner):
    native = native_catalogue(native_runner)
    assert caps["runner"] == RUNNER
    assert caps["machine"]["java_version"].split(".")[0].isdigit()
    assert {p["name"] for p in caps["providers"]} == PROVIDERS
    for alg in caps["algorithms"]:
        assert alg == native[alg["name"]], alg["name"]
    offered = {p["name"]: {a["name"] for a in p["algorithms"]} for p in caps["providers"]}
    assert {"aes-256-gcm", "chacha20-poly1305", "sha256", "sha3-256", "md5", "ed25519"} <= offered[
        "sunjce"
    ]
    assert {"aes-256-gcm", "chacha20-poly1305", "sha256", "hmac-sha256", "ed25519"} <= offered[
        "bouncycastle"
    ]
    for p in caps["providers"]:
        # What a provider lacks is not offered, with the reason; never offered and refused both.
        assert not set(p["not_offered"]) & offered[p["name"]]
        assert p["loading_error"] if not p["algorithms"] else p["version"] != "not loaded"
        assert p["code_path"].get("jdk") or p.get("loading_error")


@pytest.mark.parametrize(
    ("provider", "algorithm", "operation", "size"),
    [
        ("sunjce", "aes-256-gcm", "decrypt", 1024),
        ("bouncycastle", "chacha20-poly1305", "encrypt", 1024),
        ("accp", "sha256", "hash", 1024),
        ("conscrypt", "aes-128-ctr", "encrypt", 1024),
        ("nss", "hmac-sha256", "mac", 1024),
        ("sunjce", "ed25519", "verify", 64),
    ],
)
def test_a_tiny_gated_case_measures(jvm_runner, caps, provider, algorithm, operation, size):
    loaded(caps, provider)
    with Served(jvm_runner) as served:
        assert served.hello["runner"] == RUNNER
        result = measure_tiny(served, tiny_case(provider, algorithm, operation, size))
        assert served.close()["ok"] == 1
    assert result["gate"]["kat"].startswith("passed")
    assert result["gate"]["roundtrip"] == "passed"
    assert result["gate"]["timed"] == "output equals the gated instance's; canaries intact"
    assert result["summary"]["n"] == 3 and result["summary"]["median_ns"] > 0
    jvm = result["jvm"]
    assert jvm["jdk"] == caps["machine"]["java_version"]
    assert jvm["warmup_iterations"] > 0 and jvm["warmup_ns"] > 0
    assert jvm["gc_count"] >= 0 and jvm["gc_ms"] >= 0
    assert result["heap"]["bytes_per_op"] >= 0


def test_the_gate_refuses_a_provider_that_fails_a_known_answer(jvm_runner, tmp_path):
    vectors = corrupted_vectors(tmp_path, "aes-gcm", "tag")
    with Served(jvm_runner, "--vectors", str(vectors)) as served:
        opened = {
            p: served.send({"cmd": "open", "case": tiny_case(p, "aes-128-gcm", "encrypt", 64)})
            for p in ("sunjce", "bouncycastle")
        }
    for provider, reply in opened.items():
        assert reply["status"] == "failed", reply
        assert "known-answer test" in reply["reason"]
        assert f"failed for {provider}" in reply["reason"]


def test_agreement_artifacts_equal_an_independent_implementation(jvm_runner, caps):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    with Served(jvm_runner) as served:

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

        got = {
            "sunjce gcm": artifacts("sunjce", "aes-256-gcm", "encrypt")["ciphertext"],
            "bc gcm": artifacts("bouncycastle", "aes-256-gcm", "decrypt")["ciphertext"],
            "sunjce chacha": artifacts("sunjce", "chacha20-poly1305", "encrypt")["ciphertext"],
            "bc chacha": artifacts("bouncycastle", "chacha20-poly1305", "encrypt")["ciphertext"],
            "sunjce sha256": artifacts("sunjce", "sha256", "hash")["digest"],
            "bc sha3": artifacts("bouncycastle", "sha3-256", "hash")["digest"],
            "sunjce hmac": artifacts("sunjce", "hmac-sha256", "mac")["mac"],
            "bc ed25519": artifacts("bouncycastle", "ed25519", "sign")["signature"],
        }
    gcm = AESGCM(key).encrypt(iv, data, None).hex()
    chacha = ChaCha20Poly1305(key).encrypt(iv, data, None).hex()
    assert got["sunjce gcm"] == gcm and got["bc gcm"] == gcm
    assert got["sunjce chacha"] == chacha and got["bc chacha"] == chacha
    assert got["sunjce sha256"] == hashlib.sha256(data).hexdigest()
    assert got["bc sha3"] == hashlib.sha3_256(data).hexdigest()
    assert got["sunjce hmac"] == hmac.new(key, data, "sha256").hexdigest()
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv"))
    assert got["bc ed25519"] == signer.sign(data).hex()


def test_cross_check_accepts_a_good_peer_and_blames_a_bad_one(jvm_runner):
    key, iv, data = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
    good = AESGCM(key).encrypt(iv, data, None)
    bad = bytearray(good)
    bad[10] ^= 1
    with Served(jvm_runner) as served:
        reply = served.send(
            {
                "cmd": "cross_check",
                "material": MATERIAL,
                "case": tiny_case("bouncycastle", "aes-256-gcm", "decrypt", 4096),
                "peers": {
                    "good/default": {"ciphertext": good.hex()},
                    "bad/default": {"ciphertext": bytes(bad).hex()},
                },
            }
        )
    assert reply["type"] == "cross_check"
    assert reply["verdicts"]["good/default"] == {"ok": True, "reason": ""}
    assert reply["verdicts"]["bad/default"]["ok"] is False


def test_unsupported_pairs_and_bad_requests(jvm_runner):
    with Served(jvm_runner) as served:
        xts = served.send(
            {"cmd": "open", "case": tiny_case("sunjce", "aes-256-xts", "encrypt", 64)}
        )
        blake = served.send({"cmd": "open", "case": tiny_case("sunjce", "blake2b-512", "hash", 64)})
        other = served.send({"cmd": "open", "case": tiny_case("openssl", "sha256", "hash", 64)})
        junk = served.send("not json")
        assert served.close()["unsupported"] == 2
    assert xts["status"] == "unsupported" and "does not offer" in xts["reason"]
    assert blake["status"] == "unsupported" and "BLAKE2B-512" in blake["reason"]
    assert other["type"] == "error" and "unknown provider 'openssl'" in other["message"]
    assert junk["type"] == "error" and "not valid JSON" in junk["message"]


def test_a_bad_command_line_is_one_line_and_status_2(jvm_runner):
    done = run(jvm_runner, "serve", "--cpu", "many")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[0] == f"{RUNNER}: --cpu takes a CPU number, got 'many'"


def test_the_jdk25_variant_runs_the_providers_on_java_25(jvm_runner, caps):
    names = [v["name"] for v in caps["providers"][0]["variants"]]
    if "jdk25" not in names:
        pytest.skip("no Java 25 installed (the jdk25 variant is offered only where it is)")
    done = run(jvm_runner, "list", "--variant", "sunjce=jdk25")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["machine"]["java_version"].startswith("25")
    assert all(p["variant"] == "jdk25" for p in listed["providers"])
    with Served(jvm_runner, "--variant", "bouncycastle=jdk25") as served:
        assert served.hello["variants"]["sunjce"] == "jdk25"
        result = measure_tiny(served, tiny_case("sunjce", "sha256", "hash", 1024, variant="jdk25"))
        other = served.send(
            {"cmd": "open", "case": tiny_case("sunjce", "sha256", "hash", 64, variant="default")}
        )
        served.close()
    assert result["jvm"]["jdk"].startswith("25")
    assert other["status"] == "unsupported" and "--variant sunjce=default" in other["reason"]
    done = run(jvm_runner, "list", "--variant", "sunjce=jdk25", "--variant", "nss=default")
    assert done.returncode == 2 and "use separate runners" in done.stderr.splitlines()[0]


def test_a_key_setup_case_times_cipher_init_alone(jvm_runner):
    """The paper 001 measured key setup: `key_setup` cases time Cipher.init with a new key object
    and no data, after the algorithm's gate; other kinds refuse the field."""
    with Served(jvm_runner) as served:
        result = measure_tiny(
            served, tiny_case("bouncycastle", "aes-128-cbc", "encrypt", 0, key_setup=True)
        )
        hashed = served.send(
            {"cmd": "open", "case": tiny_case("sunjce", "sha256", "hash", 0, key_setup=True)}
        )
        sized = served.send(
            {
                "cmd": "open",
                "case": tiny_case("sunjce", "aes-128-cbc", "encrypt", 16, key_setup=True),
            }
        )
    assert result["key_setup"] is True and result["gate"]["kat"].startswith("passed")
    assert result["gate"]["timed"] == "canaries intact (key setup writes no output)"
    assert result["summary"]["median_ns"] > 0
    assert hashed["type"] == "error" and "ciphers and AEADs only" in hashed["message"]
    assert sized["type"] == "error" and "size must be 0" in sized["message"]
