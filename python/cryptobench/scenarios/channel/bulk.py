"""Bulk transfer of one random file from namespace A to B through a channel: scp with each
OpenSSH cipher (sshd in A), FTP (vsftpd in A, curl in B), and iperf3. Per transfer: MB/s, the
CPU time of every process involved — the client (wait4, with its children), the server daemon
(its /proc/PID/stat including the per-connection children it reaped) and the tunnel's daemons —
as CPU % of one core over the transfer, and MB/s per CPU-%, the thesis's efficiency figure.

scp's figures include setting up the connection (key exchange, authentication); the thesis
counted only the transfer. The set-up alone is measured with a 1-byte file just before and kept
as its own figure ("connection set-up", seconds), not subtracted: on a shared 2-core machine the
difference of two noisy wall times can come out near zero and turn a rate into nonsense."""

import filecmp
import json
import os
from pathlib import Path

from cryptobench.figures import Figure, failed
from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.model import QUICK_SSH_CIPHERS, SSH_CIPHERS
from cryptobench.scenarios.channel.topology import Topology, Tunnel
from cryptobench.scenarios.resources import Ledger

SSH_PORT = 2222
FTP_PORT = 2121
IPERF_PORT = 5201
TIMEOUT_S = 600
# Legacy scp protocol (as the thesis used), no configuration files, no questions.
SCP_OPTIONS = [
    *("-O", "-q", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "Compression=no"),
    *("-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"),
]


def payload(work: Path, size: int) -> Path:
    """The random file, made once per run in a directory the FTP server may serve."""
    served = work / "served"
    served.mkdir(exist_ok=True)
    served.chmod(0o755)
    work.chmod(0o755)
    path = served / f"random-{size}.bin"
    if not path.exists() or path.stat().st_size != size:
        with open(path, "wb") as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
            f.write(os.urandom(size & ((1 << 20) - 1)))
        path.chmod(0o644)
    tiny = served / "one-byte.bin"
    tiny.write_bytes(b"x")
    tiny.chmod(0o644)
    return path


def _private_run(argv: list[str]) -> list[str]:
    """Inside `ip netns exec` (its own mount namespace) a private /run, so sshd's
    privilege-separation directory never appears on the machine."""
    return ["sh", "-c", 'mount -t tmpfs cb /run && mkdir -p /run/sshd && exec "$@"', "sh", *argv]


def _ssh_files(work: Path) -> Path:
    d = work / "ssh"
    if (d / "client").exists():
        return d
    d.mkdir(exist_ok=True)
    for name in ("host", "client"):
        done = procs.quiet(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)])
        if done.returncode != 0:
            raise procs.DaemonFailed(f"ssh-keygen: {done.stderr.strip()[-200:]}")
    (d / "authorized_keys").write_text((d / "client.pub").read_text())
    ciphers = ",".join(c for c, _ in SSH_CIPHERS)
    (d / "sshd_config").write_text(
        f"Port {SSH_PORT}\nHostKey {d / 'host'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
        "StrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nCompression no\nUseDNS no\n"
        f"PidFile none\nCiphers {ciphers}\nMACs hmac-sha2-256,hmac-sha2-256-etm@openssh.com\n"
    )
    return d


def _vsftpd_conf(work: Path) -> Path:
    empty = work / "ftp-empty"
    empty.mkdir(exist_ok=True)
    empty.chmod(0o755)
    conf = work / "vsftpd.conf"
    conf.write_text(
        f"listen=YES\nlisten_ipv6=NO\nlisten_port={FTP_PORT}\nbackground=NO\n"
        f"anonymous_enable=YES\nno_anon_password=YES\nanon_root={work / 'served'}\n"
        "local_enable=NO\nwrite_enable=NO\nseccomp_sandbox=NO\npasv_enable=YES\n"
        "pasv_min_port=30000\npasv_max_port=30100\n"
        f"secure_chroot_dir={empty}\nxferlog_enable=NO\nuse_localtime=NO\n"
    )
    conf.chmod(0o600)
    return conf


def _figures(key: dict, size: int, wall: float, cpu: dict[str, float]) -> list[Figure]:
    total = sum(cpu.values())
    mbs = size / wall / 1e6
    pct = 100.0 * total / wall
    extra = {"wall_s": wall, "bytes": size, "cpu_s": cpu}
    out = [
        Figure(key, "throughput", "MB/s", [mbs], extra=extra),
        Figure(key, "cpu", "%", [pct], "lower", extra={"cpu_s": cpu}),
    ]
    if pct > 0:
        out.append(Figure(key, "MB/s per CPU-%", "MB/s/%", [mbs / pct]))
    return out


def _transfer(
    name: str,
    client_argv: list[str],
    server: procs.Daemon,
    tunnel: Tunnel,
    env: dict,
    received: Path,
    source: Path,
) -> tuple[float, dict[str, float]]:
    received.unlink(missing_ok=True)
    meter = procs.CpuMeter([server, *tunnel.daemons])
    meter.begin()
    done = procs.run_client(client_argv, TIMEOUT_S, env)
    procs.settle_children([server])
    cpu = meter.end()
    if done.returncode != 0:
        raise procs.DaemonFailed(
            f"{name} exit {done.returncode}: "
            f"{(done.stderr or done.stdout).strip()[-300:]} | "
            f"{server.name}: {procs.tail(server.log, 3)}"
        )
    if not received.exists() or not filecmp.cmp(received, source, shallow=False):
        raise procs.DaemonFailed(f"{name}: the received file differs from the sent one")
    cpu[name] = done.cpu_s
    return done.wall_s, cpu


