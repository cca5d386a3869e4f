"""Matrix expansion: which cases a suite and the command line ask for."""

import pytest

from cryptobench import plan, runner
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
        ('algorithms = ["sha256"]\nsizes = [64]\noperations = ["sign"]', "unknown operation"),
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


@pytest.mark.parametrize("name", ["quick", "default", "full"])
def test_shipped_suites_expand_against_the_real_catalogue(native_runner, name):
    caps = runner.list_capabilities(native_runner)
    p = plan.expand(plan.load_suite(name), caps)
    assert p.cases
    assert {c.provider for c in p.cases} == set(caps.providers)  # "all" means all
    assert all(c.samples >= 3 for c in p.cases)


def test_default_suite_covers_sizes_16_bytes_to_1_mib_in_powers_of_4():
    s = plan.load_suite("default")
    assert s.blocks[0]["sizes"] == [16 * 4**k for k in range(9)]
