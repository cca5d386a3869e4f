"""`cryptobench recommend`: the fastest algorithm and provider per kind at a security level."""

import json

import pytest
from conftest import run_cli, store_run

from cryptobench import analysis, recommend, runner
from cryptobench.errors import UserError

# ---- the choice, on stored data whose answer is known -------------------------------------------


@pytest.fixture
def results(tmp_path):
    timings = {
        # ciphers: 3DES is fastest here but disallowed by NIST after 2023; AES-128 is 128 bits.
        ("alpha", "default", "encrypt", "des-ede3-cbc", 4096): 100.0,
        ("alpha", "default", "encrypt", "aes-128-ctr", 4096): 400.0,
        ("beta", "default", "encrypt", "aes-256-ctr", 4096): 500.0,
        ("alpha", "default", "encrypt", "aes-128-ctr", 65536): 4000.0,
        ("beta", "default", "encrypt", "aes-256-ctr", 65536): 3000.0,
        # hashes: SHA-1 is fast and broken.
        ("alpha", "default", "hash", "sha1", 4096): 1000.0,
        ("alpha", "default", "hash", "sha512", 4096): 3000.0,
        ("beta", "default", "hash", "sha256", 4096): 2000.0,
        # signatures: RSA-2048 (112 bits) signs slower than Ed25519 but verifies faster.
        ("alpha", "default", "sign", "rsa-2048-pss-sha256", 32): 900_000.0,
        ("alpha", "default", "verify", "rsa-2048-pss-sha256", 32): 20_000.0,
        ("alpha", "default", "sign", "ed25519", 32): 25_000.0,
        ("beta", "default", "sign", "ed25519", 32): 15_000.0,
        ("beta", "default", "verify", "ed25519", 32): 50_000.0,
        ("alpha", "default", "keygen", "rsa-2048", 0): 200_000_000.0,
        ("beta", "default", "keygen", "x25519", 0): 30_000.0,
        ("alpha", "default", "derive", "x25519", 0): 35_000.0,
        ("alpha", "default", "derive", "pbkdf2-sha256", 16): 4_000_000.0,
        ("beta", "default", "derive", "pbkdf2-sha256", 16): 3_000_000.0,
        ("alpha", "default", "derive", "scrypt", 16): 50_000_000.0,
        # a variant with acceleration off that happens to come out fastest: not deployable
        ("alpha", "soft", "hash", "sha256", 4096): 100.0,
    }
    costs = {
        ("alpha", "default", "derive", "pbkdf2-sha256", 16): {"iterations": 10000},
        ("beta", "default", "derive", "pbkdf2-sha256", 16): {"iterations": 10000},
        ("alpha", "default", "derive", "scrypt", 16): {"N": 16384, "r": 8, "p": 1},
    }
    db, run_id = store_run(tmp_path / "r.db", timings, costs=costs)
    return analysis.load(db, run_id)


def by_kind(rec: recommend.Recommendation) -> dict[str, recommend.Choice]:
    return {ch.kind: ch for ch in rec.choices if ch.kind != "kdf"}


def test_the_fastest_qualifying_case_of_each_kind(results):
    rec = recommend.recommend(results, level=128, size=4096, year=2026)
    got = by_kind(rec)
    assert (got["cipher"].case.algorithm, got["cipher"].case.label) == ("aes-128-ctr", "alpha")
    assert got["cipher"].size == 4096 and got["cipher"].candidates == 2
    assert got["hash"].case.algorithm == "sha256"  # SHA-1 is below 128 bits
    assert (got["signature sign"].case.algorithm, got["signature sign"].case.label) == (
        "ed25519",
        "beta",
    )
    assert got["signature verify"].case.algorithm == "ed25519"  # RSA-2048: 112 bits
    assert got["key generation"].case.algorithm == "x25519"
    assert got["key agreement"].case.label == "alpha"
    assert got["aead"].case is None and "no successful aead case" in got["aead"].note
    assert got["signature verify"].figure == pytest.approx(1e9 / 50_000, rel=0.05)


def test_a_lower_level_admits_weaker_algorithms_but_never_disallowed_ones(results):
    got = by_kind(recommend.recommend(results, level=112, size=4096, year=2026))
    # 3DES (112 bits) is the fastest cipher, but NIST disallows it after 2023.
    assert got["cipher"].case.algorithm == "aes-128-ctr"
    assert got["signature verify"].case.algorithm == "rsa-2048-pss-sha256"
    assert got["key generation"].case.algorithm == "x25519"
    got_2023 = by_kind(recommend.recommend(results, level=112, size=4096, year=2023))
    assert got_2023["cipher"].case.algorithm == "des-ede3-cbc"


