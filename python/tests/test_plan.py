"""Matrix expansion: which cases a suite and the command line ask for."""

import re
from dataclasses import replace

import pytest

from cryptobench import plan, runner, terminal
from cryptobench.errors import UserError


def suite(text: str) -> plan.Suite:
    return plan.parse_suite(text, name="t", where="t.toml")


def keys(p: plan.Plan) -> set[tuple]:
    return {(c.provider, c.variant, c.operation, c.algorithm, c.size) for c in p.cases}


def test_product_of_providers_algorithms_operations_and_sizes(caps):
    p = plan.expand(suite('algorithms = ["sha256", "aes-256-gcm"]\nsizes = [64, "1K"]'), caps)
    assert keys(p) == {
        ("alpha", "default", "hash", "sha256", 64),
        ("alpha", "default", "hash", "sha256", 1024),
        ("beta", "default", "hash", "sha256", 64),
        ("beta", "default", "hash", "sha256", 1024),
        ("alpha", "default", "encrypt", "aes-256-gcm", 64),
        ("alpha", "default", "encrypt", "aes-256-gcm", 1024),
        ("alpha", "default", "decrypt", "aes-256-gcm", 64),
        ("alpha", "default", "decrypt", "aes-256-gcm", 1024),
    }
    # beta does not offer AES-GCM: skipped at planning time, never sent to a runner.
    assert p.skipped == {"unsupported": 4}


def test_operations_filter_and_settings_reach_every_case(caps):
    text = """
        algorithms = ["aes-256-gcm"]
        operations = ["decrypt"]
        sizes = [16]
        samples = 7
        batch = 2
        target_sample_ms = 0.5
    """
    p = plan.expand(suite(text), caps)
    assert [(c.operation, c.samples, c.batch, c.target_sample_ms) for c in p.cases] == [
        ("decrypt", 7, 2, 0.5)
    ]


def test_sizes_an_algorithm_cannot_take_are_skipped(caps):
    p = plan.expand(
        suite('providers = ["alpha"]\nalgorithms = ["aes-256-cbc"]\nsizes = [100, 128]'), caps
    )
    assert {c.size for c in p.cases} == {128}
    assert p.skipped == {"size": 2}  # 100 bytes, encrypt and decrypt


def test_variants(caps):
    base = 'algorithms = ["sha256"]\nsizes = [64]\n'
    every = plan.expand(suite(base + 'providers = ["all/all"]'), caps)
    assert {(c.provider, c.variant) for c in every.cases} == {
        ("alpha", "default"),
        ("alpha", "soft"),
        ("beta", "default"),
    }
    soft = plan.expand(suite(base + 'providers = ["all/soft"]'), caps)
    assert {(c.provider, c.variant) for c in soft.cases} == {("alpha", "soft")}
    one = plan.expand(suite(base + 'providers = ["alpha/soft", "beta"]'), caps)
    assert {(c.provider, c.variant) for c in one.cases} == {("alpha", "soft"), ("beta", "default")}


def test_a_target_without_variant_takes_the_variant_whose_runtime_offers_it(pk_caps):
    """`all` and a bare NAME plan each operation in the listing's variant where it offers it,
    else in a variant that runs another runtime and does (sunjce's ML-KEM on jdk25); NAME/V and
    all/all stay exact, and a variant that only masks CPU features adds nothing."""
    beta = pk_caps.providers["beta"]
    rt = {**beta.algorithms, "ed25519": ("keygen", "sign", "verify")}
    variants = (*beta.variants, plan_variant("rt"))
    pk_caps.providers["beta"] = replace(beta, variants=variants, variant_algorithms={"rt": rt})
    base = 'algorithms = ["ed25519"]\nsizes = [32]\n'

    def targets(providers: str) -> set[tuple]:
        p = plan.expand(suite(base + f"providers = [{providers}]"), pk_caps)
        return {(c.provider, c.variant, c.operation) for c in p.cases}

    alpha = {("alpha", "default", op) for op in ("keygen", "sign", "verify")}
    assert targets('"all"') == alpha | {
        ("beta", "default", "sign"),
        ("beta", "default", "verify"),
        ("beta", "rt", "keygen"),
    }
    assert targets('"beta"') == targets('"all"') - alpha
    assert targets('"all/default"') == alpha | {
        ("beta", "default", "sign"),
        ("beta", "default", "verify"),
    }
    assert ("beta", "rt", "sign") in targets('"beta/all"')
    # alpha's `soft` masks CPU features (no listing of its own): it never fills a gap.
    assert not any(v == "soft" for _, v, _ in targets('"all"'))


