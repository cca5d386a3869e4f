"""Runner processes: finding the native runner, asking it what it can do, and measuring cases.

Measuring uses the runner's `serve` mode (docs/protocol.md). There is one `serve` process per
(provider, variant), started with `--variant provider=variant`, so a crash takes down only that
provider. Requests go round-robin across the processes, one small batch of samples at a time, so
drift on a shared machine hits every provider alike. Only one request is outstanding at any
moment: measurements never run concurrently.

Every request has a timeout. A process that dies (crash) or does not answer in time (hang) costs
the case it was working on, which is recorded as failed with the reason; the process is restarted
for that provider's remaining cases and the run goes on.
"""

import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptobench.capabilities import SCHEMA, Capabilities
from cryptobench.errors import UserError
from cryptobench.plan import CaseSpec

RUNNER_NAME = "cryptobench-native"
REPO_ROOT = Path(__file__).resolve().parents[2]


def find_runner() -> Path:
    """$CRYPTOBENCH_NATIVE, else the one installed next to this Python, else the build tree's."""
    env = os.environ.get("CRYPTOBENCH_NATIVE")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UserError(f"CRYPTOBENCH_NATIVE={env}: not an executable file")
        return path
    candidates = [
        Path(sys.prefix) / "bin" / RUNNER_NAME,
        REPO_ROOT / "native" / "build" / RUNNER_NAME,
    ]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise UserError(
        f"the native runner {RUNNER_NAME} was not found (looked in "
        f"{', '.join(str(c.parent) for c in candidates)}); build it with `make setup` "
        "or set CRYPTOBENCH_NATIVE to its path"
    )


def list_capabilities(
    exe: Path, variants: dict[str, str] | None = None, timeout: float = 120
) -> Capabilities:
    """Runs `cryptobench-native list`, optionally with variants selected."""
    args = [str(exe), "list"]
    for provider, variant in (variants or {}).items():
        args += ["--variant", f"{provider}={variant}"]
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise UserError(f"{exe} list: no answer within {timeout:.0f} s") from None
    except OSError as e:
        raise UserError(f"cannot start {exe}: {e.strerror}") from None
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        raise UserError(f"{exe} list failed: {lines[0] if lines else f'status {done.returncode}'}")
    try:
        message = json.loads(done.stdout.decode().strip().splitlines()[0])
    except (ValueError, IndexError):
        raise UserError(f"{exe} list: output is not a JSON line") from None
    return Capabilities.from_message(message)


# ---- one serve process ---------------------------------------------------------------------------


