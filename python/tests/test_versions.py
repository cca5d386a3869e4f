"""Versioned providers (docs/versions.md): every one in native/versions/versions.json is either
listed by the runner or absent with the reason; one that `make versions` built is gated beside
the system library in the same process, with its own version. The builds are opt-in: a test
that needs one skips, with the reason, where it was not built (CI included)."""

import importlib.util
import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import run_cli

from cryptobench import versions


def test_every_versioned_provider_is_absent_with_make_versions_until_built(tmp_path, monkeypatch):
    monkeypatch.setenv("CRYPTOBENCH_CACHE", str(tmp_path))
    table = versions.table()
    assert {"openssl@1.1.1", "openssl@3.5", "openssl@4.0", "aws-lc", "boringssl", "botan@3"} <= set(
        table
    )
    absent = versions.absent(set())
    assert set(absent) == set(table)
    assert absent["openssl@3.5"] == "not built: make versions"
    assert absent["liboqs"] == "not built: make liboqs"  # its own make target (mk/liboqs.mk)
    assert absent["botan@3"] == "not built: make versions"
    assert absent["aws-lc"] == "not built: make versions VERSIONS=aws-lc"  # not in the default
    assert absent["boringssl"] == "not built: make versions VERSIONS=boringssl"
    home = tmp_path / "openssl-3.5.5-0123456789"
    home.mkdir()
    (home / "build.json").write_text(json.dumps({"provider": "openssl@3.5", "seconds": 1.0}))
    assert "make native" in versions.absent(set())["openssl@3.5"]
    assert "openssl@3.5" not in versions.absent({"openssl@3.5"})