def plan_variant(name: str):
    from cryptobench.capabilities import Variant

    return Variant(name, "another runtime")


def test_matrix_blocks_inherit_top_level_keys_and_duplicates_collapse(caps):
    text = """
        providers = ["all"]
        algorithms = ["sha256"]
        sizes = [64, 1024]
        samples = 5

        [[matrix]]

        [[matrix]]
        providers = ["all/all"]
        sizes = [1024]
        samples = 9
    """
    p = plan.expand(suite(text), caps)
    by_key = {(c.provider, c.variant, c.size): c.samples for c in p.cases}
    # The first block wins for a case both blocks produce.
    assert by_key == {
        ("alpha", "default", 64): 5,
        ("alpha", "default", 1024): 5,
        ("beta", "default", 64): 5,
        ("beta", "default", 1024): 5,
        ("alpha", "soft", 1024): 9,
    }


def test_command_line_overrides_replace_the_suite_lists(caps):
    s = suite('algorithms = ["sha256"]\nsizes = [64]\nsamples = 3')
    s = plan.apply_overrides(
        s, plan.Overrides(providers=["beta"], algorithms=["hmac-sha256"], sizes=[32], samples=4)
    )
    p = plan.expand(s, caps)
    assert [(c.provider, c.algorithm, c.size, c.samples) for c in p.cases] == [
        ("beta", "hmac-sha256", 32, 4)
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'algorithms = ["sha256"]\nsizes = [64]\nproviders = ["gamma"]',
            "unknown provider 'gamma'",
        ),
        ('algorithms = ["sha257"]\nsizes = [64]', "unknown algorithm 'sha257'"),
        (
            'algorithms = ["sha256"]\nsizes = [64]\nproviders = ["alpha/turbo"]',
            "no variant 'turbo'",
        ),
        ('algorithms = ["sha256"]\nsizes = [64]\nproviders = ["all/turbo"]', "variant 'turbo'"),
    ],
)
def test_unknown_names_are_user_errors(caps, text, message):
    with pytest.raises(UserError, match=message):
        plan.expand(suite(text), caps)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("algorithms = [sha256", "invalid TOML"),
        ('algorithms = ["sha256"]\nsizes = [64]\nsampels = 3', "unknown key 'sampels'"),
        ('algorithms = ["sha256"]\nsizes = [64]\nsamples = "many"', "'samples' must be a number"),
        ('algorithms = ["sha256"]\nsizes = [64]\nsamples = 0', "'samples' must be at least 1"),
        ('algorithms = ["sha256"]\nsizes = ["12X"]', "size '12X'"),
        ('algorithms = ["sha256"]\nsizes = []', "'sizes' must not be empty"),
        ("sizes = [64]", "'algorithms' is missing"),
        ('algorithms = ["sha256"]\nsizes = [64]\noperations = ["sing"]', "unknown operation"),
        ('algorithms = ["sha256"]\nsizes = [64]\nkinds = ["symmetric"]', "unknown kind"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = 10000', "'cost' must be a table or a list"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = []', "'cost' must not be an empty list"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = [5]', "'cost' must be a table"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = {rounds = 5}', "unknown parameter 'rounds'"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = {n = 1024}', "unknown parameter 'n'"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = {iterations = -1}', "non-negative integer"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = {iterations = 1.5}', "non-negative integer"),
        ('algorithms = ["all"]\nsizes = [16]\ncost = {iterations = true}', "non-negative integer"),
        ('algorithms = ["sha256"]\nsizes = [64]\nmatrix = [1]', "must be a table"),
        ('algorithms = ["sha256"]\nsizes = [64]\nwarmup_ms = true', "must be a number"),
    ],
)
def test_malformed_suites_are_user_errors(text, message):
    with pytest.raises(UserError, match=message):
        suite(text)


def test_unknown_suite_name_and_unreadable_file():
    with pytest.raises(UserError, match="unknown suite 'fastest'"):
        plan.load_suite("fastest")
    with pytest.raises(UserError, match="cannot read"):
        plan.load_suite("/nonexistent/suite.toml")


