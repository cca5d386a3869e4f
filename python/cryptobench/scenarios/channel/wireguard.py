"""WireGuard in user space (wireguard-go: this kernel has no WireGuard), one interface per
namespace. The interface names carry the run's pid because wireguard-go's control socket lives
in the machine's shared /var/run/wireguard/NAME.sock; that socket is recorded in the ledger so a
SIGKILLed run's stale one is removed by the next run. Readiness: the control socket exists;
the tunnel is up when `wg show` reports a handshake."""

import shutil
import time
from pathlib import Path

from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.topology import ADDR_A, ADDR_B, Topology, Tunnel, ip
from cryptobench.scenarios.resources import Ledger

PORT = 51820
INNER_A = "198.19.3.1"
INNER_B = "198.19.3.2"
SOCKETS = Path("/var/run/wireguard")
PROGRAMS = ("wireguard-go", "wg")


def missing() -> str | None:
    absent = [t for t in PROGRAMS if shutil.which(t) is None]
    return f"{', '.join(absent)} not installed (`make apt-channel`)" if absent else None


def _wg(topo: Topology, ns: str, *argv: str, stdin: str | None = None) -> str:
    done = procs.quiet(topo.exec(ns, ["wg", *argv]), 20, stdin)
    if done.returncode != 0:
        raise procs.DaemonFailed(f"wg {argv[0]}: {done.stderr.strip()[-200:]}")
    return done.stdout


def tunnel(ledger: Ledger, topo: Topology, work: Path) -> Tunnel:
    d = work / "wireguard"
    d.mkdir(exist_ok=True)
    keys, private = {}, {}  # the private keys go to wg through a pipe, never to a file
    for side in ("a", "b"):
        private[side] = procs.quiet(["wg", "genkey"]).stdout.strip()
        keys[side] = procs.quiet(["wg", "pubkey"], 10, stdin=private[side]).stdout.strip()
    started: list[procs.Daemon] = []
    entries: list[dict] = []
    try:
        sides = (
            ("a", topo.a, INNER_A, "b", ADDR_B),
            ("b", topo.b, INNER_B, "a", ADDR_A),
        )
        for side, ns, inner, peer, peer_addr in sides:
            name = f"wg{topo.tag}{side}"
            sock = SOCKETS / f"{name}.sock"
            entries.append(ledger.add("path", path=str(sock)))
            log = d / f"{side}.log"
            daemon = procs.start_ready(
                ledger,
                f"wireguard-go {side}",
                topo.exec(ns, ["wireguard-go", "-f", name]),
                log,
                sock.exists,
                20,
            )
            started.append(daemon)
            _wg(
                topo,
                ns,
                "set",
                name,
                "private-key",
                "/dev/stdin",
                "listen-port",
                str(PORT),
                "peer",
                keys[peer],
                "endpoint",
                f"{peer_addr}:{PORT}",
                "allowed-ips",
                f"{INNER_A if peer == 'a' else INNER_B}/32",
                stdin=private[side],
            )
            ip("-n", ns, "addr", "add", f"{inner}/24", "dev", name)
            ip("-n", ns, "link", "set", name, "up")
        # The first packet starts the handshake; wait (bounded) for `wg show` to report it.
        procs.quiet(topo.in_b(["ping", "-c", "1", "-W", "2", INNER_A]), 10)
        deadline = time.monotonic() + 15
        while "latest handshake" not in _wg(topo, topo.b, "show", f"wg{topo.tag}b"):
            if time.monotonic() > deadline:
                raise procs.DaemonFailed(f"no WireGuard handshake: {procs.tail(started[-1].log)}")
            time.sleep(0.1)
    except BaseException:
        for daemon in reversed(started):
            procs.stop(ledger, daemon)
        for entry in reversed(entries):
            ledger.release(entry)
        raise
    return Tunnel(INNER_A, INNER_B, started, entries)