def test_a_level_only_some_kinds_reach_says_why_the_others_have_none(results):
    got = by_kind(recommend.recommend(results, level=256, size=4096, year=2026))
    assert got["cipher"].case.algorithm == "aes-256-ctr"
    assert got["hash"].case.algorithm == "sha512"
    assert got["signature sign"].case is None
    assert "nothing measured reaches 256 bits" in got["signature sign"].note
    assert "ed25519 (128 bits)" in got["signature sign"].note


def test_symmetric_kinds_compare_at_the_nearest_measured_size(results):
    got = by_kind(recommend.recommend(results, level=128, size=100_000, year=2026))
    # 64 KiB is the measured size nearest to 100000 bytes; there AES-256 is faster.
    assert got["cipher"].size == 65536 and got["cipher"].case.algorithm == "aes-256-ctr"
    assert "nearest" in got["cipher"].note


def test_kdfs_are_ranked_only_against_the_same_kdf_at_the_same_cost(results):
    kdfs = [ch for ch in recommend.recommend(results, year=2026).choices if ch.kind == "kdf"]
    assert [(ch.case.algorithm, ch.case.label, ch.case.cost) for ch in kdfs] == [
        ("pbkdf2-sha256", "beta", {"iterations": 10000}),
        ("scrypt", "alpha", {"N": 16384, "p": 1, "r": 8}),
    ]


def test_a_level_no_algorithm_reaches_is_an_error(results):
    with pytest.raises(UserError, match="no algorithm reaches 512 bits"):
        recommend.recommend(results, level=512)


def test_the_json_answer(results):
    doc = recommend.to_json(recommend.recommend(results, level=128, size=4096, year=2026))
    assert (doc["level_bits"], doc["year"], doc["size"]) == (128, 2026, 4096)
    assert set(doc["documents"]) == {"nist", "bsi", "ecrypt"}
    rows = {r["kind"]: r for r in doc["recommendations"] if r["kind"] != "kdf"}
    assert rows["aead"]["found"] is False
    sign = rows["signature sign"]
    assert (sign["provider"], sign["algorithm"], sign["strength_bits"]) == ("beta", "ed25519", 128)
    assert sign["bytes_per_s"] is None and sign["ops_per_s"] > 0
    assert sign["documents"]["nist"] == "acceptable"
    json.dumps(doc, allow_nan=False)


# ---- the command, on a real run of the native runner --------------------------------------------