@pytest.mark.parametrize("name", ["demo", "quick", "default", "full"])
def test_shipped_suites_expand_against_the_real_catalogue(native_runner, name):
    caps = runner.list_capabilities(native_runner)
    p = plan.expand(plan.load_suite(name), caps)
    assert p.cases
    assert {c.provider for c in p.cases} == set(caps.providers)  # "all" means all
    assert all(c.samples >= 3 for c in p.cases)


def test_demo_suite_asks_the_first_questions_of_every_runner_and_is_a_fraction_of_default(
    native_runner,
):
    """`make demo`'s suite: AES-GCM, ChaCha20-Poly1305, SHA-2 and SHA-3 at a few sizes, key
    agreement, signatures and the post-quantum pair, on every runner that is built (the JVM's
    too), default variants only, with short samples."""
    demo = plan.load_suite("demo")
    algorithms = {a for b in demo.blocks for a in b["algorithms"]}
    assert {
        "aes-256-gcm", "chacha20-poly1305", "sha256", "sha3-256", "x25519", "ecdh-p256",
        "ed25519", "ecdsa-p256", "rsa-2048-pss-sha256", "ml-kem-768", "ml-dsa-65",
    } <= algorithms  # fmt: skip
    runners = ["runner:native", "runner:go", "runner:python", "runner:rust", "runner:jvm"]
    assert all(b["providers"] == runners for b in demo.blocks if "null" not in b["algorithms"])
    assert all(b["max_samples"] <= 21 for b in demo.blocks)
    caps = runner.list_capabilities(native_runner)
    cases = plan.expand(demo, caps).cases
    # (the native runner's libraries on Debian 12 have no ML-KEM or ML-DSA: the other runners do)
    assert {(c.operation, c.algorithm) for c in cases} >= {("encrypt", "aes-256-gcm"),
        ("hash", "sha3-256"), ("sign", "ed25519"), ("derive", "x25519")}  # fmt: skip
    assert all(c.variant == "default" for c in cases)
    assert len(cases) * 5 < len(plan.expand(plan.load_suite("default"), caps).cases)


def test_default_suite_covers_sizes_16_bytes_to_1_mib_in_powers_of_4():
    s = plan.load_suite("default")
    assert s.blocks[0]["sizes"] == [16 * 4**k for k in range(9)]


# ---- public-key algorithms and KDFs -------------------------------------------------------------


def pk_keys(p: plan.Plan) -> set[tuple]:
    return {(c.provider, c.operation, c.algorithm, c.size, c.cost) for c in p.cases}


def test_keygen_and_key_agreement_are_measured_at_size_0_whatever_the_sizes(pk_caps):
    text = (
        'providers = ["alpha"]\nalgorithms = ["x25519", "rsa-2048", "ed25519"]\nsizes = [32, 1024]'
    )
    got = pk_keys(plan.expand(suite(text), pk_caps))
    assert got == {
        ("alpha", "keygen", "x25519", 0, ()),
        ("alpha", "derive", "x25519", 0, ()),
        ("alpha", "keygen", "rsa-2048", 0, ()),
        ("alpha", "keygen", "ed25519", 0, ()),
        ("alpha", "sign", "ed25519", 32, ()),
        ("alpha", "sign", "ed25519", 1024, ()),
        ("alpha", "verify", "ed25519", 32, ()),
        ("alpha", "verify", "ed25519", 1024, ()),
    }


def test_oaep_messages_longer_than_the_key_allows_are_skipped(pk_caps):
    # RSA-2048 with OAEP-SHA-256 encrypts at most 256 - 2*32 - 2 = 190 bytes.
    text = 'providers = ["alpha"]\nalgorithms = ["rsa-2048-oaep-sha256"]\nsizes = [32, 190, 191]'
    p = plan.expand(suite(text), pk_caps)
    assert {(c.operation, c.size) for c in p.cases} == {
        ("encrypt", 32),
        ("encrypt", 190),
        ("decrypt", 32),
        ("decrypt", 190),
    }
    assert p.skipped == {"size": 2}


def test_pkcs1v15_encryption_takes_at_most_k_minus_11_bytes():
    from cryptobench.capabilities import Algorithm

    rsa = Algorithm(
        "rsa-2048-pkcs1v15-enc", "pk-encryption", ("encrypt", "decrypt"),
        family="rsa-pkcs1v15-enc", key_type="rsa-2048", bits=2048,
    )  # fmt: skip
    assert rsa.size_problem(245) is None
    assert rsa.size_problem(246) == "rsa-2048-pkcs1v15-enc takes at most 245 bytes"


