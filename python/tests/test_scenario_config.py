"""The `config` scenario: the confcrypt-bench driver for real (real gpg in a throwaway GNUPGHOME,
small n, no timing assertions), its analysis on hand-made samples, storing and rendering."""

import base64
import hashlib
import json
import os
import shutil
import subprocess

import pytest

from cryptobench.errors import UserError
from cryptobench.scenarios.config import command, figures, model
from cryptobench.scenarios.config import driver as config_driver
from cryptobench.scenarios.config import report as config_report
from cryptobench.scenarios.config.model import Series
from cryptobench.store import Store

N = [1, 3]
RUNS = 2
CANDIDATES = ("openssl", "gcrypt", "botan", "nettle", "wolfssl", "cryptopp", "mbedtls")


def run_raw(driver: str, spec: object) -> subprocess.CompletedProcess:
    text = spec if isinstance(spec, str) else json.dumps(spec)
    return subprocess.run([driver], input=text, capture_output=True, text=True, timeout=120)


def lines(done: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(x) for x in done.stdout.splitlines() if x.strip()]


@pytest.fixture(scope="module")
def driver() -> str:
    try:
        return config_driver.find_driver()
    except UserError as e:
        pytest.skip(f"confcrypt-bench not built ({e})")


@pytest.fixture(scope="module")
def providers(driver, tmp_path_factory) -> list[str]:
    """Two providers the driver has: an unknown name is refused before anything runs."""
    found = []
    for name in CANDIDATES:
        spec = {
            "schemes": ["plain"],
            "providers": [name],
            "n": [1],
            "runs": 1,
            "dir": str(tmp_path_factory.mktemp("probe")),
        }
        if run_raw(driver, spec).returncode == 0:
            found.append(name)
        if len(found) == 2:
            return found
    pytest.skip(f"confcrypt-bench has fewer than two providers ({found})")


@pytest.fixture(scope="module")
def scenario(driver, providers) -> model.ScenarioRun:
    if not shutil.which("gpg"):
        pytest.skip("gpg not installed")
    seen: list[str] = []
    run = config_driver.run_scenario(
        providers, N, RUNS, driver=driver, on_message=lambda r, m: seen.append(m["type"])
    )
    assert seen[0] == "info" and seen[-1] == "done"
    return run


def expected_lines(run: model.ScenarioRun) -> list[tuple[str, str]]:
    skipped = {(s["scheme"], s["provider"]) for s in run.skipped}
    out = [("plain", ""), ("wholefile", "")]
    for scheme in model.PER_PROVIDER:
        out += [(scheme, p) for p in run.spec["providers"] if (scheme, p) not in skipped]
    return out


# ---- the real driver -----------------------------------------------------------------------------


def test_every_line_has_runs_samples(scenario):
    counts: dict[tuple, list[int]] = {}
    for s in scenario.samples:
        assert s["ns"] > 0
        counts.setdefault((s["scheme"], s["provider"], s["n"], s["direction"]), []).append(s["run"])
    wanted = {
        (sc, p, n, d) for sc, p in expected_lines(scenario) for n in N for d in ("write", "read")
    }
    assert set(counts) == wanted
    assert all(sorted(runs) == list(range(RUNS)) for runs in counts.values())
    assert len(scenario.samples) == scenario.expected_samples()
    # Both schemes per provider are measured for the two providers chosen (they offer both).
    assert ("compat", scenario.spec["providers"][0]) in expected_lines(scenario)
    assert ("confcrypt", scenario.spec["providers"][1]) in expected_lines(scenario)


def test_heap_lines(scenario):
    heap = {(h["scheme"], h["provider"], h["n"], h["direction"]): h for h in scenario.heap}
    wanted = {
        (sc, p, n, d) for sc, p in expected_lines(scenario) for n in N for d in ("write", "read")
    }
    assert set(heap) == wanted
    assert len(scenario.heap) == len(wanted)
    for h in heap.values():
        assert h["allocs"] > 0 and h["bytes"] > 0 and h["peak_live_bytes"] > 0


def test_info_and_notes(scenario):
    assert scenario.info["gpg"].startswith("gpg")
    assert set(scenario.info["providers"]) == set(scenario.spec["providers"])
    assert "master password" in scenario.info["master_password"]
    for scheme, provider in expected_lines(scenario):
        assert model.Series(scheme, provider, "").label in scenario.notes
    # Whole-file reads verified the configured signer.
    assert any("signature by" in x for x in scenario.notes["wholefile"])


