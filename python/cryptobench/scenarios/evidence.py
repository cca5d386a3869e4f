"""What a reproduction shows beside its claims: the stored machine record of its run, the
library versions it measured, this machine's noise threshold the criteria use, and which run
it is (`describe`: when, on which machine, at which load). `reproduce` keeps the load it
watched while measuring, and the noise threshold it judged by, with the run (`keep`), so a
reproduction rendered later from the stored run (`reproduce --stored`, maybe from another
store the run was pushed to) says the same."""

import contextlib
import os
import threading
from datetime import datetime
from typing import Any

from cryptobench import noise as noise_mod
from cryptobench.store import Store

KEPT = "reproduce"  # the key of what `keep` adds to a run's settings


def of_run(db_path, run_id: int | None) -> tuple[dict[str, Any], dict[str, str], noise_mod.Noise]:
    """(machine record, {library: version}, noise) of a stored run. The noise is the one kept
    with the run when it was measured, else this store's calibration for its machine."""
    if run_id is None:
        return {}, {}, noise_mod.Noise(noise_mod.DEFAULT_NOISE, "default: no run stored")
    db = Store.open(db_path)
    machine = db.machine(run_id)
    libraries = {
        lib["provider"]: lib["version"] or "?"
        for lib in db.libraries(run_id)
        if lib.get("variant") in (None, "", "default")
    }
    for name, version in (machine.get("libraries") or {}).items():
        libraries.setdefault(name, str(version))
    kept = db.run(run_id).settings.get(KEPT, {}).get("noise")
    if kept:
        return machine, libraries, noise_mod.Noise(kept["threshold"], kept["source"])
    return machine, libraries, noise_mod.for_machine(db, machine)


class LoadWatch:
    """The machine's 1-minute load average, read every `every_s` seconds (and at both ends)
    while a paper is measured, by a thread that sleeps in between: a figure measured at load
    40 is that load's, and the reproduction says which load it had."""

    def __init__(self, every_s: float = 30.0):
        self.every_s = every_s
        self.readings: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="load-watch", daemon=True)

    def _read(self) -> None:
        with contextlib.suppress(OSError):  # no load average on this system: nothing to say
            self.readings.append(os.getloadavg()[0])

    def _watch(self) -> None:
        while not self._stop.wait(self.every_s):
            self._read()

    def __enter__(self) -> "LoadWatch":
        self._read()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._read()

    def record(self) -> dict[str, Any] | None:
        r = self.readings
        if not r:
            return None
        return {"min": min(r), "max": max(r), "mean": sum(r) / len(r), "readings": len(r),
                "every_s": self.every_s}  # fmt: skip


def keep(db_path, run_id: int, load: dict[str, Any] | None) -> None:
    """Adds to the run's settings the load it was measured at and the noise threshold its
    reproduction judges by (this store's calibration for its machine, now)."""
    db = Store.open(db_path)
    info = db.run(run_id)
    noise = noise_mod.for_machine(db, db.machine(run_id))
    kept = {"load_average": load, "noise": {"threshold": noise.threshold, "source": noise.source}}
    db.set_settings(run_id, {**info.settings, KEPT: kept})


def _when(started: str, finished: str | None) -> str:
    start = datetime.fromisoformat(started)
    if not finished:
        return f"started {start:%Y-%m-%d %H:%M} UTC, not finished"
    seconds = int((datetime.fromisoformat(finished) - start).total_seconds())
    took = f"{seconds // 3600} h {seconds // 60 % 60:02d} m" if seconds >= 3600 else (
        f"{seconds // 60} m {seconds % 60:02d} s")  # fmt: skip
    return f"{start:%Y-%m-%d %H:%M} UTC, {took}"


def describe(db_path, run_id: int) -> str:
    """Which run a reproduction's figures come from, in one line: its number, note, when and
    how long, its status, the machine and the load it was measured at."""
    db = Store.open(db_path)
    info = db.run(run_id)
    m = db.machine(run_id)
    machine = ", ".join(
        x
        for x in (
            m.get("hostname"),
            m.get("cpu_model"),
            f"{m['cores']} cores" if m.get("cores") else None,
        )
        if x
    )
    load = info.settings.get(KEPT, {}).get("load_average")
    load_text = (
        f"load average {load['min']:.1f}–{load['max']:.1f} (mean {load['mean']:.1f}, "
        f"{load['readings']} readings of the 1-minute average)"
        if load
        else "load average not recorded"
    )
    return (
        f"run {run_id} ({info.note or info.suite}): {_when(info.started_at, info.finished_at)}, "
        f"{info.status}; machine {machine or 'not recorded'}; {load_text}; "
        f"cryptobench {info.cryptobench_version}"
    )