def test_a_blocks_cost_applies_to_each_kdf_with_the_parameters_it_takes(pk_caps):
    text = """
        providers = ["alpha"]
        algorithms = ["pbkdf2-sha256", "scrypt", "argon2id", "hkdf-sha256", "ed25519"]
        operations = ["derive", "sign"]
        sizes = [16]
        cost = { iterations = 5000, N = 1024, p = 2 }
    """
    got = pk_keys(plan.expand(suite(text), pk_caps))
    assert got == {
        ("alpha", "derive", "pbkdf2-sha256", 16, (("iterations", 5000),)),
        # r is not in the table: the default; p is shared by scrypt and Argon2id.
        ("alpha", "derive", "scrypt", 16, (("N", 1024), ("p", 2), ("r", 8))),
        ("alpha", "derive", "argon2id", 16, (("m", 65536), ("p", 2), ("t", 3))),
        ("alpha", "derive", "hkdf-sha256", 16, ()),
        ("alpha", "sign", "ed25519", 16, ()),  # not a KDF: no cost
    }


def test_without_a_cost_kdfs_get_the_default_parameters(pk_caps):
    text = 'providers = ["beta"]\nalgorithms = ["pbkdf2-sha256"]\nsizes = [16]'
    [case] = plan.expand(suite(text), pk_caps).cases
    assert case.cost_dict() == plan.DEFAULT_COST["pbkdf2"]


def test_a_list_of_costs_is_a_dimension_of_the_matrix(pk_caps):
    text = """
        algorithms = ["pbkdf2-sha256", "hkdf-sha256"]
        sizes = [16]
        cost = [{ iterations = 1000 }, { iterations = 100000 }]
    """
    got = pk_keys(plan.expand(suite(text), pk_caps))
    assert got == {
        ("alpha", "derive", "pbkdf2-sha256", 16, (("iterations", 1000),)),
        ("alpha", "derive", "pbkdf2-sha256", 16, (("iterations", 100000),)),
        ("beta", "derive", "pbkdf2-sha256", 16, (("iterations", 1000),)),
        ("beta", "derive", "pbkdf2-sha256", 16, (("iterations", 100000),)),
        ("alpha", "derive", "hkdf-sha256", 16, ()),  # once: it takes no parameters
    }


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        ("{ iterations = 0 }", "pbkdf2-sha256 needs 'iterations' of at least 1"),
        ("{ N = 1000 }", "scrypt needs 'N' to be a power of 2, got 1000"),
        ("{ N = 1 }", "scrypt needs 'N' of at least 2"),
        ("{ m = 16, p = 4 }", "argon2id needs 'm' \\(KiB\\) of at least 8 × p = 32"),
        ("{ t = 0 }", "argon2id needs 't' of at least 1"),
    ],
)
def test_kdf_costs_are_checked_against_what_each_kdf_accepts(pk_caps, cost, message):
    text = f'algorithms = ["pbkdf2-sha256", "scrypt", "argon2id"]\nsizes = [16]\ncost = {cost}'
    with pytest.raises(UserError, match=rf"matrix\[0\]: cost: {message}"):
        plan.expand(suite(text), pk_caps)


def test_kinds_filter_a_blocks_algorithms(pk_caps):
    text = 'providers = ["alpha"]\nalgorithms = ["all"]\nkinds = ["key-agreement"]\nsizes = [16]'
    got = pk_keys(plan.expand(suite(text), pk_caps))
    assert got == {("alpha", "keygen", "x25519", 0, ()), ("alpha", "derive", "x25519", 0, ())}


def test_a_case_with_a_cost_is_hashable_and_keeps_its_identity_through_json(pk_caps):
    a = plan.CaseSpec("alpha", "default", "derive", "scrypt", 16, cost={"r": 8, "N": 1024, "p": 1})
    b = plan.CaseSpec(
        "alpha", "default", "derive", "scrypt", 16, cost=[["N", 1024], ["p", 1], ["r", 8]]
    )
    assert a == b and hash(a) == hash(b) and a.key() == b.key()
    assert a.cost_json() == '{"N":1024,"p":1,"r":8}'
    assert a.to_protocol("c1")["cost"] == {"N": 1024, "p": 1, "r": 8}
    other = plan.CaseSpec(
        "alpha", "default", "derive", "scrypt", 16, cost={"N": 2048, "p": 1, "r": 8}
    )
    assert a.key() != other.key()
    # Other cases send no cost field at all: a runner that predates it takes them unchanged.
    assert "cost" not in plan.CaseSpec("alpha", "default", "hash", "sha256", 64).to_protocol("c2")


