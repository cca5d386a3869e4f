"""Versioned providers (docs/versions.md): every one in native/versions/versions.json is either
listed by the runner or absent with the reason; one that `make versions` built is gated beside
the system library in the same process, with its own version. The builds are opt-in: a test
that needs one skips, with the reason, where it was not built (CI included)."""

import importlib.util
import json
import subprocess

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
