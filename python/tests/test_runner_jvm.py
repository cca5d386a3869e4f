"""What only the JVM runner (runners/jvm) has: the JDK in its record, providers that may fail to
load (and say why), a JCA provider without BLAKE2, the jdk25 variant (another JDK, offered where
it is installed) and key-setup cases. What every runner owes the protocol (including the JVM's
warm-up and GC figures in each result) is in test_runner_protocol.py."""

import json

import pytest
from runner_harness import Served, capabilities, measure_tiny, run, runner_exe, tiny_case

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