def test_shipped_suites_measure_public_key_and_kdf_cases_as_issue_5_asks():
    default = plan.load_suite("default")
    pk_blocks = [b for b in default.blocks if b["kinds"] and "cipher" not in b["kinds"]]
    algorithms = {a for b in pk_blocks for a in b["algorithms"]}
    assert {
        "rsa-2048-pkcs1-sha256", "rsa-4096-pkcs1-sha256", "ecdsa-p256", "ed25519", "x25519",
        "pbkdf2-sha256",
    } <= algorithms  # fmt: skip
    every = ["runner:native", "runner:go", "runner:python", "runner:rust"]  # all but the JVM's
    assert all(b["providers"] == every for b in pk_blocks)
    keygen = [b for b in pk_blocks if b["operations"] == ["keygen"]]
    assert keygen and all(b["samples"] >= 15 for b in keygen)
    assert {"iterations": 10000} in [c for b in pk_blocks for c in b["cost"]]
    quick = plan.load_suite("quick")
    assert {"iterations": 1000} in [c for b in quick.blocks for c in b["cost"]]


def test_full_suite_costs_every_kdf_moderately(pk_caps):
    full = plan.load_suite("full")
    [kdf_block] = [b for b in full.blocks if b["kinds"] == ["kdf"]]
    p = plan.expand(replace(full, blocks=[kdf_block]), pk_caps)
    costs = {c.algorithm: c.cost_dict() for c in p.cases}
    assert costs["scrypt"] == {"N": 16384, "r": 8, "p": 1}
    assert costs["argon2id"] == {"t": 3, "m": 65536, "p": 1}
    assert costs["pbkdf2-sha256"] == {"iterations": 10000}
    assert costs["hkdf-sha256"] == {}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("min_samples = 12", "'min_samples' must be between 0 and samples (11)"),
        ("max_samples = 5", "'max_samples' must be at least samples (11)"),
        ("ci_target = -1", "'ci_target' must not be negative"),
    ],
)
def test_adaptive_sampling_keys_are_checked(extra, message):
    with pytest.raises(UserError, match=re.escape(message)):
        plan.parse_suite(f'algorithms = ["sha256"]\nsizes = [64]\nsamples = 11\n{extra}', "t", "t")


def test_samples_on_the_command_line_means_exactly_that_many():
    s = plan.parse_suite(
        'algorithms = ["sha256"]\nsizes = [64]\nsamples = 11\nmin_samples = 5\nmax_samples = 21',
        "t",
        "t",
    )
    b = plan.apply_overrides(s, plan.Overrides(samples=4)).blocks[0]
    assert (b["samples"], b["min_samples"], b["max_samples"]) == (4, 0, 0)


def test_what_is_not_offered_is_kept_with_the_runners_reason(native_runner):
    # A run says which combinations it leaves out and why, not only how many: the runner's own
    # reason where its `list` gives one (Botan 2 has no TLS 1.3), else that the provider's
    # listing does not name the algorithm (libsodium has no AES-128-GCM); one entry per
    # combination, not per size, and stored with the run's settings.
    caps = runner.list_capabilities(native_runner)
    text = (
        'providers = ["botan", "sodium"]\n'
        'algorithms = ["aes-128-gcm", "tls13-x25519-ecdsa-p256"]\nsizes = [16, 64]'
    )
    p = plan.expand(suite(text), caps)
    why = {(n["provider"], n["algorithm"], n["operation"]): n["reason"] for n in p.not_offered}
    assert "TLS 1.3" in why[("botan", "tls13-x25519-ecdsa-p256", "handshake")]
    assert why[("sodium", "aes-128-gcm", "decrypt")].endswith("does not list aes-128-gcm")
    assert ("botan", "aes-128-gcm", "encrypt") not in why  # offered: measured, not refused
    assert len(p.not_offered) == len(why) == 4  # sizes 16 and 64: still one entry each
    assert p.settings()["not_offered"] == p.not_offered
    shown = terminal.not_offered_text(p)
    assert "botan: tls13-x25519-ecdsa-p256 handshake: Botan 2 has no TLS 1.3" in shown
    assert "does not list: aes-128-gcm encrypt" in shown