def scp(ledger, topo, work, tunnel, key, source, ia32cap, ciphers=SSH_CIPHERS) -> list[Figure]:
    d = _ssh_files(work)
    env = {"OPENSSL_ia32cap": ia32cap} if ia32cap else {}
    log = work / "sshd.log"
    argv = ["/usr/sbin/sshd", "-D", "-f", str(d / "sshd_config"), "-E", str(log)]
    out: list[Figure] = []
    try:
        sshd = procs.start_ready(
            ledger,
            "sshd",
            topo.in_a(_private_run(argv)),
            log,
            procs.listening(topo.in_a([]), SSH_PORT),
            env=env,
        )
    except procs.DaemonFailed as e:
        return [failed({**key, "transfer": "scp"}, "throughput", "MB/s", str(e))]
    try:
        for cipher, mac in ciphers:
            k = {**key, "transfer": f"scp {cipher}" + (f"+{mac}" if mac else "")}
            recv = work / "received.bin"

            def argv_for(name: str, cipher=cipher, mac=mac, recv=recv) -> list[str]:
                a = ["scp", *SCP_OPTIONS, "-c", cipher, "-i", str(d / "client")]
                a += ["-P", str(SSH_PORT)] + (["-o", f"MACs={mac}"] if mac else [])
                remote = f"root@{tunnel.server_addr}:{source.parent / name}"
                return topo.in_b([*a, remote, str(recv)])

            try:
                wall0, cpu0 = _transfer(
                    "scp",
                    argv_for("one-byte.bin"),
                    sshd,
                    tunnel,
                    env,
                    recv,
                    source.parent / "one-byte.bin",
                )
                wall, cpu = _transfer("scp", argv_for(source.name), sshd, tunnel, env, recv, source)
                out += _figures(k, source.stat().st_size, wall, cpu)
                out.append(
                    Figure(k, "connection set-up", "s", [wall0], "lower", extra={"cpu_s": cpu0})
                )
            except procs.DaemonFailed as e:
                out.append(failed(k, "throughput", "MB/s", str(e)))
    finally:
        procs.stop(ledger, sshd)
    return out


def ftp(ledger, topo, work, tunnel, key, source) -> list[Figure]:
    k = {**key, "transfer": "ftp"}
    log = work / "vsftpd.log"
    try:
        vsftpd = procs.start_ready(
            ledger,
            "vsftpd",
            topo.in_a(["vsftpd", str(_vsftpd_conf(work))]),
            log,
            procs.listening(topo.in_a([]), FTP_PORT),
        )
    except procs.DaemonFailed as e:
        return [failed(k, "throughput", "MB/s", str(e))]
    try:
        recv = work / "received.bin"
        argv = topo.in_b(
            [
                "curl",
                "-sS",
                "--max-time",
                str(TIMEOUT_S),
                "-o",
                str(recv),
                f"ftp://{tunnel.server_addr}:{FTP_PORT}/{source.name}",
            ]
        )
        wall, cpu = _transfer("curl", argv, vsftpd, tunnel, {}, recv, source)
        return _figures(k, source.stat().st_size, wall, cpu)
    except procs.DaemonFailed as e:
        return [failed(k, "throughput", "MB/s", str(e))]
    finally:
        procs.stop(ledger, vsftpd)


def iperf(ledger, topo, work, tunnel, key, seconds: int) -> list[Figure]:
    k = {**key, "transfer": "iperf3"}
    log = work / "iperf3.log"
    try:
        server = procs.start_ready(
            ledger,
            "iperf3 server",
            topo.in_a(["iperf3", "-s", "-p", str(IPERF_PORT)]),
            log,
            procs.listening(topo.in_a([]), IPERF_PORT),
        )
    except procs.DaemonFailed as e:
        return [failed(k, "throughput", "MB/s", str(e))]
    try:
        meter = procs.CpuMeter([server, *tunnel.daemons])
        meter.begin()
        done = procs.run_client(
            topo.in_b(
                [
                    "iperf3",
                    "-c",
                    tunnel.server_addr,
                    "-p",
                    str(IPERF_PORT),
                    "-t",
                    str(seconds),
                    "-J",
                ]
            ),
            seconds + 60,
        )
        cpu = meter.end()
        cpu["iperf3 client"] = done.cpu_s
        try:
            end = json.loads(done.stdout)["end"]
            bps = end["sum_received"]["bits_per_second"]
            secs = end["sum_received"]["seconds"]
        except (ValueError, KeyError) as e:
            return [failed(k, "throughput", "MB/s", f"iperf3: {e}: {done.stdout.strip()[-200:]}")]
        # The CPU counted is over the client's whole life; its wall time is the window.
        figs = _figures(k, int(bps / 8 * secs), done.wall_s, cpu)
        figs[0] = Figure(k, "throughput", "MB/s", [bps / 8e6], extra=figs[0].extra)
        return figs
    finally:
        procs.stop(ledger, server)


def measure(
    ledger: Ledger,
    topo: Topology,
    work: Path,
    tunnel: Tunnel,
    key: dict,
    spec: dict,
    ia32cap: str,
    openssl_channel: bool,
) -> list[Figure]:
    """Everything over `tunnel`; with OpenSSL unaccelerated (`ia32cap`) on a channel whose own
    cryptography is not OpenSSL's, only scp changes, so only scp runs."""
    key = {"part": "bulk", **key}
    source = payload(work, spec["bulk_bytes"])
    ciphers = QUICK_SSH_CIPHERS if spec["quick"] else SSH_CIPHERS
    out = scp(ledger, topo, work, tunnel, key, source, ia32cap, ciphers)
    if openssl_channel or not ia32cap:
        out += ftp(ledger, topo, work, tunnel, key, source)
        out += iperf(ledger, topo, work, tunnel, key, spec["iperf_s"])
    (work / "received.bin").unlink(missing_ok=True)
    return out
