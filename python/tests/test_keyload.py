"""keyload (docs/protocol.md, "Public-key and KDF cases"): decoding a PEM or DER private key or
an X.509 certificate into the library's key object, gated before it is timed. The gate must pass
on the real files and fail when a decoded key is not the reference key."""

import json
import shutil
import subprocess

import pytest
from conftest import run_cli

from cryptobench import versions
from cryptobench.gate import vectors as gate_vectors

ALGORITHMS = [
    "rsa-2048-pem",
    "rsa-2048-der",
    "ecdsa-p256-pem",
    "ecdsa-p256-der",
    "ed25519-pem",
    "ed25519-der",
    "x509-rsa-2048-pem",
    "x509-rsa-2048-der",
]


def run_cases(native_runner, provider: str, algorithms: list[str], vectors=None) -> dict:
    specs = [
        {"id": a, "provider": provider, "operation": "keyload", "algorithm": a, "size": 0,
         "samples": 1, "target_sample_ms": 0.2, "warmup_ms": 0, "heap_iterations": 1}
        for a in algorithms
    ]  # fmt: skip
    args = [str(native_runner), "run", "--no-pin"]
    if vectors:
        args += ["--vectors", str(vectors)]
    done = subprocess.run(
        args, input=json.dumps({"cases": specs}), capture_output=True, text=True, timeout=120
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {m["id"]: m for m in lines if m.get("type") == "case"}


# What each native library decodes (docs/versions.md, "keyload"): mbedTLS 2.28 has no Ed25519,
# Crypto++ no X.509 certificate class; libgcrypt (S-expressions), Nettle (PKCS#1 DER only) and
# libsodium decode none of these encodings.
OFFERED = {
    "openssl": ALGORITHMS,
    "botan": ALGORITHMS,
    "gnutls": ALGORITHMS,
    "wolfssl": ALGORITHMS,
    "mbedtls": [a for a in ALGORITHMS if not a.startswith("ed25519")],
    "cryptopp": [a for a in ALGORITHMS if not a.startswith("x509")],
    "gcrypt": [],
    "nettle": [],
    "sodium": [],
}


def listed_providers(native_runner) -> dict[str, set[str]]:
    done = subprocess.run([str(native_runner), "list"], capture_output=True, text=True, check=True)
    providers = json.loads(done.stdout.splitlines()[0])["providers"]
    return {p["name"]: {a["name"] for a in p["algorithms"]} for p in providers}


@pytest.mark.parametrize("provider", sorted(OFFERED))
def test_every_encoding_decodes_to_the_reference_key_and_signs(native_runner, provider):
    listed = listed_providers(native_runner)
    if provider not in listed:
        pytest.skip(f"{provider} is not built into this runner")
    offered = OFFERED[provider]
    assert listed[provider] & set(ALGORITHMS) == set(offered)
    cases = run_cases(native_runner, provider, ALGORITHMS)
    assert set(cases) == set(ALGORITHMS)
    for name, case in cases.items():
        if name not in offered:
            assert case["status"] == "unsupported", (name, case)
            continue
        assert case["status"] == "ok", (name, case["reason"])
        assert case["gate"]["kat"] == "passed 1 vector", name
        what = "certificate's decoded key" if name.startswith("x509") else "decoded key signs"
        assert what in case["gate"]["roundtrip"], (name, case["gate"])


@pytest.mark.parametrize("provider", ["openssl", "gnutls", "wolfssl", "cryptopp"])
def test_a_decoded_key_that_is_not_the_reference_fails_the_gate(native_runner, tmp_path, provider):
    if provider not in listed_providers(native_runner):
        pytest.skip(f"{provider} is not built into this runner")
    vectors = tmp_path / "vectors"
    shutil.copytree(gate_vectors.REPO_VECTORS, vectors)
    path = vectors / "encoded-keys.json"
    doc = json.loads(path.read_text())
    by_name = {v["algorithm"]: v for v in doc["vectors"]}
    # The expected private exponent is off by one: the decoded key no longer matches it.
    d = by_name["rsa-2048-pem"]["key"]["d"]
    by_name["rsa-2048-pem"]["key"]["d"] = d[:-1] + ("0" if d[-1] != "0" else "1")
    # The DER's private key octets are altered: it still decodes, to another key.
    der = by_name["ed25519-der"]["encoded"]
    by_name["ed25519-der"]["encoded"] = der[:-2] + ("00" if der[-2:] != "00" else "01")
    path.write_text(json.dumps(doc))
    cases = run_cases(native_runner, provider, ["rsa-2048-pem", "ed25519-der", "ecdsa-p256-der"],
                      vectors)  # fmt: skip
    assert cases["ecdsa-p256-der"]["status"] == "ok"
    assert cases["rsa-2048-pem"]["status"] == "failed"
    assert "'d'" in cases["rsa-2048-pem"]["reason"]
    assert cases["ed25519-der"]["status"] == "failed"
    assert "'priv'" in cases["ed25519-der"]["reason"]


def test_built_openssl_versions_decode_the_same_keys(native_runner):
    done = subprocess.run([str(native_runner), "list"], capture_output=True, text=True, check=True)
    listed = {p["name"] for p in json.loads(done.stdout.splitlines()[0])["providers"]}
    # Every version of the family: OpenSSL's own, and the forks on its 1.1.1 API (AWS-LC,
    # BoringSSL), which decode with the same calls (openssl_keyload.hpp).
    table = versions.table()
    built = [p for p in table if p in listed and table[p]["family"] == "openssl"]
    if not built:
        pytest.skip("no OpenSSL version built here (make versions, docs/versions.md)")
    for provider in built:
        cases = run_cases(native_runner, provider, ALGORITHMS)
        for name, case in cases.items():
            assert case["status"] == "ok", (provider, name, case["reason"])
            # Both API paths sign with the decoded key (the 1.1.1 one through RSA_set0_key & co.).
            what = "certificate's decoded key" if name.startswith("x509") else "decoded key signs"
            assert what in case["gate"]["roundtrip"], (provider, name, case["gate"])


def test_a_keyload_run_is_planned_at_size_0_and_stored(native_runner, tmp_path):
    db = tmp_path / "r.db"
    algorithms = "ed25519-der,x509-rsa-2048-pem"
    args = ["-p", "openssl", "-a", algorithms, "--operations", "keyload", "-s", "16"]
    done = run_cli("run", *args, "--samples", "3", "--db", str(db), "--no-pin")
    assert done.returncode == 0, done.stderr
    exported = run_cli("export", "latest", "--format", "json", "--db", str(db))
    cases = json.loads(exported.stdout)["results"]
    assert {(c["algorithm"], c["operation"], c["size"], c["status"]) for c in cases} == {
        ("ed25519-der", "keyload", 0, "ok"),
        ("x509-rsa-2048-pem", "keyload", 0, "ok"),
    }


def test_reproduce_openssl3_judges_the_key_loads_of_a_run(tmp_path):
    """The threads' key-loading claims (#15199, #18814) read a run's keyload medians."""
    from conftest import store_run

    from cryptobench import analysis
    from cryptobench.criteria import evaluate, specs_for
    from cryptobench.reproductions.openssl3 import reproduce

    ns = {  # per load: 3.0 slowest, 3.5 between, 1.1.1 fastest; 3.0's key ×6, cert ×3
        "openssl": {"rsa-2048-pem": 60000.0, "x509-rsa-2048-pem": 30000.0},
        "openssl@3.5": {"rsa-2048-pem": 20000.0, "x509-rsa-2048-pem": 15000.0},
        "openssl@1.1.1": {"rsa-2048-pem": 10000.0, "x509-rsa-2048-pem": 10000.0},
    }
    cases = {(p, "default", "keyload", a, 0): t for p, by in ns.items() for a, t in by.items()}
    db, run_id = store_run(tmp_path / "r.db", cases, n=11, spread=0.01)
    loads = reproduce.load_seconds(analysis.load(db, run_id).ok_cases())
    data = {"noise": 0.1, **reproduce.load_figures(loads, "openssl@3.5")}
    assert data["load_ratio"]["key"] == pytest.approx(6.0, rel=0.05)
    sha256, pem_order, ratios, handshakes, aws_lc = evaluate(specs_for("openssl3"), data)
    assert pem_order.holds is True and ratios.holds is True, (pem_order, ratios)
    assert sha256.holds is None and handshakes.holds is None and aws_lc.holds is None
    assert "0.7" in str(reproduce.load_table(loads, {}))  # the thread's figure beside ours
