"""What only the JVM runner (runners/jvm) has: the JDK in its record, providers that may fail to
load (and say why), a JCA provider without BLAKE2, the jdk25 variant (another JDK, offered where
it is installed) and key-setup cases. What every runner owes the protocol (including the JVM's
warm-up and GC figures in each result) is in test_runner_protocol.py."""

import json

import pytest
from runner_harness import (
    MATERIAL,
    Served,
    capabilities,
    measure_tiny,
    run,
    runner_exe,
    tiny_case,
)

from cryptobench import agreement, gate
from cryptobench.capabilities import Capabilities
from cryptobench.commands import check
from cryptobench.runner import ServeProcess

RUNNER = "cryptobench-runner-jvm"


@pytest.fixture(scope="module")
def jvm_runner():
    return runner_exe(RUNNER)


@pytest.fixture(scope="module")
def caps(jvm_runner):
    return capabilities(jvm_runner)


def test_list_records_the_jdk_and_why_a_provider_did_not_load(caps):
    assert caps["machine"]["java_version"].split(".")[0].isdigit()
    for p in caps["providers"]:
        assert p["loading_error"] if not p["algorithms"] else p["version"] != "not loaded"
        assert p["code_path"].get("jdk") or p.get("loading_error")


def test_a_jca_provider_without_blake2_refuses_it_by_name(jvm_runner):
    with Served(jvm_runner) as served:
        blake = served.send({"cmd": "open", "case": tiny_case("sunjce", "blake2b-512", "hash", 64)})
        served.close()
    assert blake["status"] == "unsupported" and "BLAKE2B-512" in blake["reason"]


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


def test_the_planner_runs_ml_kem_on_the_variant_whose_jdk_has_it(jvm_runner, caps):
    """Discovery lists jdk25 with its own process (it sets no environment: another runtime);
    `-p all` then plans SunJCE's ML-KEM on jdk25, where Java 17 has none, and keeps the
    classical algorithms on the default JDK."""
    if "jdk25" not in [v["name"] for v in caps["providers"][0]["variants"]]:
        pytest.skip("no Java 25 installed (the jdk25 variant is offered only where it is)")
    from dataclasses import replace

    from cryptobench import plan
    from cryptobench.runner import discovery

    listed = Capabilities.from_message(caps)
    listed = replace(listed, runner_of=dict.fromkeys(listed.providers, str(jvm_runner)))
    found = discovery._list_runtime_variants(listed, None, 300)
    sunjce = found.providers["sunjce"]
    assert not sunjce.offers("ml-kem-768", "encaps")
    assert sunjce.variant_for("ml-kem-768", "encaps") == "jdk25"
    assert "ml-kem-768" in found.raw["variant_algorithms"]["sunjce"]["jdk25"]
    suite = plan.parse_suite(
        'providers = ["sunjce"]\nalgorithms = ["ml-kem-768", "sha256"]\nsizes = [64]',
        name="t",
        where="t.toml",
    )
    cases = {(c.variant, c.algorithm, c.operation) for c in plan.expand(suite, found).cases}
    assert cases == {
        ("jdk25", "ml-kem-768", "keygen"),
        ("jdk25", "ml-kem-768", "encaps"),
        ("jdk25", "ml-kem-768", "decaps"),
        ("default", "sha256", "hash"),
    }


def test_post_quantum_on_java_25_passes_the_gate_and_agrees(jvm_runner, caps):
    """Java 25's SunJCE (ML-KEM) and SUN (ML-DSA), which take only expanded keys, and Bouncy
    Castle, which takes the seed, pass the coordinator's gate on the jdk25 variant, and each
    decapsulates the other's ciphertext to its secret with the same implicit-rejection secret
    (docs/post-quantum.md). test_post_quantum.py covers the default variant (Java 17: Bouncy
    Castle's ML-DSA and SLH-DSA, no javax.crypto.KEM)."""
    if "jdk25" not in [v["name"] for v in caps["providers"][0]["variants"]]:
        pytest.skip("no Java 25 installed (the jdk25 variant is offered only where it is)")
    listed = json.loads(run(jvm_runner, "list", "--variant", "sunjce=jdk25").stdout)
    forms = {p["name"]: p["code_path"].get("pq_key") for p in listed["providers"]}
    assert (forms["sunjce"], forms["bouncycastle"]) == ("expanded", "seed")
    for provider in ("sunjce", "bouncycastle"):
        proc = ServeProcess(jvm_runner, provider, "jdk25", 300, ["--no-pin"])
        lines: list[dict] = []
        try:
            proc.start()
            check.check_provider(
                proc,
                Capabilities.from_message(listed),
                gate.Vectors(),
                lines.append,
                {"ml-kem-768", "ml-dsa-65"},
            )
        finally:
            proc.stop()
        assert lines and all(m["status"] == "ok" for m in lines), lines
    with Served(jvm_runner, "--variant", "bouncycastle=jdk25") as served:
        served.caps = listed
        cases = {p: tiny_case(p, "ml-kem-768", "decaps", 0, variant="jdk25") for p in forms}
        cases = {p: c for p, c in cases.items() if p in ("sunjce", "bouncycastle")}
        replies = {f"{p}/jdk25": served.agreement(c, MATERIAL) for p, c in cases.items()}
        cross = {}
        for p, c in cases.items():
            peers = {n: r["artifacts"] for n, r in replies.items() if n != f"{p}/jdk25"}
            cross[f"{p}/jdk25"] = served.cross_check(c, MATERIAL, peers)["verdicts"]
    alg = Capabilities.from_message(listed).algorithms["ml-kem-768"]
    verdicts = agreement.decide(
        alg, "decaps", {p: agreement.Reply.from_message(r) for p, r in replies.items()}, cross
    )
    assert all(v["ok"] is True for seen in cross.values() for v in seen.values()), cross
    assert all(v.ok for v in verdicts.values()), verdicts
    assert len({r["artifacts"]["rejection"] for r in replies.values()}) == 1


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
    assert result["samples"] and all(s["ns"] > 0 for s in result["samples"])
    assert hashed["type"] == "error" and "ciphers and AEADs only" in hashed["message"]
    assert sized["type"] == "error" and "size must be 0" in sized["message"]
