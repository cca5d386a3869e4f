"""`cryptobench serve` as a user starts it: the real command in a subprocess on a free loopback
port, waited for until it answers, stopped by its pid."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

CRYPTOBENCH = Path(sys.executable).with_name("cryptobench")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    def __init__(self, db: str, log: Path) -> None:
        self.name = db  # what the tests call it (the browser test: the engine)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.process = subprocess.Popen(
            [str(CRYPTOBENCH), "serve", "--db", db, "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
            env={**os.environ, "CRYPTOBENCH_DB": ""},
        )
        # One client for every request: building one costs more than a page (its TLS context).
        self.client = httpx.Client(base_url=self.url, timeout=120)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"cryptobench serve exited: {log.read_text()}")
            try:
                self.client.get("/runs", timeout=5)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("cryptobench serve did not answer within 120 s")

    def get(self, path: str) -> httpx.Response:
        return self.client.get(path)

    def stop(self) -> None:
        self.client.close()
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
