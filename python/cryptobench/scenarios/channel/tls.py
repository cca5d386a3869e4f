"""Plain TLS on loopback: `openssl s_server` and `openssl s_time -new` (a full handshake per
connection, no resumption) for a bounded time. Handshakes per second, and per CPU-second of
the server (its /proc/PID/stat) and of server plus client (the client's wait4)."""

import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from cryptobench.figures import Figure, failed
from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.pki import Pki
from cryptobench.scenarios.resources import Ledger

DHE_CIPHER = "DHE-RSA-AES256-GCM-SHA384"


@dataclass(frozen=True)
class Config:
    protocol: str  # "TLS 1.2 DHE-RSA" or "TLS 1.3 X25519"
    cert: str  # pki.KEY_ARGS kind
    group: str  # DH group, or "X25519"

    @property
    def key(self) -> dict:
        return {"part": "tls", "protocol": self.protocol, "cert": self.cert, "group": self.group}

    @property
    def tls13(self) -> bool:
        return self.protocol.startswith("TLS 1.3")


def grid(quick: bool) -> list[Config]:
    from cryptobench.scenarios.channel.model import DH_GROUPS, RSA_BITS, TLS13_CERTS

    dhe = [Config("TLS 1.2 DHE-RSA", f"rsa-{b}", g) for b in RSA_BITS for g in DH_GROUPS]
    if quick:
        dhe = [c for c in dhe if (c.cert, c.group) in {("rsa-2048", "ffdhe2048")}]
    return dhe + [Config("TLS 1.3 X25519", c, "X25519") for c in TLS13_CERTS]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(
    ledger: Ledger, pki: Pki, work: Path, cfg: Config, seconds: int, ia32cap: str = ""
) -> list[Figure]:
    key = {**cfg.key, "accel": "off" if ia32cap else "on"}
    legacy = pki.needs_legacy(cfg.cert, None if cfg.tls13 else cfg.group)
    env = pki.env(cfg.cert, None if cfg.tls13 else cfg.group, ia32cap)
    ident = pki.identity("server", cfg.cert)
    port = free_port()
    log = work / f"s_server-{cfg.cert}-{cfg.group}-{key['accel']}.log"
    server_argv = [
        "openssl",
        "s_server",
        "-accept",
        f"127.0.0.1:{port}",
        "-cert",
        str(ident.cert),
        "-key",
        str(ident.key),
        "-www",
        "-quiet",
    ]
    if cfg.tls13:
        server_argv += ["-tls1_3", "-groups", cfg.group]
        client_argv = ["-tls1_3"]
    else:
        server_argv += ["-tls1_2", "-dhparam", str(pki.dh(cfg.group))]
        client_argv = ["-tls1_2", "-cipher", DHE_CIPHER + (":@SECLEVEL=0" if legacy else "")]
    if legacy:
        server_argv += ["-cipher", "ALL:@SECLEVEL=0"]
    try:
        server = procs.start_ready(
            ledger, "s_server", server_argv, log, procs.listening([], port), env=env
        )
    except procs.DaemonFailed as e:
        return [failed(key, "handshakes/s", "1/s", str(e))]
    try:
        meter = procs.CpuMeter([server])
        meter.begin()
        began = time.perf_counter()
        done = procs.run_client(
            [
                "openssl",
                "s_time",
                "-connect",
                f"127.0.0.1:{port}",
                "-new",
                "-time",
                str(seconds),
                *client_argv,
            ],
            timeout_s=seconds + 30,
            env=env,
        )
        wall = time.perf_counter() - began
        server_cpu = meter.end()["s_server"]
    finally:
        procs.stop(ledger, server)
    m = re.search(r"^(\d+) connections in [\d.]+s", done.stdout, re.M)
    if done.returncode != 0 or not m or int(m.group(1)) == 0:
        why = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return [
            failed(
                key,
                "handshakes/s",
                "1/s",
                f"s_time: no handshake completed: {why} | s_server: {procs.tail(log, 3)}",
            )
        ]
    n = int(m.group(1))
    total_cpu = server_cpu + done.cpu_s
    extra = {
        "handshakes": n,
        "wall_s": wall,
        "server_cpu_s": server_cpu,
        "client_cpu_s": done.cpu_s,
    }
    out = [
        Figure(key, "handshakes/s", "1/s", [n / wall], extra=extra),
        Figure(key, "server cpu", "%", [100 * server_cpu / wall], "lower"),
    ]
    if server_cpu > 0:
        out.append(Figure(key, "handshakes per server CPU-s", "1/s", [n / server_cpu]))
    if total_cpu > 0:
        out.append(Figure(key, "handshakes per CPU-s", "1/s", [n / total_cpu]))
    return out
