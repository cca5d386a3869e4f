"""The channels latency and bulk run through, by name (model.all_channels()): the raw veth,
OpenVPN data-channel variants, strongSwan with user-space ESP, wireguard-go. `up` brings one up
between the namespaces and returns where B reaches A through it; `down` stops its daemons."""

from pathlib import Path

from cryptobench.scenarios.channel import openvpn, procs
from cryptobench.scenarios.channel.model import (
    IPSEC_IMPOSSIBLE,
    IPSEC_VARIANTS,
    OPENVPN_VARIANTS,
    RAW,
    WIREGUARD,
)
from cryptobench.scenarios.channel.pki import Pki
from cryptobench.scenarios.channel.topology import ADDR_A, ADDR_B, Topology, Tunnel
from cryptobench.scenarios.resources import Ledger


def kind(name: str) -> str:
    return name.split()[0] if name != RAW else "raw"


def uses_openssl(name: str) -> bool:
    """Whether OPENSSL_ia32cap changes the channel's own cryptography."""
    return name in OPENVPN_VARIANTS or name in IPSEC_VARIANTS or name in IPSEC_IMPOSSIBLE


def missing(name: str) -> str | None:
    if name in OPENVPN_VARIANTS:
        return openvpn.missing()
    if name in IPSEC_VARIANTS or name in IPSEC_IMPOSSIBLE:
        from cryptobench.scenarios.channel import ipsec

        return ipsec.missing()
    if name == WIREGUARD:
        from cryptobench.scenarios.channel import wireguard

        return wireguard.missing()
    return None


def programs(name: str) -> tuple[str, ...]:
    """The programs (Debian's, mk/channel.mk) the channel runs."""
    if name in OPENVPN_VARIANTS:
        return openvpn.PROGRAMS
    if name in IPSEC_VARIANTS or name in IPSEC_IMPOSSIBLE:
        from cryptobench.scenarios.channel import ipsec

        return ipsec.PROGRAMS
    if name == WIREGUARD:
        from cryptobench.scenarios.channel import wireguard

        return wireguard.PROGRAMS
    return ()


def up(
    name: str, ledger: Ledger, topo: Topology, pki: Pki, work: Path, ia32cap: str = ""
) -> Tunnel:
    if name == RAW:
        return Tunnel(ADDR_A, ADDR_B, [])
    if name in OPENVPN_VARIANTS:
        cipher, auth = OPENVPN_VARIANTS[name]
        return openvpn.tunnel(
            ledger, topo, pki, work, openvpn.Settings(cipher=cipher, auth=auth, ia32cap=ia32cap)
        )
    if name in IPSEC_VARIANTS or name in IPSEC_IMPOSSIBLE:
        from cryptobench.scenarios.channel import ipsec

        esp = IPSEC_VARIANTS.get(name) or IPSEC_IMPOSSIBLE[name]
        return ipsec.tunnel(ledger, topo, work, esp, ia32cap)
    if name == WIREGUARD:
        from cryptobench.scenarios.channel import wireguard

        return wireguard.tunnel(ledger, topo, work)
    raise ValueError(f"unknown channel {name!r}")


def down(ledger: Ledger, tunnel: Tunnel) -> None:
    for daemon in reversed(tunnel.daemons):
        procs.stop(ledger, daemon)
    for entry in reversed(tunnel.extra_entries):
        ledger.release(entry)