def test_list_json_names_each_version_it_does_not_offer(native_runner, tmp_path):
    done = run_cli("list", "--json", env={"CRYPTOBENCH_CACHE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    names = {p["name"] for p in listed["providers"]}
    absent = listed["absent_providers"]
    for name in versions.table():
        assert (name in names) != (name in absent), name
    assert all(why.startswith("not built") for why in absent.values())


def built_versions(native_runner) -> list[dict]:
    done = subprocess.run([str(native_runner), "list"], capture_output=True, text=True, check=True)
    providers = json.loads(done.stdout.splitlines()[0])["providers"]
    return [p for p in providers if p["name"] in versions.table()], providers


def test_a_built_version_is_gated_beside_the_system_library(native_runner):
    ours, providers = built_versions(native_runner)
    if not ours:
        pytest.skip("no versioned provider built here (make versions, docs/versions.md)")
    by_name = {p["name"]: p for p in providers}
    for p in ours:
        # Its own library answers, not the system's (openssl for openssl@3.5, botan 2.19 for
        # botan@3): the static copy's symbols are hidden.
        family = versions.table()[p["name"]]["family"]
        if family != p["name"] and family in by_name:  # liboqs has no system library beside it
            assert p["version"] != by_name[family]["version"], p["name"]
        assert p["code_path"]["build"], p["name"]
        done = subprocess.run(
            [str(native_runner), "check", "--provider", p["name"]],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        results = [json.loads(line) for line in done.stdout.splitlines()]
        checks = [r for r in results if r.get("type") == "check"]
        assert checks and all(r.get("status") in ("ok", "unsupported") for r in checks), (
            p["name"],
            [r for r in checks if r.get("status") not in ("ok", "unsupported")][:3],
        )
        assert any(r.get("status") == "ok" for r in checks), p["name"]


def build_script():
    """native/versions/build.py as a module: its recipes' flags, without building anything."""
    spec = importlib.util.spec_from_file_location(
        "build_versions", versions.TABLE_PATH.parent / "build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_recipe_the_table_names_is_one_build_py_has():
    build = build_script()
    for name, entry in versions.table().items():
        if entry["recipe"]:
            assert entry["recipe"] in build.RECIPES, name


def crate_file(crate: str, version: str, member: str) -> str | None:
    """One file of a crate's source: from the tree build.py unpacked, else from the .crate in
    cargo's cache (the Rust runner's build puts aws-lc-sys there); None when neither has it."""
    unpacked = versions.cache_dir() / "src" / f"{crate}-{version}" / member
    if unpacked.is_file():
        return unpacked.read_text()
    cargo = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    for path in sorted(cargo.glob(f"registry/cache/*/{crate}-{version}.crate")):
        with tarfile.open(path) as tar:
            try:
                return tar.extractfile(f"{crate}-{version}/{member}").read().decode()
            except KeyError:
                return None
    return None


@pytest.mark.parametrize("name", ["aws-lc", "boringssl"])
def test_the_cmake_recipes_build_static_pic_libraries_without_tests(name, tmp_path, monkeypatch):
    """AWS-LC's and BoringSSL's recipe (CMake), without building it: static, position-independent,
    Release, no tests; keyed by version and flags; and every option it passes is one the
    library's CMakeLists.txt reads (CMake only warns about an unknown -D, and a misspelt
    BUILD_TESTING would build the tests)."""
    build = build_script()
    monkeypatch.setattr(build, "CACHE", tmp_path)
    entry = versions.table()[name]
    flags = build.SSL_LIBRARY_FLAGS[entry["recipe"]]
    for flag in ("-DBUILD_SHARED_LIBS=OFF", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
                 "-DBUILD_TESTING=OFF", "-DCMAKE_BUILD_TYPE=Release"):  # fmt: skip
        assert flag in flags, (name, flag)
    home = build.cache_home(entry["recipe"], entry, flags)
    assert home.parent == tmp_path and home.name.startswith(f"{entry['recipe']}-")
    assert " " not in home.name
    assert build.cache_home(entry["recipe"], entry, [*flags, "-DOPENSSL_SMALL=ON"]) != home
    cmd = build.configure_cmake(Path("/src"), Path("/build"), flags)
    assert cmd[:5] == ["cmake", "-S", "/src", "-B", "/build"] and cmd[-len(flags) :] == flags
    text = crate_file(entry["crate"], entry["crate_version"], f"{entry['subdir']}/CMakeLists.txt")
    if text is None:
        pytest.skip(f"{entry['crate']} {entry['crate_version']} is not in cargo's cache here")
    for flag in flags:
        option = flag.removeprefix("-D").split("=")[0]
        if option.startswith("CMAKE_") or option == "BUILD_SHARED_LIBS":
            continue  # CMake's own
        assert re.search(rf"\b{option}\b", text), (name, option)


# The forks on the 1.1.1 API: the version each answers with, and a cipher the adapter asks for
# by name that the fork does not have (docs/versions.md, "AWS-LC and BoringSSL").
FORKS = {
    "aws-lc": ("AWS-LC 5.12.0", "chacha20"),
    "boringssl": ("BoringSSL (API version 44)", "aes-128-cfb"),
}


@pytest.mark.parametrize("name", sorted(FORKS))
def test_a_fork_reports_its_own_library_and_refuses_what_it_lacks(native_runner, name):
    """Where built: the fork answers with its own name and version (not the system OpenSSL's
    through a leaked symbol), its libssl gives it the handshake, and a cipher it lacks is not
    listed; a case that asks for it anyway is unsupported with the reason, not failed."""
    ours, _ = built_versions(native_runner)
    fork = next((p for p in ours if p["name"] == name), None)
    if fork is None:
        pytest.skip(f"{name} is not built here (make versions VERSIONS={name})")
    version, lacking = FORKS[name]
    assert fork["version"] == version, fork["version"]
    algorithms = {a["name"] for a in fork["algorithms"]}
    assert {"tls13-x25519-rsa-2048", "tls13-x25519-ecdsa-p256"} <= algorithms
    assert {"aes-256-gcm", "sha256", "cmac-aes128", "ed25519"} <= algorithms
    assert lacking not in algorithms
    spec = {"id": "x", "provider": name, "operation": "encrypt", "algorithm": lacking,
            "size": 64, "samples": 1, "target_sample_ms": 0.2, "warmup_ms": 0}  # fmt: skip
    done = subprocess.run(
        [str(native_runner), "run", "--no-pin"],
        input=json.dumps({"cases": [spec]}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    result = next(json.loads(x) for x in done.stdout.splitlines() if '"result"' in x)
    assert result["status"] == "unsupported", result
    assert result["reason"].startswith(f"{name} does not offer {lacking}"), result["reason"]


def test_botan3_has_a_recipe_for_a_static_minimized_build_it_lists():
    build = build_script()
    entry = versions.table()["botan@3"]
    assert build.RECIPES[entry["recipe"]] is build.build_botan
    assert (versions.REPO_ROOT / "native" / entry["adapter"]).is_file()
    flags = build.BOTAN_FLAGS
    assert "--build-targets=static" in flags and "--minimized-build" in flags
    # A minimized build drops the x86 code unless named: AES-NI, CLMUL GHASH and SHA-NI are.
    assert {"aes_ni", "ghash_cpu", "sha2_32_x86", "cpuid"} <= set(build.BOTAN_MODULES)
    # Argon2's lanes run in the calling thread, as in Debian's Botan 2.19 beside it.
    assert "thread_utils" not in build.BOTAN_MODULES
    listed = subprocess.run(
        ["python3", str(versions.TABLE_PATH.parent / "build.py"), "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(x for x in listed.splitlines() if x.startswith("botan@3 "))
    assert "3.13.0" in line and "no build recipe" not in line


def test_botan3_modules_exist_in_the_source_the_crate_carries():
    """Every module the recipe names is one of Botan 3.13's (configure.py would stop on a wrong
    one only after the crate is fetched and unpacked); checked where make versions unpacked it."""
    build = build_script()
    entry = versions.table()["botan@3"]
    src = versions.cache_dir() / "src" / f"{entry['crate']}-{entry['crate_version']}"
    lib = src / entry["subdir"] / "src" / "lib"
    if not lib.is_dir():
        pytest.skip(f"Botan's source is not unpacked in {src} (make versions VERSIONS=botan@3)")
    modules = {info.parent.name for info in lib.rglob("info.txt")}
    assert set(build.BOTAN_MODULES) <= modules, set(build.BOTAN_MODULES) - modules
