"""Versioned providers (docs/versions.md): every one in native/versions/versions.json is either
listed by the runner or absent with the reason; one that `make versions` built is gated beside
the system library in the same process, with its own version. The builds are opt-in: a test
that needs one skips, with the reason, where it was not built (CI included)."""

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
    assert "no recipe" in absent["botan@3"]
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
    system = next(p for p in providers if p["name"] == "openssl")
    for p in ours:
        # Its own library answers, not the system's: the static copy's symbols are hidden.
        assert p["version"] != system["version"], p["name"]
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