class RunnerFailure(Exception):
    """The process crashed, hung, or broke the protocol. `kind` is crash, timeout or protocol."""

    def __init__(self, kind: str, message: str, detail: str = ""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.detail = detail


class ServeProcess:
    """A `cryptobench-native serve` process for one (provider, variant)."""

    def __init__(
        self,
        exe: Path,
        provider: str,
        variant: str,
        timeout: float,
        extra_args: Iterable[str] = (),
    ):
        self.provider, self.variant, self.timeout = provider, variant, timeout
        self.args = [str(exe), "serve", "--variant", f"{provider}={variant}", *extra_args]
        self.proc: subprocess.Popen | None = None
        self.hello: dict[str, Any] = {}
        self._buf = bytearray()
        self._stderr = None

    def start(self) -> dict[str, Any]:
        # Closed in _cleanup(), whichever way the process ends.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            # A session of its own: Ctrl-C in the terminal reaches cryptobench, which then stops
            # the runners itself, instead of the runners dying under a half-written reply.
            self.proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        except OSError as e:
            raise RunnerFailure("start", f"cannot start the runner: {e.strerror}") from None
        hello = self._read("starting")
        if hello.get("type") != "hello":
            raise self._protocol(f"expected hello, got {hello.get('type')!r}")
        if hello.get("schema") != SCHEMA:
            raise self._protocol(f"runner speaks schema {hello.get('schema')}, we speak {SCHEMA}")
        running = (hello.get("variants") or {}).get(self.provider)
        if running != self.variant:
            raise self._protocol(
                f"runner runs {self.provider} as {running!r}, not {self.variant!r}"
            )
        self.hello = hello
        return hello

    def request(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        assert self.proc and self.proc.stdin
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise self._died(doing) from None
        return self._read(doing)

    def stop(self) -> None:
        """Asks the process to quit, and kills it if it does not within a moment."""
        if not self.proc:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                assert self.proc.stdin
                self.proc.stdin.write(b'{"cmd": "quit"}\n')
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.kill()
        self._cleanup()

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        if self.proc:
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self._stderr:
            self._stderr.close()
            self._stderr = None

    def _read(self, doing: str) -> dict[str, Any]:
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                stderr = self._stderr_text()
                self.kill()
                raise RunnerFailure(
                    "timeout",
                    f"runner gave no reply within {self.timeout:g} s while {doing} (hung); "
                    "killed it",
                    stderr,
                )
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died(doing)
                self._buf += chunk
        line, _, rest = bytes(self._buf).partition(b"\n")
        self._buf = bytearray(rest)
        try:
            message = json.loads(line)
        except ValueError:
            raise self._protocol(f"not a JSON line: {line[:120]!r}") from None
        if not isinstance(message, dict):
            raise self._protocol(f"not a JSON object: {line[:120]!r}")
        return message

    def _died(self, doing: str) -> RunnerFailure:
        assert self.proc
        try:
            status = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            status = self.proc.returncode
        if status is not None and status < 0:
            how = f"crashed (killed by {signal.Signals(-status).name})"
        else:
            how = f"exited unexpectedly (status {status})"
        stderr = self._stderr_text()
        # The first line is the runner's own message; usage text or a stack trace may follow.
        first = stderr.strip().splitlines()[0] if stderr.strip() else ""
        self._cleanup()
        reason = f"runner {how} while {doing}" + (f": {first}" if first else "")
        return RunnerFailure("crash", reason, stderr)

    def _protocol(self, what: str) -> RunnerFailure:
        stderr = self._stderr_text()
        self.kill()
        return RunnerFailure("protocol", f"runner broke the protocol: {what}", stderr)

    def _stderr_text(self, limit: int = 4000) -> str:
        """The beginning of what the runner wrote to stderr (it writes little: a diagnostic
        line, perhaps usage text or a sanitizer's report)."""
        if not self._stderr:
            return ""
        try:
            self._stderr.seek(0)
            return self._stderr.read(limit).decode(errors="replace")
        except (OSError, ValueError):
            return ""


def _die_with_parent() -> None:
    """Runs in the child before exec. If cryptobench itself is killed (SIGKILL leaves it no
    chance to clean up), the kernel kills the runner too, instead of leaving a runner that is
    stuck in a hung library call behind."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


_PR_SET_PDEATHSIG = 1

# ---- measuring many cases ------------------------------------------------------------------------


MEASUREMENT_FIELDS = ("layout", "clock", "rewarms", "heap")


@dataclass
class Outcome:
    """What became of one case. `failure` names the kind of failure for the failures table."""

    case_id: int
    case: CaseSpec
    status: str  # ok, failed, unsupported
    reason: str = ""
    gate: dict[str, Any] = field(default_factory=dict)
    iterations: int | None = None
    calibration_ns: int | None = None
    samples: list[tuple[int, int, int]] = field(default_factory=list)  # iterations, ns, ticks
    heap: dict[str, Any] | None = None
    max_rss_kb: int | None = None
    runner_summary: dict[str, Any] | None = None
    # What else the runner reported about how it measured: layout, clock, rewarms, heap record.
    measurement: dict[str, Any] | None = None
    failure: str | None = None  # gate, library, crash, timeout, protocol, start
    detail: str = ""


@dataclass
class _Worker:
    provider: str
    variant: str
    queue: deque  # of (case_id, CaseSpec)
    proc: ServeProcess | None = None
    current: tuple[int, CaseSpec] | None = None
    samples: list[tuple[int, int, int]] = field(default_factory=list)
    opened: dict[str, Any] = field(default_factory=dict)  # the `case` reply
    units_done: int = 0  # progress units of the current case already counted

    @property
    def busy(self) -> bool:
        return self.current is not None or bool(self.queue)


ProgressFn = Callable[[int, int, str], None]


class Measurement:
    """Measures cases round-robin across one serve process per (provider, variant).

    `on_outcome` is called as each case completes (the store commits it right there);
    `on_progress(done, total, label)` reports progress in units of one sample (plus one each for
    opening and closing a case).
    """

    def __init__(
        self,
        exe: Path,
        cases: list[tuple[int, CaseSpec]],
        timeout_s: float,
        on_outcome: Callable[[Outcome], None],
        on_progress: ProgressFn | None = None,
        runner_args: Iterable[str] = (),
    ):
        self.exe, self.timeout_s = exe, timeout_s
        self.on_outcome, self.on_progress = on_outcome, on_progress
        self.runner_args = list(runner_args)
        workers: dict[tuple[str, str], _Worker] = {}
        for case_id, case in cases:
            key = (case.provider, case.variant)
            workers.setdefault(key, _Worker(case.provider, case.variant, deque()))
            workers[key].queue.append((case_id, case))
        self.workers = list(workers.values())
        self.total = sum(_units(c) for _, c in cases)
        self.done = 0
        self.cases_total, self.cases_done = len(cases), 0

    def run(self) -> None:
        try:
            while True:
                active = [w for w in self.workers if w.busy]
                if not active:
                    break
                for worker in active:
                    self._step(worker)
        finally:
            for worker in self.workers:
                if worker.proc:
                    # An interrupted worker may be mid-sample: no point waiting for it.
                    worker.proc.kill() if worker.busy else worker.proc.stop()

    def _step(self, w: _Worker) -> None:
        """One request to one worker's runner."""
        if w.proc is None and not self._start(w):
            return
        assert w.proc
        try:
            if w.current is None:
                self._open(w)
            elif len(w.samples) < w.current[1].samples:
                self._sample(w)
            else:
                self._close(w)
        except RunnerFailure as e:
            w.proc.kill()
            w.proc = None  # restarted for the next case
            assert w.current
            case_id, case = w.current
            self._finish(
                w, Outcome(case_id, case, "failed", e.message, failure=e.kind, detail=e.detail)
            )

    def _start(self, w: _Worker) -> bool:
        proc = ServeProcess(self.exe, w.provider, w.variant, self.timeout_s, self.runner_args)
        try:
            proc.start()
        except RunnerFailure as e:
            proc.kill()
            # A runner that cannot start for this variant will not start for the next case
            # either: every remaining case of the worker fails with the same reason.
            while w.queue:
                w.current = w.queue.popleft()
                case_id, case = w.current
                self._finish(
                    w, Outcome(case_id, case, "failed", e.message, failure="start", detail=e.detail)
                )
            return False
        w.proc = proc
        return True

    def _open(self, w: _Worker) -> None:
        assert w.proc
        case_id, case = w.current = w.queue.popleft()
        w.samples, w.opened, w.units_done = [], {}, 0
        self._report(case)
        reply = w.proc.request(
            {"cmd": "open", "case": case.to_protocol(_wire_id(case_id))},
            "opening the case (gate, warm-up, calibration)",
        )
        _expect(reply, "case", case_id)
        self._advance(w, 1)
        status = reply.get("status")
        if status != "ok":
            status = "unsupported" if status == "unsupported" else "failed"
            self._finish(
                w,
                Outcome(
                    case_id,
                    case,
                    status,
                    reply.get("reason", ""),
                    gate=reply.get("gate") or {},
                    failure="gate" if status == "failed" else None,
                ),
            )
            return
        w.opened = reply

    def _sample(self, w: _Worker) -> None:
        assert w.proc and w.current
        case_id, case = w.current
        count = min(case.batch, case.samples - len(w.samples))
        reply = w.proc.request(
            {"cmd": "sample", "id": _wire_id(case_id), "count": count}, "sampling"
        )
        if reply.get("type") == "result":  # the library failed mid-sampling: the case is over
            _expect(reply, "result", case_id)
            self._finish(w, self._from_result(w, reply))
            return
        _expect(reply, "samples", case_id)
        w.samples += [_sample_tuple(s) for s in reply.get("samples", [])]
        self._advance(w, count)

    def _close(self, w: _Worker) -> None:
        assert w.proc and w.current
        case_id, _ = w.current
        reply = w.proc.request({"cmd": "close", "id": _wire_id(case_id)}, "closing the case")
        _expect(reply, "result", case_id)
        outcome = self._from_result(w, reply)
        if outcome.status == "ok" and outcome.samples != w.samples:
            raise RunnerFailure(
                "protocol", "runner broke the protocol: result samples differ from the samples sent"
            )
        self._finish(w, outcome)

    @staticmethod
    def _from_result(w: _Worker, r: dict[str, Any]) -> Outcome:
        assert w.current
        case_id, case = w.current
        status = r.get("status")
        status = status if status in ("ok", "unsupported") else "failed"
        return Outcome(
            case_id,
            case,
            status,
            r.get("reason", ""),
            gate=r.get("gate") or w.opened.get("gate") or {},
            iterations=w.opened.get("iterations"),
            calibration_ns=w.opened.get("calibration_ns"),
            samples=[_sample_tuple(s) for s in r.get("samples", [])],
            heap=r.get("heap"),
            max_rss_kb=r.get("max_rss_kb"),
            runner_summary=r.get("summary"),
            measurement={k: r[k] for k in MEASUREMENT_FIELDS if k in r} or None,
            failure="library" if status == "failed" else None,
        )

    def _finish(self, w: _Worker, outcome: Outcome) -> None:
        # A case that ends early (refused by the gate, crashed) gives back its unused units.
        self._advance(w, _units(outcome.case) - w.units_done)
        w.current, w.samples, w.opened, w.units_done = None, [], {}, 0
        self.cases_done += 1
        self.on_outcome(outcome)

    def _advance(self, w: _Worker, units: int) -> None:
        w.units_done += units
        self.done += units
        if w.current:
            self._report(w.current[1])

    def _report(self, case: CaseSpec) -> None:
        if self.on_progress:
            label = f"{self.cases_done}/{self.cases_total} cases, now {case.label()}"
            self.on_progress(self.done, self.total, label)


def _units(case: CaseSpec) -> int:
    return case.samples + 2  # open, the samples, close


def _wire_id(case_id: int) -> str:
    return f"c{case_id}"


def _expect(reply: dict[str, Any], kind: str, case_id: int) -> None:
    if reply.get("type") == "error":
        raise RunnerFailure("protocol", f"runner refused the request: {reply.get('message')}")
    if reply.get("type") != kind or reply.get("id") != _wire_id(case_id):
        raise RunnerFailure(
            "protocol",
            f"runner broke the protocol: expected {kind} for {_wire_id(case_id)}, got "
            f"{reply.get('type')!r} for {reply.get('id')!r}",
        )


def _sample_tuple(s: dict[str, Any]) -> tuple[int, int, int]:
    return int(s["iterations"]), int(s["ns"]), int(s.get("ticks", 0))
