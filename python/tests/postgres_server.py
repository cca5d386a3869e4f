"""A real PostgreSQL server for the tests (Debian's package): a fresh cluster in a temporary
directory, listening on a Unix socket only, stopped and removed afterwards."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_postgres(argv: list[str]) -> list[str]:
    # initdb refuses to run as root; the package's postgres user runs the test cluster.
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self) -> None:
        bindir = binaries()
        assert bindir is not None
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="cryptobench-pg-"))
        self.port = _free_port()  # only names the socket file: no TCP listener
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        subprocess.run(
            _as_postgres(
                [
                    str(bindir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = f"-k {self.dir} -p {self.port} -c listen_addresses=''"
        subprocess.run(
            _as_postgres(
                [
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-o",
                    options,
                    "-l",
                    str(self.dir / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        self.url = f"postgresql://postgres@/postgres?host={self.dir}&port={self.port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = subprocess.run(
                [str(bindir / "pg_isready"), "-h", str(self.dir), "-p", str(self.port)],
                capture_output=True,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the test PostgreSQL server did not come up")

    def stop(self) -> None:
        subprocess.run(
            _as_postgres(
                [
                    str(self.bindir / "pg_ctl"),
                    "-D",
                    str(self.dir / "data"),
                    "-m",
                    "fast",
                    "-w",
                    "stop",
                ]
            ),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.dir, ignore_errors=True)
