"""Two network namespaces joined by a veth pair, addressed from the benchmarking range
198.18.0.0/15 with no default route: nothing the run sends can leave them. Every name carries
the run's pid so two runs (or two engineers' tests) never collide. Both namespaces are recorded
in the ledger before they exist; deleting a namespace destroys the veth end inside it."""

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptobench.scenarios.resources import Ledger

# The link's own addresses; tunnels number their inner ends from 198.19.0.0/16.
ADDR_A = "198.18.0.1"
ADDR_B = "198.18.0.2"
PREFIX = 30


class TopologyError(Exception):
    pass


def missing() -> str | None:
    """Why the namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "not root: network namespaces and TUN devices need root"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun: the kernel has no TUN device"
    return None


def ip(*argv: str) -> str:
    done = subprocess.run(["ip", *argv], capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        raise TopologyError(f"ip {' '.join(argv)}: {done.stderr.strip()[-200:]}")
    return done.stdout


@dataclass
class Topology:
    a: str  # the server side's namespace
    b: str  # the client side's
    veth_a: str
    veth_b: str
    tag: str  # the run's pid, for names of tunnel interfaces and sockets

    def exec(self, ns: str, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", ns, *argv]

    def in_a(self, argv: Sequence[str]) -> list[str]:
        return self.exec(self.a, argv)

    def in_b(self, argv: Sequence[str]) -> list[str]:
        return self.exec(self.b, argv)


def create(ledger: Ledger) -> Topology:
    tag = str(os.getpid())
    topo = Topology(f"cb{tag}a", f"cb{tag}b", f"cv{tag}a", f"cv{tag}b", tag)
    for ns in (topo.a, topo.b):
        ledger.add("netns", name=ns)
        ip("netns", "add", ns)
    # Made inside the namespaces, so no end of it ever sits in the machine's own namespace.
    ledger.add("link", name=topo.veth_a)
    ip(
        "-n",
        topo.a,
        "link",
        "add",
        topo.veth_a,
        "type",
        "veth",
        "peer",
        "name",
        topo.veth_b,
        "netns",
        topo.b,
    )
    for ns, dev, addr in ((topo.a, topo.veth_a, ADDR_A), (topo.b, topo.veth_b, ADDR_B)):
        ip("-n", ns, "addr", "add", f"{addr}/{PREFIX}", "dev", dev)
        ip("-n", ns, "link", "set", dev, "up")
        ip("-n", ns, "link", "set", "lo", "up")
    for ns in (topo.a, topo.b):
        if "default" in ip("-n", ns, "route", "show"):
            raise TopologyError(f"namespace {ns} has a default route")
    return topo


@dataclass
class Tunnel:
    """A channel that is up: B reaches A at `server_addr` through it."""

    server_addr: str
    client_addr: str
    daemons: list[Any]  # procs.Daemon, stopped by pid at `channels.down`
    extra_entries: list[dict] = field(default_factory=list)  # other ledger entries it made
