"""What only the Rust runner (runners/rust) has: its build in the record (rustc, profile, target
features) and its crates' versions, AEADs in place without allocation, AWS-LC's variants through
OPENSSL_ia32cap, RustCrypto's soft build, and AWS-LC's C allocations counted. What every runner
owes the protocol is in test_runner_protocol.py."""

import json
import os

import pytest
from runner_harness import (
    Served,
    capabilities,
    measure_tiny,
    missing_part,
    run,
    runner_exe,
    tiny_case,
)

RUNNER = "cryptobench-runner-rust"


@pytest.fixture(scope="module")
def rust_runner():
    return runner_exe(RUNNER)


def test_list_records_the_build_and_the_crates_versions(rust_runner):
    caps = capabilities(rust_runner)
    build = caps["machine"]["rust"]
    assert build["rustc"].startswith("rustc 1.") and build["profile"] == "release"
    assert build["target"].endswith("linux-gnu") and "sse2" in build["target_features"]
    versions = {p["name"]: p["version"] for p in caps["providers"]}
    assert versions["ring"].startswith("ring 0.17.")
    assert (
        versions["aws-lc-rs"].startswith("aws-lc-rs 1.") and "aws-lc-sys" in versions["aws-lc-rs"]
    )
    assert "aes-gcm 0.11." in versions["rustcrypto"]


def test_setup_builds_the_full_runner(rust_runner):
    """`make demo` builds the runner without what its suite does not use (RUST_FULL=0: no
    fidelity bench, no SLH-DSA); `make setup`, which `make test` runs first, builds it again
    with every provider, SLH-DSA and the bench, and the record says which build it is."""
    caps = capabilities(rust_runner)
    build = caps["machine"]["rust"]
    assert build["build"] == "main", f"{build['build']}: `make runner-rust` builds the full one"
    assert build["commands"] == ["list", "serve", "bench"]
    assert [p["name"] for p in caps["providers"]] == ["ring", "aws-lc-rs", "rustcrypto"]
    rc = next(p for p in caps["providers"] if p["name"] == "rustcrypto")
    offered = {a["name"] for a in rc["algorithms"]}
    assert {"slh-dsa-sha2-128f", "slh-dsa-shake-256s", "ml-dsa-65"} <= offered


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


def test_an_aws_lc_variant_reexecutes_with_openssl_ia32cap(rust_runner):
    """--variant re-executes the runner with OPENSSL_ia32cap set for AWS-LC; the other providers
    keep their default. (Measuring in a served variant: test_runner_protocol.py.)"""
    done = run(rust_runner, "list", "--variant", "aws-lc-rs=soft")
    assert done.returncode == 0, done.stderr
    providers = {p["name"]: p for p in json.loads(done.stdout)["providers"]}
    lc = providers["aws-lc-rs"]
    assert lc["variant"] == "soft"
    assert [v["name"] for v in lc["variants"]] == ["default", "soft", "noaesni"]
    assert lc["code_path"]["ia32cap_env"] == "~0x200000200000000:~0xffffffffffffffff"
    assert providers["ring"]["variant"] == "default"


def test_without_variant_a_caller_openssl_ia32cap_is_undone(rust_runner):
    done = run(rust_runner, "list", env={**os.environ, "OPENSSL_ia32cap": "~0x200000200000000"})
    assert done.returncode == 0, done.stderr
    lc = next(p for p in json.loads(done.stdout)["providers"] if p["name"] == "aws-lc-rs")
    assert lc["variant"] == "default" and lc["code_path"]["ia32cap_env"] == ""


def test_rustcrypto_soft_runs_in_the_soft_build(rust_runner):
    """RustCrypto's portable backends are chosen at compile time: --variant rustcrypto=soft
    re-executes the soft build make setup installs beside the runner, which has only rustcrypto;
    the soft build goes back to the main one for any other variant."""
    soft = rust_runner.parent.parent / "libexec" / "cryptobench-runner-rust-soft"
    if not soft.is_file():
        missing_part("the soft build is absent (make setup prints why)")
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
    assert back["machine"]["rust"]["build"].startswith("main") and len(back["providers"]) == 3
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
