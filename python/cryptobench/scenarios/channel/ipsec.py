"""strongSwan IKEv2 with ESP in user space (kernel-libipsec over a TUN device: this kernel has no
ESP), one charon per namespace. Each charon gets its own configuration (STRONGSWAN_CONF), its
own vici socket in the run's directory and a private /run (a tmpfs mounted inside the mount
namespace `ip netns exec` gives it), so two charons — or two runs — never share a pid file or a
socket. Readiness: the vici socket answers; the tunnel is up when `swanctl --list-sas` shows the
child SA INSTALLED."""

import shutil
from pathlib import Path

from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.topology import ADDR_A, ADDR_B, Topology, Tunnel, ip
from cryptobench.scenarios.resources import Ledger

INNER_A = "198.19.1.1"
INNER_B = "198.19.2.1"
PLUGINS = (
    "random nonce openssl aes sha1 sha2 hmac gcm pem pkcs1 x509 kdf kernel-libipsec "
    "kernel-netlink socket-default vici updown"
)
PSK = "cryptobench-channel-ipsec-psk-not-a-secret"
CHARON = "/usr/lib/ipsec/charon"
PROGRAMS = (CHARON, "swanctl")


def missing() -> str | None:
    absent = [t for t in PROGRAMS if shutil.which(t) is None]
    if absent:
        return f"{', '.join(absent)} not installed (`make apt-channel`)"
    plugins = Path("/usr/lib/ipsec/plugins")
    needed = ("kernel-libipsec", "openssl", "gcm")
    lost = [p for p in needed if not (plugins / f"libstrongswan-{p}.so").exists()]
    if lost:
        return f"strongSwan plugins {', '.join(lost)} missing (`make apt-channel`)"
    return None


def _conf(work: Path, side: str) -> tuple[Path, Path, Path]:
    d = work / f"ipsec-{side}"
    d.mkdir(exist_ok=True)
    vici, log = d / "charon.vici", d / "charon.log"
    conf = d / "strongswan.conf"
    conf.write_text(
        "charon {\n"
        f"  load = {PLUGINS}\n"
        "  install_virtual_ip = no\n"
        f"  plugins {{\n    vici {{\n      socket = unix://{vici}\n    }}\n  }}\n"
        f"  filelog {{\n    cb {{\n      path = {log}\n      default = 1\n      ike = 1\n"
        "    }\n  }\n}\n"
    )
    return conf, vici, log


def _swanctl_conf(work: Path, side: str, esp: str) -> Path:
    here, there = (ADDR_A, ADDR_B) if side == "a" else (ADDR_B, ADDR_A)
    inner_here, inner_there = (INNER_A, INNER_B) if side == "a" else (INNER_B, INNER_A)
    me, peer = ("a", "b") if side == "a" else ("b", "a")
    path = work / f"ipsec-{side}" / "swanctl.conf"
    path.write_text(
        "connections {\n  cb {\n    version = 2\n"
        f"    local_addrs = {here}\n    remote_addrs = {there}\n"
        f"    local {{\n      auth = psk\n      id = {me}\n    }}\n"
        f"    remote {{\n      auth = psk\n      id = {peer}\n    }}\n"
        "    children {\n      cb {\n"
        f"        local_ts = {inner_here}/32\n        remote_ts = {inner_there}/32\n"
        f"        esp_proposals = {esp}\n        mode = tunnel\n"
        "      }\n    }\n  }\n}\n"
        f'secrets {{\n  ike-cb {{\n    id-a = a\n    id-b = b\n    secret = "{PSK}"\n  }}\n}}\n'
    )
    return path


def _swanctl(vici: Path, *argv: str, timeout_s: float = 30) -> str:
    done = procs.quiet(["swanctl", *argv, "--uri", f"unix://{vici}"], timeout_s)
    if done.returncode != 0:
        raise procs.DaemonFailed(f"swanctl {argv[0]}: {(done.stdout + done.stderr).strip()[-300:]}")
    return done.stdout


def _charon(ledger: Ledger, topo: Topology, work: Path, side: str, ia32cap: str):
    conf, vici, log = _conf(work, side)
    ns = topo.a if side == "a" else topo.b
    argv = topo.exec(ns, ["sh", "-c", 'mount -t tmpfs cb /run && exec "$@"', "sh", CHARON])
    env = {"STRONGSWAN_CONF": str(conf)}
    if ia32cap:
        env["OPENSSL_ia32cap"] = ia32cap
    vici.unlink(missing_ok=True)  # a stopped charon's socket file is not this one's

    def answers() -> bool:
        return (
            vici.exists()
            and procs.quiet(["swanctl", "--stats", "--uri", f"unix://{vici}"]).returncode == 0
        )

    daemon = procs.start_ready(ledger, f"charon {side}", argv, log, answers, 30, env, own_log=True)
    return daemon, vici


def _why(charons: list[procs.Daemon]) -> str:
    """The lines of the charons' logs that say what failed (else their last lines)."""
    lines = []
    for d in charons:
        text = d.log.read_text(errors="replace") if d.log.exists() else ""
        lines += [
            f"{d.name}: {x.strip()}"
            for x in text.splitlines()
            if "fail" in x.lower() or "NO_PROPOSAL" in x
        ]
    return " | ".join(lines[-3:]) or procs.tail(charons[-1].log)


def tunnel(ledger: Ledger, topo: Topology, work: Path, esp: str, ia32cap: str = "") -> Tunnel:
    """An IKEv2 tunnel between 198.19.1.1 (in A) and 198.19.2.1 (in B) with `esp`."""
    started: list[procs.Daemon] = []
    try:
        for side, ns, inner in (("a", topo.a, INNER_A), ("b", topo.b, INNER_B)):
            # the inner addresses live on lo; libipsec routes them through its TUN (table 220)
            if inner not in ip("-n", ns, "addr", "show", "dev", "lo"):
                ip("-n", ns, "addr", "add", f"{inner}/32", "dev", "lo")
            daemon, vici = _charon(ledger, topo, work, side, ia32cap)
            started.append(daemon)
            _swanctl(vici, "--load-all", "--file", str(_swanctl_conf(work, side, esp)))
        _swanctl(vici, "--initiate", "--child", "cb", "--timeout", "20", timeout_s=30)
        sas = _swanctl(vici, "--list-sas")
        if "INSTALLED" not in sas:
            raise procs.DaemonFailed(f"no child SA installed: {sas.strip()[-300:]}")
    except BaseException as e:
        for d in reversed(started):
            procs.stop(ledger, d)
        if isinstance(e, procs.DaemonFailed) and started:
            raise procs.DaemonFailed(f"{_why(started)} | {str(e)[-200:]}") from None
        raise
    return Tunnel(INNER_A, INNER_B, started)
