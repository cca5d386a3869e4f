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


def adaptive(**kw) -> CaseSpec:
    return CaseSpec("openssl", "default", "hash", "sha256", 1024, **kw)


def test_adaptive_sampling_stops_early_when_tight_and_extends_when_wide():
    case = adaptive(samples=11, min_samples=5, max_samples=21, ci_target=0.02)
    tight = [(100, 100_000 + i, 0) for i in range(5)]  # within 0.01%
    wide = [(100, 100_000 * (1 + i % 2), 0) for i in range(11)]  # two values a factor 2 apart
    assert runner.wants_more(case, tight[:4])  # fewer than min_samples
    assert not runner.wants_more(case, tight)  # tight at min_samples: stop early
    assert runner.wants_more(case, wide)  # wide at `samples`: extend
    assert not runner.wants_more(case, wide + wide[:10])  # at max_samples: stop
    fixed = adaptive(samples=11)
    assert runner.wants_more(fixed, wide[:10]) and not runner.wants_more(fixed, wide)


def test_a_case_with_a_loose_ci_target_stops_at_min_samples(native_runner):
    case = adaptive(samples=9, min_samples=3, max_samples=20, ci_target=100.0, batch=1,
                    target_sample_ms=0.2, warmup_ms=1)  # fmt: skip
    outcomes, _ = measure(native_runner, [case])
    assert outcomes[0].status == "ok", outcomes[0].reason
    assert len(outcomes[0].samples) == 3