@pytest.fixture(scope="module")
def small_run(native_runner, tmp_path_factory):
    """A small real run: Ed25519, X25519 and PBKDF2 as the quick suite measures them, plus a
    hash, on OpenSSL (or the first provider offering them all)."""
    caps = runner.list_capabilities(native_runner)
    wanted = [("ed25519", "sign"), ("ed25519", "verify"), ("x25519", "derive"),
              ("pbkdf2-sha256", "derive"), ("sha256", "hash"), ("sha512", "hash")]  # fmt: skip
    names = [p.name for p in caps.providers.values() if all(p.offers(a, o) for a, o in wanted)]
    assert names, "no provider offers Ed25519, X25519, PBKDF2-SHA-256 and SHA-256/512"
    provider = "openssl" if "openssl" in names else names[0]
    tmp = tmp_path_factory.mktemp("recommend")
    suite = tmp / "pk.toml"
    suite.write_text(
        f'providers = ["{provider}"]\nsamples = 3\nbatch = 3\ntarget_sample_ms = 0.5\n'
        "warmup_ms = 2\n"
        '[[matrix]]\nalgorithms = ["sha256", "sha512"]\nsizes = [1024, 4096]\n'
        '[[matrix]]\nalgorithms = ["ed25519", "x25519", "pbkdf2-sha256"]\n'
        'operations = ["sign", "verify", "derive"]\nsizes = [32]\ncost = { iterations = 1000 }\n'
    )
    db = tmp / "r.db"
    done = run_cli("run", "--suite", str(suite), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "operations per second" in done.stdout
    return db, provider


def test_recommend_at_128_bits_from_a_real_run(small_run):
    db, provider = small_run
    done = run_cli("recommend", "--db", str(db), "--size", "4K")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "≥ 128 bits" in out and "at 4 KiB" in out
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "sha256" in rows["hash"] or "sha512" in rows["hash"]
    assert "ed25519" in rows["signature sign"] and provider in rows["signature sign"]
    assert "x25519" in rows["key agreement"]
    assert "pbkdf2-sha256 (iterations=1000)" in rows["kdf"]
    assert "no successful cipher case in run 1" in rows["cipher"]
    assert "BSI TR-02102-1" in out and "Version 2024-01" in out

    doc = json.loads(run_cli("recommend", "--db", str(db), "--json").stdout)
    found = {r["kind"]: r for r in doc["recommendations"] if r["found"]}
    assert set(found) == {"hash", "signature sign", "signature verify", "key agreement", "kdf"}
    assert found["hash"]["size"] == 4096  # 16 KiB was not measured: the nearest size
    assert found["signature sign"]["ops_per_s"] > 0


def test_recommend_at_256_bits_from_a_real_run(small_run):
    db, _ = small_run
    doc = json.loads(run_cli("recommend", "--db", str(db), "--level", "256", "--json").stdout)
    rows = {r["kind"]: r for r in doc["recommendations"]}
    assert rows["hash"]["algorithm"] == "sha512"  # SHA-256 has 128 bits of collision strength
    assert rows["signature sign"]["found"] is False
    assert "ed25519 (128 bits)" in rows["signature sign"]["note"]
    assert rows["kdf"]["algorithm"] == "pbkdf2-sha256"


def test_recommend_errors(small_run, tmp_path):
    db, _ = small_run
    for args, message in (
        (["--level", "300"], "--level 300: no algorithm reaches 300 bits"),
        (["--run", "7"], "no run 7"),
        (["--level", "0"], "'0' is not a positive integer"),
        (["--size", "lots"], "size 'lots'"),
    ):
        done = run_cli("recommend", "--db", str(db), *args)
        assert done.returncode != 0
        assert done.stderr.startswith("cryptobench: error: ") and message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    done = run_cli("recommend", "--db", str(tmp_path / "absent.db"))
    assert "no results database" in done.stderr


def test_a_variant_with_acceleration_off_is_never_recommended(results):
    got = by_kind(recommend.recommend(results, level=128, size=4096, year=2026))
    assert (got["hash"].case.label, got["hash"].case.algorithm) == ("beta", "sha256")


def test_providers_within_the_noise_are_tied_not_ranked(tmp_path):
    timings = {
        ("alpha", "default", "hash", "sha256", 4096): 1000.0,
        ("beta", "default", "hash", "sha256", 4096): 1030.0,  # 3% slower: inside 10% noise
        ("gamma", "default", "hash", "sha256", 4096): 1500.0,
    }
    db, run_id = store_run(tmp_path / "r.db", timings, n=21, spread=0.002)
    rec = recommend.recommend(analysis.load(db, run_id), size=4096, year=2026)
    hash_choice = by_kind(rec)["hash"]
    assert hash_choice.case.label == "alpha"
    assert [c.label for c in hash_choice.tied] == ["beta"]
    assert "tied with beta sha256" in hash_choice.note
    assert recommend.to_json(rec)["recommendations"][2]["tied_with"][0]["provider"] == "beta"
    strict = recommend.recommend(analysis.load(db, run_id), size=4096, year=2026, noise=0.01)
    assert by_kind(strict)["hash"].tied == []  # a calibrated 1% machine separates them


def test_a_strict_verifier_beats_a_faster_lax_one(tmp_path):
    timings = {
        ("fast", "default", "verify", "ed25519", 32): 30_000.0,
        ("slow", "default", "verify", "ed25519", 32): 60_000.0,
    }
    db, run_id = store_run(tmp_path / "r.db", timings)
    db.conn.execute(
        "UPDATE cases SET gate = json_set(gate, '$.lax', 'accepts S + L') WHERE provider = 'fast'"
    )
    got = by_kind(recommend.recommend(analysis.load(db, run_id), year=2026))["signature verify"]
    assert got.case.label == "slow" and "lax verifiers passed over" in got.note


def test_a_run_prints_the_reports_answer_table(results):
    """`cryptobench run` prints this as soon as the run ends (issue 31): the report's answer, the
    same choice per kind as the HTML report's first table."""
    from cryptobench import report, terminal

    text = terminal.answer_text(results)
    html = report.answer(results).html
    for kind, choice, figure, _up, _note in recommend.answer_rows(
        recommend.recommend(results, level=128, size=recommend.DEFAULT_SIZE)
    ):
        lines = [ln for ln in text.splitlines() if ln.startswith(kind + " ")]
        assert any(choice in ln and figure in ln for ln in lines), (kind, choice)
        assert choice in html
    assert "des-ede3-cbc" not in text  # fastest, but disallowed: never the answer
