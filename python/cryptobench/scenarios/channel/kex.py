"""What the key exchange costs a TLS 1.3 handshake, post-quantum or not: Go's crypto/tls
(cryptobench-tlshs, built by `make setup` from runners/go/cmd/tlshs) as a server process and a
client process on loopback, one group offered and accepted at a time — X25519, the hybrids
X25519MLKEM768 and SecP256r1MLKEM768 — and Go's default client (which offers the hybrid and
X25519, two key shares). Full handshakes only (no session cache, no tickets).

Figures: handshakes per second, per server CPU-second (the server's /proc/PID/stat, as for
openssl s_server) and per CPU-second of both ends (the client's wait4); the bytes of one
handshake each way and of the ClientHello, and how many TCP segments that ClientHello needs at a
1500-byte MTU."""

import json
import math
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cryptobench.figures import Figure, failed, skipped
from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.pki import Pki
from cryptobench.scenarios.resources import Ledger

TOOL = "cryptobench-tlshs"
PART = "tls-kex"
STACK = "go crypto/tls"
GROUPS = ("X25519", "X25519MLKEM768", "SecP256r1MLKEM768", "default")
QUICK_CERTS = ("ecdsa-p256",)
CERTS = ("ecdsa-p256", "rsa-2048", "ed25519")
# TCP payload in one 1500-byte Ethernet frame: 1500 - 20 (IPv4) - 20 (TCP) - 12 (the timestamps
# option Linux sends by default). Without TCP options it is 1460; IPv6 takes 20 more.
MTU = 1500
SEGMENT_PAYLOAD = MTU - 20 - 20 - 12
# Go 1.26's crypto/x509 and crypto/tls have no ML-DSA (no public crypto/mldsa package either):
# the server's certificate stays classical.
NO_MLDSA = "Go 1.26's crypto/tls and crypto/x509 have no ML-DSA certificates"


@dataclass(frozen=True)
class Config:
    cert: str  # pki.KEY_ARGS kind of the server's certificate
    group: str  # one of GROUPS

    @property
    def key(self) -> dict:
        return {"part": PART, "stack": STACK, "cert": self.cert, "group": self.group}


def grid(quick: bool) -> list[Config]:
    return [Config(c, g) for c in (QUICK_CERTS if quick else CERTS) for g in GROUPS]


def tool() -> str | None:
    """The tool beside this Python (make setup puts it there), else on PATH."""
    beside = Path(sys.prefix) / "bin" / TOOL
    return str(beside) if beside.is_file() else shutil.which(TOOL)


def missing() -> str:
    return "" if tool() else f"{TOOL} not built (make setup builds it with the Go runner)"


def segments(client_hello: int) -> int:
    return math.ceil(client_hello / SEGMENT_PAYLOAD)


def measure(ledger: Ledger, pki: Pki, work: Path, cfg: Config, seconds: float) -> list[Figure]:
    key = dict(cfg.key)
    exe = tool()
    if not exe:
        return [skipped(key, "handshakes/s", "1/s", missing())]
    ident = pki.identity("server", cfg.cert)
    log = work / f"tlshs-{cfg.cert}-{cfg.group}.log"
    try:
        server = procs.start_ready(
            ledger,
            "tlshs server",
            [exe, "server", "-cert", str(ident.cert), "-key", str(ident.key), "-group", cfg.group],
            log,
            procs.log_has(log, "listening "),
        )
    except procs.DaemonFailed as e:
        return [failed(key, "handshakes/s", "1/s", str(e))]
    try:
        addr = log.read_text().split("listening ", 1)[1].split()[0]
        client = [exe, "client", "-addr", addr, "-ca", str(pki.ca.cert), "-group", cfg.group]
        meter = procs.CpuMeter([server])
        meter.begin()
        began = time.perf_counter()
        done = procs.run_client(
            [*client, "-seconds", str(seconds)],
            timeout_s=seconds + 30,
        )
        wall = time.perf_counter() - began
        server_cpu = meter.end()["tlshs server"]
    finally:
        procs.stop(ledger, server)
    try:
        r = json.loads(done.stdout)
    except ValueError:
        r = {}
    if done.returncode != 0 or not r.get("handshakes"):
        why = (done.stderr or done.stdout).strip().splitlines()[-2:]
        return [failed(key, "handshakes/s", "1/s", f"client: {why} | server: {procs.tail(log, 3)}")]
    n = r["handshakes"]
    extra = {
        "handshakes": n,
        "wall_s": r["wall_s"],
        "client_process_s": wall,
        "server_cpu_s": server_cpu,
        "client_cpu_s": done.cpu_s,
        "negotiated": r["group"],
        "certificate": r["certificate"],
        "go": r["go"],
        "ml_dsa": NO_MLDSA,
    }
    hello = r["client_hello_bytes"]
    out = [
        # The client's own loop time: its process start and certificate parsing are left out.
        Figure(key, "handshakes/s", "1/s", [n / r["wall_s"]], extra=extra),
        Figure(key, "server cpu", "%", [100 * server_cpu / r["wall_s"]], "lower"),
        Figure(key, "ClientHello bytes", "B", [hello], "lower"),
        Figure(key, "client→server bytes", "B", [r["client_to_server_bytes"]], "lower"),
        Figure(key, "server→client bytes", "B", [r["server_to_client_bytes"]], "lower"),
        Figure(
            key,
            f"ClientHello segments at MTU {MTU}",
            "1",
            [segments(hello)],
            "lower",
            extra={"segment_payload_bytes": SEGMENT_PAYLOAD},
        ),
    ]
    if server_cpu > 0:
        out.append(Figure(key, "handshakes per server CPU-s", "1/s", [n / server_cpu]))
    if server_cpu + done.cpu_s > 0:
        out.append(Figure(key, "handshakes per CPU-s", "1/s", [n / (server_cpu + done.cpu_s)]))
    return out
