"""OpenVPN: a server in namespace A and clients in namespace B, TLS 1.2 with DHE-RSA on the
control channel, a choice of data-channel cipher and digest. Each process has its own TUN
device (named with the run's pid) and its own log; readiness is its log line
"Initialization Sequence Completed"; every full handshake the server completes logs one
"Control Channel: TLSv1.2" line, which is what the handshake part counts."""

import shutil
from dataclasses import dataclass
from pathlib import Path

from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.pki import Pki
from cryptobench.scenarios.channel.topology import ADDR_A, Topology, Tunnel
from cryptobench.scenarios.resources import Ledger

PORT = 1194
SERVER_INNER = "198.19.0.1"
FIRST_CLIENT_INNER = "198.19.0.2"
READY = "Initialization Sequence Completed"
HANDSHAKE_LINE = "Control Channel: TLSv1.2"
START_TIMEOUT_S = 60.0


PROGRAMS = ("openvpn",)


def missing() -> str | None:
    return None if shutil.which("openvpn") else "openvpn not installed (`make apt-channel`)"


@dataclass(frozen=True)
class Settings:
    cert: str = "rsa-2048"
    dh: str = "ffdhe2048"
    cipher: str = "AES-256-GCM"  # data channel; "none" for none
    auth: str = "SHA256"  # "none" for none
    reneg_sec: int = 0  # 0: never renegotiate (latency, bulk)
    ia32cap: str = ""  # OPENSSL_ia32cap for every openvpn process ("" = accelerated)


def _common(pki: Pki, s: Settings, role: str, dev: str, log: Path) -> list[str]:
    ident = pki.identity(role, s.cert)
    legacy = pki.needs_legacy(s.cert, s.dh)
    tls_cipher = "DHE-RSA-AES256-GCM-SHA384" + (":@SECLEVEL=0" if legacy else "")
    argv = [
        "openvpn",
        "--dev",
        dev,
        "--dev-type",
        "tun",
        "--proto",
        "udp4",
        "--ca",
        str(pki.ca.cert),
        "--cert",
        str(ident.cert),
        "--key",
        str(ident.key),
        "--tls-version-max",
        "1.2",
        "--tls-cipher",
        tls_cipher,
        "--data-ciphers",
        s.cipher,
        "--auth",
        s.auth,
        "--reneg-sec",
        str(s.reneg_sec),
        "--reneg-bytes",
        "0",
        "--reneg-pkts",
        "0",
        "--verb",
        "3",
        "--log",
        str(log),
        "--script-security",
        "0",
        "--tls-cert-profile",
        "insecure" if legacy else "preferred",
    ]
    if s.cipher == "none":
        argv += ["--cipher", "none", "--data-ciphers-fallback", "none"]
    return argv


def start_server(ledger: Ledger, topo: Topology, pki: Pki, work: Path, s: Settings) -> procs.Daemon:
    log = work / f"openvpn-server-{s.cert}-{s.dh}{'-soft' if s.ia32cap else ''}.log"
    argv = [
        *_common(pki, s, "server", f"co{topo.tag}s", log),
        "--server",
        "198.19.0.0",
        "255.255.255.0",
        "--topology",
        "subnet",
        "--local",
        ADDR_A,
        "--lport",
        str(PORT),
        "--dh",
        str(pki.dh(s.dh)),
        "--duplicate-cn",
        "--max-clients",
        "64",
        "--keepalive",
        "10",
        "60",
    ]
    env = pki.env(s.cert, s.dh, s.ia32cap)
    return procs.start_ready(
        ledger,
        "openvpn server",
        topo.in_a(argv),
        log,
        procs.log_has(log, READY),
        START_TIMEOUT_S,
        env,
        own_log=True,
    )


def start_client(
    ledger: Ledger, topo: Topology, pki: Pki, work: Path, s: Settings, index: int = 0
) -> procs.Daemon:
    log = work / f"openvpn-client{index}-{s.cert}-{s.dh}{'-soft' if s.ia32cap else ''}.log"
    argv = [
        *_common(pki, s, "client", f"co{topo.tag}c{index}", log),
        "--client",
        "--remote",
        ADDR_A,
        str(PORT),
        "--nobind",
        "--remote-cert-tls",
        "server",
        "--resolv-retry",
        "0",
        "--connect-retry-max",
        "3",
    ]
    env = pki.env(s.cert, s.dh, s.ia32cap)
    return procs.start(ledger, f"openvpn client {index}", topo.in_b(argv), log, env, own_log=True)


def wait_client(client: procs.Daemon, timeout_s: float = START_TIMEOUT_S) -> float:
    return procs.wait_ready(client, procs.log_has(client.log, READY), timeout_s, "connected")


def tunnel(ledger: Ledger, topo: Topology, pki: Pki, work: Path, s: Settings) -> Tunnel:
    server = start_server(ledger, topo, pki, work, s)
    try:
        client = start_client(ledger, topo, pki, work, s)
        try:
            wait_client(client)
        except BaseException:
            procs.stop(ledger, client)
            raise
    except BaseException:
        procs.stop(ledger, server)
        raise
    return Tunnel(SERVER_INNER, FIRST_CLIENT_INNER, [server, client])