def test_analyse_gives_h_and_f_for_every_non_plain_series(scenario):
    results = scenario.analyse()
    got = {(o.series.label, o.series.direction): o for o in results.overheads}
    for scheme, provider in expected_lines(scenario):
        if scheme == "plain":
            continue
        for d in ("write", "read"):
            o = got[(Series(scheme, provider, d).label, d)]
            assert o.n_values == N
            assert o.mean_f > 0
    assert got[("wholefile", "read")].thesis == (0.005, 25.609)


def test_html_section_and_summary_render(scenario):
    results = scenario.analyse()
    html = config_report.render_section(
        results, scenario.info, {"cpu_model": "test cpu"}, scenario.spec, scenario.notes
    )
    assert html.count("<svg") == 2
    assert "h (s), thesis" in html and "25.609" in html
    assert "Heap at n = 3" in html and "Writing and reading 3 values" in html
    assert "master password" in html and "test cpu" in html
    stored = (figures.to_figures(scenario), figures.stored_settings(scenario))
    (section,) = config_report.sections(*stored)
    assert section.key == "scenario-config" and section.html.count("<svg") == 2
    text = figures.summary(*stored)
    assert "confcrypt/" in text and "wholefile" in text and "f, thesis" in text
    assert text == figures.summary_of(results, scenario.info)


def test_store_round_trip(scenario, tmp_path):
    db = Store.open(tmp_path / "results.db")
    run_id = db.create_run(
        suite=model.STORE_SUITE,
        settings={},
        argv=["cryptobench", "scenario", "config"],
        versions={
            "cryptobench": "test",
            "runner": "confcrypt-bench",
            "runner_version": "test",
            "runner_path": scenario.spec["driver"],
        },
        machine={},
        libraries=[],
        cases=[],
    )
    db.add_figures(run_id, figures.to_figures(scenario))
    loaded = figures.from_figures(db.figures(run_id), figures.stored_settings(scenario))
    assert loaded.spec == scenario.spec and loaded.skipped == scenario.skipped
    fields = ("scheme", "provider", "n", "direction", "run", "ns")
    assert sorted(json.dumps(s, sort_keys=True) for s in loaded.samples) == sorted(
        json.dumps({k: s[k] for k in fields}, sort_keys=True) for s in scenario.samples
    )
    assert loaded.analyse().medians == scenario.analyse().medians
    assert loaded.info == scenario.info and loaded.notes == scenario.notes
    assert loaded.analyse().heap == scenario.analyse().heap


@pytest.mark.parametrize(
    "spec, message",
    [
        ("not json", "not JSON"),
        ([], "one JSON object"),
        ({"schemes": ["rot13"], "providers": [], "n": [1], "runs": 1, "dir": "/"}, "rot13"),
        ({"schemes": ["plain"], "providers": [], "n": [0], "runs": 1, "dir": "/"}, '"n"'),
        ({"schemes": ["plain"], "providers": [], "n": [1], "runs": 0, "dir": "/"}, '"runs"'),
        ({"schemes": ["plain"], "providers": [], "n": [1], "runs": 1}, '"dir"'),
        (
            {"schemes": ["plain"], "providers": ["no-such-lib"], "n": [1], "runs": 1, "dir": "/"},
            "no-such-lib",
        ),
        (
            {"schemes": ["plain"], "providers": [], "n": [1], "runs": 1, "dir": "/", "x": 1},
            "unknown field",
        ),
        ({"schemes": ["compat"], "providers": [], "n": [1], "runs": 1, "dir": "/"}, "providers"),
        (
            {
                "schemes": ["plain"],
                "providers": [],
                "n": [1],
                "runs": 1,
                "dir": "/",
                "compat_kdf": "md5",
            },
            "unknown compat_kdf 'md5'",
        ),
        (
            {"schemes": ["wholefile"], "providers": [], "n": [1], "runs": 1, "dir": "/"},
            '"recipient"',
        ),
        (
            {
                "schemes": ["wholefile"],
                "providers": [],
                "n": [1],
                "runs": 1,
                "dir": "/",
                "recipient": "0x1234",
                "signer": "0x1234",
            },
            "fingerprint",
        ),
        (
            {"schemes": ["plain"], "providers": [], "n": [1], "runs": 1, "dir": "/nonexistent/x"},
            "not a directory",
        ),
    ],
)
def test_bad_spec_is_an_error_with_exit_2(driver, spec, message):
    done = run_raw(driver, spec)
    assert done.returncode == 2
    out = lines(done)
    assert len(out) == 1 and out[0]["type"] == "error"
    assert message in out[0]["message"]


