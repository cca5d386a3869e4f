"""What a reproduction shows beside its claims: the stored machine record of its run, the
library versions it measured, and this machine's noise threshold the criteria use."""

from typing import Any

from cryptobench import noise as noise_mod
from cryptobench.store import Store


def of_run(db_path, run_id: int | None) -> tuple[dict[str, Any], dict[str, str], noise_mod.Noise]:
    """(machine record, {library: version}, noise) of a stored run."""
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
    return machine, libraries, noise_mod.for_machine(db, machine)
