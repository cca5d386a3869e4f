"""Runner processes against the real native runner: round-robin interleaving and start failures."""

import itertools

from cryptobench import runner
from cryptobench.plan import CaseSpec


def measure(exe, cases):
    outcomes, providers_seen = [], []

    def progress(done, total, label):
        providers_seen.append(label.split("now ")[1].split("/")[0])

    runner.Measurement(exe, list(enumerate(cases, 1)), 30, outcomes.append, progress).run()
    return outcomes, providers_seen


def test_samples_are_taken_round_robin_across_providers(native_runner, monkeypatch):
    # The test provider "fault" in its default variant behaves; with it there are always two.
    monkeypatch.setenv("CRYPTOBENCH_TEST_PROVIDERS", "1")
    caps = runner.list_capabilities(native_runner)
    real = next(
        p.name for p in caps.providers.values() if p.name != "fault" and p.offers("sha256", "hash")
    )
    providers = [real, "fault"]
    cases = [CaseSpec(p, "default", "hash", "sha256", 1024, samples=4, batch=1,
                      target_sample_ms=0.5, warmup_ms=1) for p in providers]  # fmt: skip
    outcomes, seen = measure(native_runner, cases)
    assert [o.status for o in outcomes] == ["ok", "ok"]
    assert all(len(o.samples) == 4 for o in outcomes)
    # Consecutive requests alternate between the providers' runners (A B A B …), they are not
    # all of one provider and then all of the other.
    switches = sum(1 for a, b in itertools.pairwise(seen) if a != b)
    assert switches >= 4


def test_a_runner_that_cannot_start_fails_its_cases_with_the_reason(native_runner):
    cases = [CaseSpec("nosuchlib", "default", "hash", "sha256", 64),
             CaseSpec("nosuchlib", "default", "hash", "sha256", 128)]  # fmt: skip
    outcomes, _ = measure(native_runner, cases)
    assert [o.status for o in outcomes] == ["failed", "failed"]
    assert all(o.failure == "start" for o in outcomes)
    assert "unknown provider 'nosuchlib'" in outcomes[0].reason
    assert "exited unexpectedly (status 2)" in outcomes[0].reason
