"""The machine's run-to-run noise: the one number behind `compare`'s threshold, the unstable
flag and `recommend`'s ties.

Two identical runs on a shared VM differ per case by several percent (this one: median 5.3%,
p90 25% on the default suite). A difference smaller than that is not evidence of anything.
`cryptobench calibrate` measures it (two identical runs, back to back) and stores the 90th
percentile of |B/A − 1| per machine; without a calibration the conservative DEFAULT_NOISE is used
and the commands say so.
"""

from dataclasses import dataclass

DEFAULT_NOISE = 0.10  # when this machine has no calibration stored


@dataclass(frozen=True)
class Noise:
    threshold: float  # relative: 0.07 means 7%
    source: str  # where it comes from, for the user

    @property
    def calibrated(self) -> bool:
        return not self.source.startswith("default")


def for_machine(db, machine: dict) -> Noise:
    """The newest calibration stored for this machine (hostname and CPU model), else the
    default."""
    found = db.latest_calibration(machine.get("hostname"), machine.get("cpu_model"))
    if found is None:
        return Noise(
            DEFAULT_NOISE,
            f"default {DEFAULT_NOISE:.0%}: no calibration stored for this machine "
            "(run `cryptobench calibrate`)",
        )
    return Noise(
        found["noise"],
        f"calibration of {found['created_at'][:10]} (runs {found['run_a']} and "
        f"{found['run_b']}): p90 of the A/A spread",
    )
