"""The life cycle of a stored run, shared by `cryptobench run` and every scenario: create the
run in the store, mark it running, turn SIGTERM into the same orderly stop as Ctrl-C, and leave it
`complete` or `interrupted` (resumable) whatever happens. Nothing here prints."""

import os
import signal
from collections.abc import Callable, Iterable, Iterator
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
            own = Path(caps.runner_of.get(provider, exe))  # the runner serving this provider
            p = runner.list_capabilities(own, {provider: variant}).providers[provider]
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


def claim_for_resume(db: store.Store, run_id: int, caps: Capabilities) -> store.RunInfo:
    """Checks that a stopped run can be finished here and takes it (see Store.claim_run)."""
    info = db.run(run_id)
    if info.status == "complete":
        raise UserError(f"run {run_id} is already complete")
    if info.suite.startswith("scenario:"):
        raise UserError(f"run {run_id} is a scenario run ({info.suite}); run the scenario again")
    stored = db.machine(run_id)
    for key in ("hostname", "cpu_model"):
        if stored.get(key) != caps.machine.get(key):
            raise UserError(
                f"run {run_id} was measured on another machine ({key} {stored.get(key)!r}, "
                f"here {caps.machine.get(key)!r}); start a new run instead"
            )
    return db.claim_run(run_id, lambda i: i.status == "running" and measuring_process_alive(i.pid))


def measure(
    db: store.Store,
    run_id: int,
    exe: Path,
    timeout: float,
    runner_args: list[str],
    on_progress: Callable[..., None],
    caps: Capabilities | None = None,
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
        caps=caps,
        # The key order planned for the run (stored in its settings), so a resume keeps it.
        order_seed=db.run(run_id).settings.get("order_seed"),
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


# ---- CPU pinning -----------------------------------------------------------------------------


def _pinned_runner_cpus(pids: Iterable[int] | None = None) -> set[int]:
    """CPUs that runner processes of other cryptobench runs are pinned to right now (among
    `pids`; by default every process)."""
    busy: set[int] = set()
    entries = Path("/proc").iterdir() if pids is None else (Path(f"/proc/{p}") for p in pids)
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cpus = os.sched_getaffinity(int(entry.name))
        except (OSError, ValueError):
            continue
        runner_process = any(
            Path(a.decode(errors="replace")).name.startswith(("cryptobench-native",
                                                             "cryptobench-runner-"))
            for a in argv[:2]
        )  # fmt: skip
        if runner_process and b"serve" in argv and len(cpus) == 1:
            busy |= cpus
    return busy


def runner_pinning(cpu: int | None, no_pin: bool) -> tuple[list[str], str]:
    """The runner's pinning arguments and a warning for the user ('' when none). A CPU that
    does not exist or is not ours is refused; with no --cpu, a CPU no other run's runners are
    pinned to is chosen, so two runs at once do not share one CPU without saying so."""
    if no_pin:
        return ["--no-pin"], ""
    allowed = sorted(os.sched_getaffinity(0))
    if cpu is not None and cpu not in allowed:
        raise UserError(f"--cpu {cpu}: not a CPU this process may run on ({allowed})")
    busy = _pinned_runner_cpus()
    if cpu is not None:
        warning = (
            f"warning: another cryptobench run's runners are pinned to CPU {cpu} too; "
            "their figures and ours will disturb each other"
            if cpu in busy
            else ""
        )
        return ["--cpu", str(cpu)], warning
    free = [c for c in allowed if c not in busy]
    if not free:
        return [], (
            f"warning: other cryptobench runs' runners are pinned to every CPU ({allowed}); "
            "their figures and ours will disturb each other"
        )
    chosen = free[-1]
    note = (
        f"CPU {allowed[-1]} is taken by another run's runners: pinning to CPU {chosen}"
        if chosen != allowed[-1]
        else ""
    )
    return ["--cpu", str(chosen)], note
