"""How precise this machine's figures are: two identical runs (A/A) compared. The figures
`cryptobench calibrate` prints and stores, with the targets a reviewer can hold us to."""

from dataclasses import dataclass

import numpy as np

from cryptobench import compare
from cryptobench.analysis import RunResults

REFERENCE = "openssl"  # the provider every other is expressed against, where it is measured
TARGETS = {  # figure: target (upper bound), from the trust issue's benchmark targets
    "ratio_median": 0.02,
    "ratio_p90": 0.05,
    "absolute_median": 0.03,
}
SAME_TARGET = 0.95


@dataclass
class Precision:
    cases: int
    absolute_median: float  # median over cases of |median B / median A − 1|
    absolute_p90: float
    within_2_percent: float  # share of cases
    ratio_cases: int
    ratio_median: float  # median of |(p/ref in B) / (p/ref in A) − 1|
    ratio_p90: float
    same_share: float  # share of compared cases `compare` calls same at the noise threshold
    noise: float  # the threshold stored: p90 of the absolute spread

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)

    def lines(self) -> list[str]:
        def check(value: float, figure: str) -> str:
            target = TARGETS[figure]
            return f"{'meets' if value <= target else 'misses'} the target ≤ {target:.0%}"

        return [
            f"absolute medians, |B/A − 1| over {self.cases} cases: median "
            f"{self.absolute_median:.1%} ({check(self.absolute_median, 'absolute_median')}), "
            f"90th percentile {self.absolute_p90:.1%}, within 2%: {self.within_2_percent:.0%}",
            f"provider ÷ {REFERENCE} ratios, their change over {self.ratio_cases} cases: median "
            f"{self.ratio_median:.1%} ({check(self.ratio_median, 'ratio_median')}), 90th "
            f"percentile {self.ratio_p90:.1%} ({check(self.ratio_p90, 'ratio_p90')})",
            f"compare calls {self.same_share:.0%} of the cases same at the stored noise "
            f"threshold {self.noise:.1%} ({'meets' if self.same_share >= SAME_TARGET else 'misses'}"
            f" the target ≥ {SAME_TARGET:.0%})",
        ]


def _medians(run: RunResults) -> dict[tuple, float]:
    return {c.key(): c.summary.median for c in run.ok_cases() if c.summary}


def _ratios(medians: dict[tuple, float]) -> dict[tuple, float]:
    """Each non-reference case's median over the reference provider's for the same algorithm,
    operation, size and parameters. The key's first two fields are provider and variant."""
    refs = {k[2:]: v for k, v in medians.items() if k[0] == REFERENCE and k[1] == "default"}
    return {k: v / refs[k[2:]] for k, v in medians.items() if k[0] != REFERENCE and k[2:] in refs}


def measure(
    run_a: RunResults, run_b: RunResults, alpha: float = compare.DEFAULT_ALPHA
) -> Precision:
    ma, mb = _medians(run_a), _medians(run_b)
    common = [k for k in ma if k in mb]
    absolute = np.array([abs(mb[k] / ma[k] - 1) for k in common])
    ra, rb = _ratios(ma), _ratios(mb)
    ratio_keys = [k for k in ra if k in rb]
    ratio = np.array([abs(rb[k] / ra[k] - 1) for k in ratio_keys])
    noise = float(np.percentile(absolute, 90)) if absolute.size else compare.DEFAULT_THRESHOLD
    verdicts = compare.tally(compare.compare_runs(run_a, run_b, noise, alpha))
    compared = sum(n for v, n in verdicts.items() if v in ("same", "faster", "slower"))
    return Precision(
        cases=len(common),
        absolute_median=float(np.median(absolute)) if absolute.size else float("nan"),
        absolute_p90=noise,
        within_2_percent=float(np.mean(absolute <= 0.02)) if absolute.size else float("nan"),
        ratio_cases=len(ratio_keys),
        ratio_median=float(np.median(ratio)) if ratio.size else float("nan"),
        ratio_p90=float(np.percentile(ratio, 90)) if ratio.size else float("nan"),
        same_share=verdicts.get("same", 0) / compared if compared else float("nan"),
        noise=noise,
    )
