"""OpenVPN handshakes: one server in namespace A and ten clients in namespace B, each with its
own TUN, renegotiating the TLS 1.2 DHE-RSA control channel every second for a fixed window —
the thesis's Table 5.2 set-up. Counted: the server's completed handshakes in the window (one log
line each) and its CPU time; and, first, the time one client alone takes to connect
(Table 5.1)."""

import time

from cryptobench.figures import Figure, failed
from cryptobench.scenarios.channel import openvpn, procs
from cryptobench.scenarios.channel.model import DH_GROUPS, RSA_BITS, SOFT_IA32CAP

RENEG_S = 1  # the thesis's clients renegotiated every second
ALL_UP_TIMEOUT_S = 90.0


def grid(quick: bool, accels: list[str]) -> list[tuple[str, str, str]]:
    """(cert, dh group, accel) cells, in the order they run."""
    if quick:  # the paper's three key sizes with one group, accelerated and not
        return [(f"rsa-{b}", "ffdhe2048", a) for a in accels for b in RSA_BITS]
    return [(f"rsa-{b}", g, a) for a in accels for b in RSA_BITS for g in DH_GROUPS]


def cell(
    ledger, topo, pki, work, cert: str, dh: str, accel: str, clients: int, window_s: float
) -> list[Figure]:
    key = {"part": "handshake", "channel": "openvpn", "cert": cert, "dh": dh, "accel": accel}
    ia32 = SOFT_IA32CAP if accel == "off" else ""
    server_s = openvpn.Settings(cert=cert, dh=dh, reneg_sec=0, ia32cap=ia32)
    client_s = openvpn.Settings(cert=cert, dh=dh, reneg_sec=RENEG_S, ia32cap=ia32)
    started: list[procs.Daemon] = []
    try:
        server = openvpn.start_server(ledger, topo, pki, work, server_s)
        started.append(server)
        first = openvpn.start_client(ledger, topo, pki, work, client_s, 0)
        started.append(first)
        connect_s = openvpn.wait_client(first)
        # The rest join; the window starts once all of them are connected.
        for i in range(1, clients):
            started.append(openvpn.start_client(ledger, topo, pki, work, client_s, i))
        deadline = time.monotonic() + ALL_UP_TIMEOUT_S
        for c in started[2:]:
            openvpn.wait_client(c, max(1.0, deadline - time.monotonic()))
        meter = procs.CpuMeter(started)
        count0 = procs.count_in(server.log, openvpn.HANDSHAKE_LINE)
        meter.begin()
        began = time.monotonic()
        time.sleep(window_s)
        cpu = meter.end()
        elapsed = time.monotonic() - began
        count = procs.count_in(server.log, openvpn.HANDSHAKE_LINE) - count0
        if not server.alive():
            raise procs.DaemonFailed(f"openvpn server died: {procs.tail(server.log)}")
    except procs.DaemonFailed as e:
        return [failed(key, "handshakes/min", "1/min", str(e))]
    finally:
        for d in reversed(started):
            procs.stop(ledger, d)
    server_cpu = cpu.get("openvpn server", 0.0)
    clients_cpu = sum(v for k, v in cpu.items() if k.startswith("openvpn client"))
    extra = {
        "handshakes": count,
        "window_s": elapsed,
        "clients": clients,
        "server_cpu_s": server_cpu,
        "clients_cpu_s": clients_cpu,
    }
    out = [
        Figure(key, "handshakes/min", "1/min", [60.0 * count / elapsed], extra=extra),
        Figure(key, "server cpu", "%", [100.0 * server_cpu / elapsed], "lower"),
        Figure(key, "connect time", "s", [connect_s], "lower"),
    ]
    if server_cpu > 0:
        out.append(Figure(key, "handshakes per server CPU-s", "1/s", [count / server_cpu]))
    return out


def measure(db, run_id, ledger, topo, pki, work, spec, say) -> None:
    if openvpn.missing():
        from cryptobench.figures import skipped

        db.add_figures(
            run_id,
            [
                skipped(
                    {"part": "handshake", "channel": "openvpn"},
                    "handshakes/min",
                    "1/min",
                    openvpn.missing(),
                )
            ],
        )
        return
    # Every repetition goes over the whole grid, so the machine's drift hits each cell alike;
    # the store pools a cell's repetitions into one figure (cryptobench.figures.pool).
    runs = spec.get("handshake_runs", spec["runs"])
    for run in range(runs):
        for cert, dh, accel in grid(spec["quick"], spec["accel"]):
            say(
                run_id,
                f"OpenVPN handshakes: {cert} {dh} accel {accel}, "
                f"{spec['clients']} clients, {spec['handshake_window_s']:.0f} s, "
                f"run {run + 1}/{runs}",
            )
            db.add_figures(
                run_id,
                cell(
                    ledger,
                    topo,
                    pki,
                    work,
                    cert,
                    dh,
                    accel,
                    spec["clients"],
                    spec["handshake_window_s"],
                ),
            )
