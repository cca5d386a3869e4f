"""One `serve` runner process: started, spoken to in JSON lines with a timeout per request,
ended by its pid; a crash or hang is a RunnerFailure of that provider only."""

import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cryptobench.capabilities import SCHEMA


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
        prefix: Iterable[str] = (),
        env: dict[str, str] | None = None,
    ):
        """`prefix`: a program the runner runs under (valgrind); `env`: its environment
        (default: ours)."""
        self.provider, self.variant, self.timeout = provider, variant, timeout
        self.args = [*prefix, str(exe), "serve", "--variant", f"{provider}={variant}", *extra_args]
        self.env = env
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
                env=self.env,
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

    def stop(self, wait: float = 2) -> None:
        """Asks the process to quit, and kills it if it does not within `wait` seconds."""
        if not self.proc:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                assert self.proc.stdin
                self.proc.stdin.write(b'{"cmd": "quit"}\n')
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=wait)
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