def test_run_driver_raises_the_drivers_error(driver, tmp_path):
    spec = {"schemes": ["plain"], "providers": [], "n": [1], "runs": 0, "dir": str(tmp_path)}
    with pytest.raises(UserError, match="runs"):
        config_driver.run_driver(driver, spec, lambda m: None)


def _first_block(stored: bytes, password: bytes, hash_name: str) -> bytes:
    """The thesis format's header block decrypted with PBKDF2-HMAC-<hash_name>, computed here
    with hashlib and the cryptography package, not by the driver."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    assert stored[:10] == b"#!crypto00"
    salt_len = int.from_bytes(stored[10:14], "little")
    salt, ct = stored[14 : 14 + salt_len], stored[14 + salt_len :]
    dk = hashlib.pbkdf2_hmac(hash_name, password + b"\0", salt, 15000, 48)
    return Cipher(algorithms.AES(dk[:32]), modes.CBC(dk[32:])).decryptor().update(ct[:16])


def test_the_thesis_scheme_runs_each_librarys_own_kdf(driver, tmp_path):
    """As the thesis's variants did (Elektra dfa9bb8): libgcrypt PBKDF2-HMAC-SHA512, OpenSSL
    SHA-1, Botan SHA-256. The values the driver wrote open with that hash, and only with it."""
    from cryptobench.criteria.paper000 import THESIS_KDF

    pytest.importorskip("cryptography")
    if not shutil.which("gpg"):
        pytest.skip("gpg not installed")
    libs = list(THESIS_KDF)
    with config_driver.GnupgHome() as gnupg:
        spec = config_driver.driver_spec(libs, [1], 1, tmp_path, gnupg, ("compat",))
        seen: list[dict] = []
        config_driver.run_driver(driver, spec, seen.append)
        password = subprocess.run(
            ["gpg", "--batch", "--quiet", "--decrypt", str(tmp_path / "master-password.gpg")],
            env={**os.environ, "GNUPGHOME": str(gnupg.path)},
            capture_output=True,
            check=True,
        ).stdout
    assert seen[0]["compat_kdf"] == THESIS_KDF and seen[0]["compat_kdf_rule"] == "thesis"
    assert len(password) == 30
    for lib, kdf in THESIS_KDF.items():
        text = (tmp_path / f"compat-{lib}-n1.ini").read_text()
        token = next(v.strip() for line in text.splitlines() for k, _, v in [line.partition("=")]
                     if v.strip().startswith("@BASE64"))  # fmt: skip
        stored = base64.b64decode(token[len("@BASE64") :])
        for other in ("sha512", "sha256", "sha1"):
            block = _first_block(stored, password, other)
            # type flag 1 (string), a small length, 11 zero bytes: only the right key gives it
            well_formed = block[0] == 1 and block[5:] == bytes(11)
            assert well_formed == (kdf == f"pbkdf2-{other}"), (lib, other)


def test_plain_only_needs_no_gpg(driver, tmp_path):
    spec = {"schemes": ["plain"], "providers": [], "n": [2, 5], "runs": 3, "dir": str(tmp_path)}
    out = lines(run_raw(driver, spec))
    assert out[-1] == {"type": "done"}
    assert sum(1 for m in out if m["type"] == "sample") == 2 * 3 * 2
    # The file is a real INI file of n values, left in the work directory.
    text = (tmp_path / "plain-n5.ini").read_text()
    assert text.count("=") == 5 and "[section00]" in text


# ---- analysis on hand-made samples ---------------------------------------------------------------


def sample(scheme, provider, n, direction, run, ms):
    return {
        "scheme": scheme,
        "provider": provider,
        "n": n,
        "direction": direction,
        "run": run,
        "ns": int(ms * 1e6),
    }


def test_analyse_known_medians_give_known_h_and_f():
    rows = []
    # plain read: n=1 -> median 2 ms, n=2 -> median 4 ms (even count: mean of the middle two)
    rows += [sample("plain", "", 1, "read", i, ms) for i, ms in enumerate([3, 1, 2])]
    rows += [sample("plain", "", 2, "read", i, ms) for i, ms in enumerate([3, 5, 4.5, 3.5])]
    # compat/openssl read: n=1 -> 20 ms, n=2 -> 40 ms; n=5 has no baseline and is left out
    rows += [sample("compat", "openssl", 1, "read", i, ms) for i, ms in enumerate([10, 30, 20])]
    rows += [sample("compat", "openssl", 2, "read", i, ms) for i, ms in enumerate([40])]
    rows += [sample("compat", "openssl", 5, "read", 0, 99)]
    # wholefile write against plain write: 3 ms vs 1 ms at n=1
    rows += [sample("plain", "", 1, "write", 0, 1), sample("wholefile", "", 1, "write", 0, 3)]
    results = model.analyse(rows)

    assert results.medians[Series("plain", "", "read")] == {1: 0.002, 2: 0.004}
    assert results.runs[Series("plain", "", "read")] == {1: 3, 2: 4}
    assert results.ranges[Series("compat", "openssl", "read")][1] == (0.01, 0.03)
    by = {(o.series.label, o.series.direction): o for o in results.overheads}
    assert set(by) == {("compat/openssl", "read"), ("wholefile", "write")}
    compat = by[("compat/openssl", "read")]
    assert compat.n_values == [1, 2]
    assert compat.mean_h_s == pytest.approx((0.018 + 0.036) / 2)
    assert compat.mean_f == pytest.approx(10.0)
    assert compat.thesis == (1.805, 2835.492)
    whole = by[("wholefile", "write")]
    assert whole.mean_h_s == pytest.approx(0.002)
    assert whole.mean_f == pytest.approx(3.0)
    assert whole.thesis == (0.007, 2.791)
    # Writes come first in the table, then reads; the thesis's figures sit beside ours.
    assert figures.overhead_rows(results)[1] == [
        "decryption",
        "compat/openssl",
        "0.0270",
        "10.00",
        "1.805",
        "2835.492",
        "2",
    ]


def test_analyse_without_baseline_has_no_overhead():
    results = model.analyse([sample("confcrypt", "gcrypt", 10, "read", 0, 5)])
    assert results.overheads == []
    assert figures.headline_n(results) == 10


def test_time_rows_at_1000_compare_with_compat_and_the_thesis():
    rows = []
    for run, scale in enumerate([1.0, 1.1, 0.9]):
        rows += [sample("plain", "", 1000, d, run, 2 * scale) for d in ("write", "read")]
        rows += [sample("compat", "gcrypt", 1000, d, run, 8000 * scale) for d in ("write", "read")]
        rows += [sample("confcrypt", "gcrypt", 1000, d, run, 20 * scale) for d in ("write", "read")]
    results = model.analyse(rows, [{**rows[0], "allocs": 10, "bytes": 2048, "peak_live_bytes": 1}])
    assert figures.headline_n(results) == 1000
    table = {r[0]: r for r in figures.time_rows(results, 1000)}
    assert table["compat/gcrypt"][3] == "8.00 s"
    assert table["compat/gcrypt"][4] == "7.20 s – 8.80 s"
    assert table["compat/gcrypt"][6] == "10.71 s"  # Table A.2, n = 1000: 10.708561 s
    assert table["confcrypt/gcrypt"][5] == "400× faster"
    assert table["plain"][6] == "3.06 ms" and table["plain"][7] == "3"
    assert figures.heap_rows(results, 1000) == [["plain", "write", "10", "2.0 KiB", "1 B", "0.0"]]


def test_default_providers_need_gcm_and_pbkdf2_sha512():
    algorithms = {
        "openssl": {"aes-256-gcm": ("encrypt", "decrypt"), "pbkdf2-sha512": ("derive",)},
        "sodium": {"aes-256-gcm": ("encrypt", "decrypt")},
        "nettle": {"pbkdf2-sha512": ("derive",), "aes-256-cbc": ("encrypt", "decrypt")},
    }
    assert config_driver.default_providers(algorithms) == ["openssl"]


def test_find_driver_refuses_a_bad_env_value(monkeypatch, tmp_path):
    monkeypatch.setenv("CRYPTOBENCH_CONFCRYPT_BENCH", str(tmp_path / "missing"))
    with pytest.raises(UserError, match="CRYPTOBENCH_CONFCRYPT_BENCH"):
        config_driver.find_driver()


def test_a_skipped_line_is_a_skipped_figure_and_comes_back():
    skip = {"scheme": "compat", "provider": "nettle", "reason": "no PBKDF2-HMAC-SHA512"}
    run = model.ScenarioRun(spec={"n": [1]}, skipped=[skip])
    (figure,) = figures.to_figures(run)
    assert figure.status == "skipped" and figure.reason == skip["reason"]
    back = figures.from_figures([figure], figures.stored_settings(run))
    assert back.skipped == [skip] and back.samples == [] and back.spec == {"n": [1]}


# ---- the command, as cli.py runs it --------------------------------------------------------------


def test_command_stores_prints_and_writes(driver, providers, native_runner, tmp_path, capsys):
    """Started from code (as `reproduce` does) with --report and --json-out: the run is stored as
    figures, and the two files are byte for byte what `report N` and `export N -f json` write."""
    from cryptobench import cli
    from cryptobench.scenarios.base import Target

    if not shutil.which("gpg"):
        pytest.skip("gpg not installed")
    db_path = tmp_path / "results.db"
    options = command.Options(
        n=(1, 2), runs=1, providers=",".join(providers), driver=driver, workdir=tmp_path
    )
    target = Target(db=db_path, report=tmp_path / "r.html", json_out=tmp_path / "r.json")
    started = command.start(options, target)
    assert started.status == 0
    out = capsys.readouterr().out
    assert "Writing and reading a configuration of 2 values" in out
    assert f"stored as run {started.run_id}" in out
    db = Store.open(db_path)
    info = db.run(started.run_id)
    assert info.status == "complete" and info.suite == model.STORE_SUITE
    stored = figures.from_figures(db.figures(started.run_id), info.settings["scenario"])
    assert stored.samples and len(stored.samples) == stored.expected_samples()
    assert stored.spec["providers"] == providers and stored.info["gpg"].startswith("gpg")
    assert "<svg" in (tmp_path / "r.html").read_text()
    run = str(started.run_id)
    assert cli.main(["report", run, "--db", str(db_path), "-o", str(tmp_path / "n.html")]) == 0
    assert (tmp_path / "n.html").read_bytes() == (tmp_path / "r.html").read_bytes()
    assert cli.main(["export", run, "--db", str(db_path), "-f", "json"]) == 0
    exported = capsys.readouterr().out.split("\n", 1)[1]  # after report's "report: FILE"
    assert exported.encode() == (tmp_path / "r.json").read_bytes()
    times = [f for f in json.loads(exported)["figures"] if f["metric"] == "time"]
    assert sum(len(f["values"]) for f in times) == len(stored.samples)
    # The work directory was removed after the run.
    assert not list(tmp_path.glob("cryptobench-config-*"))


@pytest.mark.parametrize(
    "argv", [["--n", "0"], ["--n", "1,1"], ["--n", "x"], ["--runs", "0"], ["--quick", "--n", "1"]]
)
def test_command_options_are_checked(argv):
    import argparse

    parser = argparse.ArgumentParser(exit_on_error=False)
    command.add_arguments(parser)
    with pytest.raises((argparse.ArgumentError, SystemExit)):
        parser.parse_args(argv)


def test_extrapolation_follows_the_linear_fit_and_is_labelled():
    # milliseconds: 10 ms + 6 ms per value
    rows = [sample("compat", "gcrypt", n, "read", 0, 10 + 6 * n) for n in (1, 10, 100)]
    rows += [sample("plain", "", n, "read", 0, 1) for n in (1, 10, 100, 1000)]
    medians = model.analyse(rows).medians
    fitted = model.extrapolate(medians, {"compat": [1000]})
    assert fitted[Series("compat", "gcrypt", "read")][1000] == pytest.approx(6.01)
    assert Series("plain", "", "read") not in fitted  # only the scheme asked for
    run = model.ScenarioRun(spec={}, samples=rows, extrapolate={"compat": [1000]})
    table = {r[0]: r for r in figures.time_rows(run.analyse(), 1000)}
    assert table["compat/gcrypt"][3:5] == ["≈6.01 s", "extrapolated (fit)"]


def test_quick_measures_the_thesis_scheme_only_at_small_n():
    passes = command._passes(model.QUICK_N, quick=True)
    assert passes[0] == (tuple(model.SCHEMES), [1, 10, 100])
    assert "compat" not in passes[1][0] and passes[1][1] == [1000]
    assert command._passes(model.QUICK_N, quick=False) == [
        (tuple(model.SCHEMES), [1, 10, 100, 1000])
    ]


def test_reproduce_measures_the_thesis_libraries_and_the_scenario_every_one(native_runner):
    """`reproduce 000` (thesis_providers) and --quick: the thesis's three libraries; the scenario
    by default: every provider offering the algorithms, more than those three here."""
    from cryptobench import runner

    caps = runner.list_capabilities(native_runner)
    every = command.choose_providers(command.Options(), caps)
    thesis = command.choose_providers(command.Options(thesis_providers=True), caps)
    assert command.choose_providers(command.Options(quick=True), caps) == thesis
    assert thesis == [p for p in model.THESIS_PROVIDERS if p in every]
    assert len(every) > len(thesis) and set(thesis) <= set(every)
    assert command.choose_providers(command.Options(providers="openssl"), caps) == ["openssl"]
