"""The security-level data file: it covers the catalogue, and a broken file is refused."""

import pytest

from cryptobench import runner, security
from cryptobench.errors import UserError


def test_every_algorithm_the_runner_lists_has_a_rating_of_the_same_kind(native_runner):
    caps = runner.list_capabilities(native_runner)
    levels = security.levels()
    missing = [a for a in caps.algorithms if levels.get(a) is None]
    assert not missing, f"no entry in {security.DATA_FILE}: {missing}"
    wrong = {
        a.name: (a.kind, levels.get(a.name).kind)
        for a in caps.algorithms.values()
        if levels.get(a.name).kind != a.kind
    }
    assert not wrong, f"kind differs from the runner's: {wrong}"


def test_the_file_cites_each_document_with_its_version():
    docs = security.levels().documents
    assert set(docs) == set(security.DOCUMENTS)
    assert "Rev. 5" in docs["nist"].name and "2020" in docs["nist"].version
    assert docs["bsi"].version == "Version 2024-01"
    assert "2018" in docs["ecrypt"].title and "D5.4" in docs["ecrypt"].name


def test_strengths_and_verdicts_of_well_known_algorithms():
    levels = security.levels()

    def strength(name):
        return levels.get(name).strength

    assert [strength(f"rsa-{n}") for n in (1024, 2048, 3072, 4096)] == [80, 112, 128, 128]
    assert [strength(f"aes-{n}-gcm") for n in (128, 192, 256)] == [128, 192, 256]
    assert strength("des-ede3-cbc") == 112
    assert (strength("sha256"), strength("sha512"), strength("md5")) == (128, 256, 0)
    assert strength("sha1") < 80
    assert (strength("ecdsa-p256"), strength("ecdsa-p384"), strength("ecdsa-p521")) == (
        128,
        192,
        256,
    )
    tdea = levels.get("des-ede3-cbc").verdicts["nist"]
    assert tdea.at(2023) == "acceptable" and tdea.at(2024) == "disallowed"
    assert levels.get("rsa-2048").verdicts["nist"].at(2031) == "disallowed"
    assert levels.get("rsa-1024").disallowed_by(2020) == ["nist"]
    assert levels.get("ed448").verdicts["bsi"].status == "not covered"
    assert levels.get("argon2id").verdicts["bsi"].status == "recommended"
    assert levels.get("sha1").level == 0 and levels.get("rsa-4096").level == 128


def test_verdicts_describe_their_dates():
    v = security.Verdict("acceptable", until=2030, then="disallowed")
    assert v.describe(2026) == "acceptable until 2030"
    assert v.describe(2031) == "disallowed (since 2031)"
    assert security.Verdict("recommended").describe(2031) == "recommended"


def test_kinds_of_names_the_file_does_not_know_are_guessed_from_the_operation():
    assert security.kind_of("ed25519", "keygen") == "signature"
    assert security.kind_of("frobnicate-512", "sign") == "signature"
    assert security.kind_of("frobnicate-512", "derive", has_cost=True) == "kdf"
    assert security.kind_of("frobnicate-512", "derive") == "key-agreement"


GOOD_DOCS = """
[documents.nist]
name = "n"
title = "t"
version = "v"
url = "u"
[documents.bsi]
name = "n"
title = "t"
version = "v"
url = "u"
[documents.ecrypt]
name = "n"
title = "t"
version = "v"
url = "u"
"""
GOOD = """
[algorithms.x]
kind = "hash"
strength = 128
basis = "b"
nist = { status = "acceptable" }
bsi = { status = "recommended", until = 2030, then = "legacy" }
ecrypt = { status = "not covered", note = "silent" }
"""


def test_a_well_formed_file_parses():
    parsed = security.parse(GOOD_DOCS + GOOD, "t.toml")
    assert parsed.get("x").verdicts["bsi"].at(2031) == "legacy"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("acceptable", "fine"), "status 'fine' is not one of"),
        (('kind = "hash"', 'kind = "digest"'), "kind 'digest' is not one of"),
        (("strength = 128", "strength = -1"), "strength must be a number of bits"),
        (
            ('ecrypt = { status = "not covered", note = "silent" }', ""),
            "algorithms.x.ecrypt: missing",
        ),
        (("until = 2030, ", ""), "'until' and 'then' go together"),
        (("until = 2030", "until = 30"), "until must be a year"),
        (('basis = "b"', 'basis = "b"\nsource = "?"'), "unknown key 'source'"),
    ],
)
def test_a_broken_file_is_refused_naming_the_entry(change, message):
    old, new = change
    with pytest.raises(UserError, match=message):
        security.parse(GOOD_DOCS + GOOD.replace(old, new), "t.toml")


def test_a_file_missing_a_document_is_refused():
    without_ecrypt = GOOD_DOCS[: GOOD_DOCS.index("[documents.ecrypt]")]
    with pytest.raises(UserError, match="documents: ecrypt missing"):
        security.parse(without_ecrypt + GOOD, "t.toml")
