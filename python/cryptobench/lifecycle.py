"""The life cycle of a stored run, shared by `cryptobench run` and every scenario: create the
run in the store, mark it running, turn SIGTERM into the same orderly stop as Ctrl-C, and leave it
`complete` or `interrupted` (resumable) whatever happens. Nothing here prints."""

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from cryptobench import __version__, plan, runner, store
from cryptobench.capabilities import Capabilities
from cryptobench.errors import UserError


def _raise_interrupt(signum: int, frame: Any) -> NoReturn:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """`kill PID` stops a measurement like Ctrl-C does: through KeyboardInterrupt, so every
    `finally` (tear-downs, the run's status) still runs."""
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def measuring_process_alive(pid: int | None) -> bool:
    """Whether the process that marked a run `running` is still measuring it."""
    if not pid or pid == os.getpid():
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"cryptobench" in cmdline


def displayed_status(info: store.RunInfo) -> str:
    """`running` for a run whose process is gone means it was killed: `stopped`, resumable."""
    if info.status == "running" and not measuring_process_alive(info.pid):
        return "stopped"
    return info.status


# ---- core runs ------------------------------------------------------------------------------


def library_records(exe: Path, caps: Capabilities, cases: list[plan.CaseSpec]) -> list[dict]:
    """Version and code path of every (provider, variant) in the plan, each as the library
    reports it with that variant selected."""
    records = []
    for provider, variant in sorted({(c.provider, c.variant) for c in cases}):
        p = caps.providers[provider]
        if variant != p.variant:
            p = runner.list_capabilities(exe, {provider: variant}).providers[provider]
        description = next((v.description for v in p.variants if v.name == variant), "")
        records.append(
            {
                "provider": provider,
                "variant": variant,
                "version": p.version,
                "description": description,
                "code_path": p.code_path,
            }
        )
    return records


def create_core_run(
    db: store.Store,
    the_plan: plan.Plan,
    exe: Path,
    caps: Capabilities,
    argv: list[str],
    note: str,
) -> int:
    return db.create_run(
        suite=the_plan.suite,
        settings=the_plan.settings(),
        argv=argv,
        versions={
            "cryptobench": __version__,
            "runner": caps.runner,
            "runner_version": caps.runner_version,
            "runner_path": str(exe),
        },
        machine=caps.machine,
        libraries=library_records(exe, caps, the_plan.cases),
        cases=the_plan.cases,
        note=note,
    )


def check_resumable(db: store.Store, run_id: int, caps: Capabilities) -> store.RunInfo:
    info = db.run(run_id)
    if info.status == "complete":
        raise UserError(f"run {run_id} is already complete")
    if info.suite.startswith("scenario:"):
        raise UserError(f"run {run_id} is a scenario run ({info.suite}); run the scenario again")
    if info.status == "running" and measuring_process_alive(info.pid):
        raise UserError(f"run {run_id} is being measured right now (process {info.pid})")
    stored = db.machine(run_id)
    for key in ("hostname", "cpu_model"):
        if stored.get(key) != caps.machine.get(key):
            raise UserError(
                f"run {run_id} was measured on another machine ({key} {stored.get(key)!r}, "
                f"here {caps.machine.get(key)!r}); start a new run instead"
            )
    return info


def measure(
    db: store.Store,
    run_id: int,
    exe: Path,
    timeout: float,
    runner_args: list[str],
    on_progress: Callable[..., None],
) -> str:
    """Measures the run's pending cases, storing each as it completes. Returns the run's final
    status: `complete`, or `interrupted` after Ctrl-C or SIGTERM (every stored case is kept and
    `run --resume` finishes the rest)."""
    measurement = runner.Measurement(
        exe,
        db.pending_cases(run_id),
        timeout,
        on_outcome=db.complete_case,
        on_progress=on_progress,
        runner_args=runner_args,
    )
    db.set_status(run_id, "running")
    try:
        with sigterm_as_interrupt():
            measurement.run()
    except KeyboardInterrupt:
        db.set_status(run_id, "interrupted")
        return "interrupted"
    db.set_status(run_id, "complete")
    return "complete"


# ---- scenario runs --------------------------------------------------------------------------


@contextmanager
def scenario_run(
    db: store.Store,
    name: str,
    *,
    settings: dict[str, Any],
    argv: list[str],
    machine: dict[str, Any],
    driver: str,
    driver_version: str = __version__,
    driver_path: str = "",
    libraries: list[dict[str, Any]] | None = None,
    note: str = "",
) -> Iterator[int]:
    """A scenario's run: stored as suite `scenario:<name>` with no cases; the scenario adds its
    figures with `db.add_figures` as it measures them. The run ends `complete` when the block
    ends normally and `interrupted` otherwise (Ctrl-C, SIGTERM, an error); what was stored
    stays. The exception goes on to the caller."""
    run_id = db.create_run(
        suite=f"scenario:{name}",
        settings=settings,
        argv=argv,
        versions={
            "cryptobench": __version__,
            "runner": driver,
            "runner_version": driver_version,
            "runner_path": driver_path,
        },
        machine=machine,
        libraries=libraries or [],
        cases=[],
        note=note,
    )
    status = "interrupted"
    try:
        with sigterm_as_interrupt():
            yield run_id
        status = "complete"
    finally:
        db.set_status(run_id, status)
