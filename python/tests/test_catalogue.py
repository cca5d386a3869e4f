"""The catalogue is one file, catalogue/algorithms.json, and every runner exposes exactly it: the
native runner's `list` prints all of its entries in its order, and each other runner's `list`
prints, unchanged and in the file's order, the entries its providers offer, with the file's
operations. The file fits the schema's catalogue definition, and no other catalogue is in the
tree. (Each runner reads the file at build time, or the Python runner from the repository, so
these tests fail if a build embeds a stale or edited copy.)"""

import json
import subprocess

import pytest
from protocol_schema import CATALOGUE_FILE, REPO, check
from runner_harness import capabilities, runner_exe

RUNNERS = ("go", "rust", "python", "jvm")


def catalogue() -> list[dict]:
    return json.loads(CATALOGUE_FILE.read_text())["algorithms"]


def test_the_file_fits_the_schema_and_names_each_algorithm_once():
    check(json.loads(CATALOGUE_FILE.read_text()), "catalogue")
    names = [a["name"] for a in catalogue()]
    assert len(names) == len(set(names))


def test_every_family_has_its_vector_file():
    """Every family but RSA key generation's (key pairs have no known answer: docs/protocol.md)."""
    families = {a["family"] for a in catalogue() if a["kind"] != "keypair"}
    missing = families - {p.stem for p in (REPO / "vectors").glob("*.json")}
    assert not missing, f"no vectors/<family>.json for {sorted(missing)}"


def test_no_other_catalogue_is_in_the_tree():
    """No tracked JSON file besides catalogue/algorithms.json holds catalogue entries."""
    tracked = subprocess.run(
        ["git", "ls-files", "*.json"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    names = {a["name"] for a in catalogue()}
    copies = []
    for path in tracked:
        if REPO / path == CATALOGUE_FILE or path.startswith("vectors/"):
            continue
        text = (REPO / path).read_text(errors="replace")
        if sum(f'"name": "{n}"' in text or f'"name":"{n}"' in text for n in names) > 5:
            copies.append(path)
    assert not copies, f"catalogue entries outside {CATALOGUE_FILE.name}: {copies}"


def test_the_native_runner_lists_exactly_the_file(native_runner):
    assert capabilities(native_runner)["algorithms"] == catalogue()


@pytest.mark.parametrize("name", RUNNERS)
def test_a_runner_lists_the_files_entries_of_what_it_offers(name):
    caps = capabilities(runner_exe(f"cryptobench-runner-{name}"))
    by_name = {a["name"]: a for a in catalogue()}
    offered = {a["name"] for p in caps["providers"] for a in p["algorithms"]}
    assert offered <= set(by_name), sorted(offered - set(by_name))
    assert caps["algorithms"] == [a for a in catalogue() if a["name"] in offered]
    for provider in caps["providers"]:
        assert set(provider.get("not_offered", ())) <= set(by_name), provider["name"]
        for a in provider["algorithms"]:
            assert a["operations"] == by_name[a["name"]]["operations"], (provider["name"], a)
