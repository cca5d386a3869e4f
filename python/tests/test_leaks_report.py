"""The constant-time column (docs/leaks.md, "In the report and recommend"): a speed run's report
and `recommend` show what the `cryptobench leaks` runs stored in the same file said about each
provider's algorithm -- the timing verdict and the taint verdict, the pair count, the CPU and
the leaks run -- and "not checked" where no leaks run looked. The first tests store a real
leaks run that finds the deliberately leaky test provider beside a real speed run; the others
put verdicts of known content in a real store, to show which verdict wins and what
`recommend --avoid-leaky` passes over."""

import json
import re
from html import unescape

import pytest
from conftest import run_cli, store_run

from cryptobench import analysis, leakverdicts, recommend, report
from cryptobench.figures import Figure
from cryptobench.store import Store

FAULTS = {"CRYPTOBENCH_TEST_PROVIDERS": "1"}
ROUNDS = 5000


def table_rows(html: str, section: str) -> list[list[str]]:
    body = re.search(rf'<section id="{section}">(.*?)</section>', html, re.S)
    assert body, f"no section {section}"
    cells = re.compile(r"<td[^>]*>(.*?)</td>", re.S)
    return [
        [unescape(re.sub(r"<[^>]+>", "", cell)) for cell in cells.findall(row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)
        if "<td" in row
    ]


@pytest.fixture(scope="module")
def measured(native_runner, tmp_path_factory):
    """Run 1: a small speed run of fault/leaky and OpenSSL; run 2: a leaks run of both."""
    tmp = tmp_path_factory.mktemp("constant-time")
    db, suite, out = tmp / "r.db", tmp / "s.toml", tmp / "leaks.json"
    suite.write_text(
        'providers = ["fault/leaky", "openssl"]\nalgorithms = ["aes-256-gcm", "sha256"]\n'
        'operations = ["encrypt", "decrypt", "hash"]\nsizes = [64]\nsamples = 3\nbatch = 2\n'
        "target_sample_ms = 0.5\nwarmup_ms = 2\n"
    )
    done = run_cli("run", "--suite", str(suite), "--db", str(db), env=FAULTS)
    assert done.returncode == 0, done.stderr
    done = run_cli(
        "leaks", "-p", "fault/leaky,openssl", "-a", "aes-256-gcm", "--rounds", str(ROUNDS),
        "--db", str(db), "--json-out", str(out), env=FAULTS,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    verdicts: dict[str, set[str]] = {}
    for f in json.loads(out.read_text())["figures"]:
        if f["metric"] == "median difference" and not f["extra"]["control"]:
            verdicts.setdefault(f["key"]["provider"], set()).add(f["extra"]["verdict"])
    cpu = Store.open(db, create=False).machine(2)["cpu_model"]
    return db, verdicts, cpu


def _expected(verdicts: set[str]) -> str:
    if "leak" in verdicts:
        return "leak"
    return "no-leak" if verdicts == {"no-leak"} else "inconclusive"


def test_the_report_shows_the_leaks_runs_verdict_and_not_checked(measured, tmp_path):
    db, verdicts, cpu = measured
    assert verdicts["fault/leaky"] == {"leak"}  # the positive control, as in test_leaks.py
    html_file = tmp_path / "r.html"
    done = run_cli("report", "1", "--db", str(db), "-o", str(html_file), env=FAULTS)
    assert done.returncode == 0, done.stderr
    html = html_file.read_text()
    rows = {tuple(r[:3]): r for r in table_rows(html, "constant-time")}
    leaky = rows["fault/leaky", "aes-256-gcm", "decrypt"]
    assert leaky[3].startswith("leak: ") and leaky[4] == str(ROUNDS)
    assert leaky[5] == "not checked" and leaky[7] == cpu and leaky[8] == "2"
    openssl = rows["openssl", "aes-256-gcm", "decrypt"]
    assert openssl[3].split(":")[0] == _expected(verdicts["openssl"])
    # Timing checked decryption only; no taint run: the others were not checked.
    for key in (("openssl", "aes-256-gcm", "encrypt"), ("openssl", "sha256", "hash")):
        assert rows[key][3] == rows[key][5] == "not checked", rows[key]
    every = table_rows(html, "all")
    assert any(r[0] == "fault/leaky" and r[2] == "decrypt" and "timing leak" in r for r in every)
    assert any(r[0] == "openssl" and r[2] == "hash" and "not checked" in r for r in every)


def test_recommend_carries_the_verdict_of_its_choice(measured):
    db, verdicts, cpu = measured
    done = run_cli("recommend", "--db", str(db), "--run", "1", "--json", env=FAULTS)
    assert done.returncode == 0, done.stderr
    rows = {r["kind"]: r for r in json.loads(done.stdout)["recommendations"]}
    aead = rows["aead"]  # fault/leaky is a test variant, never recommended: OpenSSL
    assert (aead["provider"], aead["algorithm"]) == ("openssl", "aes-256-gcm")
    timing = aead["constant_time"]["timing"]
    assert timing["verdict"] == _expected(verdicts["openssl"]) and timing["operation"] == "decrypt"
    assert (timing["pairs"], timing["leaks_run"], timing["machine"]) == (ROUNDS, 2, cpu)
    assert aead["constant_time"]["taint"] is None
    assert rows["hash"]["constant_time"] == {
        "checked": False, "leaky": False, "timing": None, "taint": None,
    }  # fmt: skip
    text = run_cli("recommend", "--db", str(db), "--run", "1", env=FAULTS).stdout
    lines = {line.split("  ")[0]: line for line in text.splitlines()}
    assert "constant time" in text and "not checked" in lines["hash"]
    assert f"timing (decrypt): {timing['verdict']}, {ROUNDS} pairs (leaks run 2" in lines["aead"]


# ---- verdicts of known content in a real store --------------------------------------------------


def _leaks_run(db: Store, figures: list[Figure], cpu: str) -> int:
    run_id = db.create_run(
        suite=leakverdicts.SUITE,
        settings={"method": "timing"},
        argv=["cryptobench", "leaks"],
        versions={"cryptobench": "test", "runner": "cryptobench-native",
                  "runner_version": "0.1.0", "runner_path": "/nowhere"},
        machine={"cpu_model": cpu, "hostname": "h"},
        libraries=[],
        cases=[],
    )  # fmt: skip
    db.add_figures(run_id, figures)
    db.set_status(run_id, "complete")
    return run_id


def _timing(provider: str, verdict: str, n: int = 800) -> Figure:
    key = {"provider": provider, "algorithm": "aes-256-gcm", "operation": "decrypt",
           "classes": "tag-first vs tag-last"}  # fmt: skip
    extra = {"verdict": verdict, "detail": "", "n": n}
    return Figure(key, "median difference", "ns", (), extra=extra)


def _taint(provider: str, sites: int) -> Figure:
    key = {"provider": provider, "algorithm": "aes-256-gcm", "method": "taint"}
    groups = [{"kind": "memory index", "frame": "AES_encrypt", "sites": sites}] if sites else []
    verdict = "secret-dependent" if sites else "taint-clean"
    ran = {"encrypt": "ok", "decrypt-valid": "ok", "decrypt-tag-last": "refused"}
    extra = {"verdict": verdict, "detail": "", "groups": groups, "operations": ran}
    return Figure(key, leakverdicts.TAINT_METRIC, "sites", (sites,), better="lower", extra=extra)


@pytest.fixture
def store(tmp_path):
    timings = {
        ("alpha", "default", "encrypt", "aes-256-gcm", 4096): 1000.0,
        ("beta", "default", "encrypt", "aes-256-gcm", 4096): 3000.0,
        ("beta", "default", "decrypt", "aes-256-gcm", 4096): 3000.0,
        ("gamma", "default", "encrypt", "aes-256-gcm", 4096): 5000.0,
        ("alpha", "default", "hash", "sha256", 4096): 2000.0,
    }
    db, run_id = store_run(tmp_path / "r.db", timings, n=21, spread=0.002)
    old = _leaks_run(db, [_timing("alpha", "no-leak"), _timing("beta", "inconclusive")], "Old CPU")
    new = _leaks_run(db, [_timing("alpha", "leak", 20000)], "Test CPU")
    taint = _leaks_run(db, [_taint("beta", 0), _taint("gamma", 12)], "Test CPU")
    return db, run_id, (old, new, taint)


def test_the_latest_verdict_of_each_method_wins(store):
    db, _, (old, new, taint) = store
    checks = leakverdicts.load(db)
    assert checks.runs == [taint, new, old]
    alpha = checks.of("alpha", "aes-256-gcm")
    assert (alpha.timing.verdict, alpha.timing.run, alpha.timing.pairs) == ("leak", new, 20000)
    beta = checks.of("beta", "aes-256-gcm")
    assert (beta.timing.verdict, beta.timing.machine) == ("inconclusive", "Old CPU")
    assert (beta.taint.verdict, beta.taint.run) == ("taint-clean", taint) and not beta.leaky
    assert checks.of("gamma", "aes-256-gcm").leaky  # by taint alone
    # The timing test speaks for decryption; taint for encryption and decryption.
    assert checks.of("alpha", "aes-256-gcm", "encrypt").text("encrypt") == "not checked"
    assert checks.of("beta", "aes-256-gcm", "encrypt").taint is not None
    assert leakverdicts.load(db, old).of("alpha", "aes-256-gcm").timing.verdict == "no-leak"


def test_recommend_passes_over_a_provider_found_leaky_by_either_method(store):
    db, run_id, (_, new, taint) = store
    results, checks = analysis.load(db, run_id), leakverdicts.load(db)
    aead = {c.kind: c for c in recommend.recommend(results, size=4096, checks=checks).choices}[
        "aead"
    ]
    assert aead.case.provider == "alpha" and aead.constant_time.leaky
    avoided = recommend.recommend(results, size=4096, checks=checks, avoid_leaky=True)
    aead = {c.kind: c for c in avoided.choices}["aead"]
    assert aead.case.provider == "beta"
    assert "passed over as leaky: alpha aes-256-gcm, gamma aes-256-gcm" in aead.note
    done = run_cli("recommend", "--db", str(db.path), "--run", str(run_id), "--avoid-leaky")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("aead"))
    assert "beta" in line and f"taint: taint-clean (leaks run {taint}, Test CPU)" in line
    done = run_cli("recommend", "--db", str(db.path), "--run", str(run_id), "--leaks", str(new))
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("aead"))
    assert f"timing (decrypt): leak, 20000 pairs (leaks run {new}, Test CPU)" in line
    assert "taint" not in line  # --leaks: that run's verdicts only


def test_the_report_marks_a_verdict_from_another_cpu(store):
    db, run_id, (old, _, taint) = store
    html = report.render(analysis.load(db, run_id), checks=leakverdicts.load(db))
    rows = {tuple(r[:3]): r for r in table_rows(html, "constant-time")}
    beta = rows["beta", "aes-256-gcm", "decrypt"]
    assert beta[3] == "inconclusive" and beta[5] == "taint-clean" and beta[8] == f"{old}, {taint}"
    assert beta[7] == "Old CPU (not this run's CPU), Test CPU"
    # The timing test timed decryption; the taint check ran encryption too.
    encrypt = rows["beta", "aes-256-gcm", "encrypt"]
    assert encrypt[3] == "not checked" and encrypt[5] == "taint-clean"
    assert rows["alpha", "sha256", "hash"][3:6] == ["not checked", "-", "not checked"]
    assert '<section id="constant-time">' not in report.render(analysis.load(db, run_id))
