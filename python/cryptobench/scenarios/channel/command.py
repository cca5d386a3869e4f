"""`cryptobench channel`: what a protected channel costs — TLS handshakes, VPN latency, bulk
transfer — with real daemons in two network namespaces, and plain TLS on loopback."""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.figures import failed, skipped
from cryptobench.scenarios import packages
from cryptobench.scenarios.base import Started, Target, options_from, run_figure_scenario
from cryptobench.scenarios.channel import model


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--parts", metavar="LIST", help=f"what to measure (default all: {','.join(model.PARTS)})"
    )
    p.add_argument(
        "--channels",
        metavar="LIST",
        help="channels for latency and bulk (default all; --quick: "
        f"{', '.join(model.QUICK_CHANNELS)}); known: "
        f"{', '.join(model.all_channels())}",
    )
    p.add_argument(
        "--accel",
        metavar="LIST",
        default=None,
        help="on (OpenSSL as it detects the CPU), off (OPENSSL_ia32cap="
        f"{model.SOFT_IA32CAP}: no AES-NI/PCLMUL/AVX) or on,off for both (the default)",
    )
    p.add_argument("--runs", type=int, metavar="N", help=f"repetitions (default {model.RUNS})")
    p.add_argument(
        "--handshake-runs",
        type=int,
        metavar="N",
        help="repetitions of each OpenVPN handshake cell (default: --runs; the thesis, and "
        f"reproduce 003: {model.THESIS_HANDSHAKE_RUNS})",
    )
    p.add_argument(
        "--window",
        type=float,
        metavar="S",
        help="seconds each OpenVPN handshake cell renegotiates (default "
        f"{model.HANDSHAKE_WINDOW_S:.0f}; --quick {model.QUICK_HANDSHAKE_WINDOW_S:.0f})",
    )
    p.add_argument("--size", metavar="SIZE", help="bulk file size (default 128M; --quick 32M)")
    p.add_argument("--quick", action="store_true", help="a small grid: a few minutes")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the figures as JSON")


def _list(given: str | None, default: list[str], known: list[str], what: str) -> list[str]:
    chosen = [x.strip() for x in (given or ",".join(default)).split(",") if x.strip()]
    bad = [x for x in chosen if x not in known]
    if bad or not chosen:
        raise UserError(
            f"--{what}: unknown {what.rstrip('s')} {bad[0] if bad else '(none)'!r} "
            f"(known: {', '.join(known)})"
        )
    return chosen


def settings(args: "Options") -> dict[str, Any]:
    from cryptobench.units import parse_size

    quick = bool(args.quick)
    parts = _list(args.parts, list(model.PARTS), list(model.PARTS), "parts")
    channels = _list(
        args.channels,
        list(model.QUICK_CHANNELS if quick else model.all_channels()),
        model.all_channels(),
        "channels",
    )
    accel = _list(args.accel, list(model.ACCEL), list(model.ACCEL), "accel")
    runs = args.runs if args.runs is not None else (model.QUICK_RUNS if quick else model.RUNS)
    if not 1 <= runs <= 20:
        raise UserError("--runs must be between 1 and 20")
    handshake_runs = args.handshake_runs if args.handshake_runs is not None else runs
    if not 1 <= handshake_runs <= 20:
        raise UserError("--handshake-runs must be between 1 and 20")
    window = args.window or (model.QUICK_HANDSHAKE_WINDOW_S if quick else model.HANDSHAKE_WINDOW_S)
    if not 1 <= window <= 600:
        raise UserError("--window must be between 1 and 600 seconds")
    size = (
        parse_size(args.size)
        if args.size
        else (model.QUICK_BULK_BYTES if quick else model.BULK_BYTES)
    )
    if not 1 << 20 <= size <= 4 << 30:
        raise UserError("--size must be between 1M and 4G")
    return {
        "parts": parts,
        "channels": channels,
        "accel": accel,
        "runs": runs,
        "handshake_runs": handshake_runs,
        "quick": quick,
        "handshake_window_s": window,
        "tls_window_s": model.QUICK_TLS_WINDOW_S if quick else model.TLS_WINDOW_S,
        "payloads": list(model.QUICK_PAYLOADS if quick else model.PAYLOADS),
        "echoes": model.QUICK_ECHOES if quick else model.ECHOES,
        "bulk_bytes": size,
        "iperf_s": model.QUICK_IPERF_S if quick else model.IPERF_S,
        "clients": model.OVPN_CLIENTS,
        "soft_ia32cap": model.SOFT_IA32CAP,
    }


def _say(run_id: int, text: str) -> None:
    print(f"run {run_id}: {text}", file=sys.stderr, flush=True)


def _ia32(accel: str) -> str:
    return model.SOFT_IA32CAP if accel == "off" else ""


def tls_part(db, run_id, ledger, pki, work, spec) -> None:
    from cryptobench.scenarios.channel import tls

    for _ in range(spec["runs"]):
        for cfg in tls.grid(spec["quick"]):
            for accel in spec["accel"]:
                _say(
                    run_id, f"TLS on loopback: {cfg.protocol} {cfg.cert} {cfg.group} accel {accel}"
                )
                db.add_figures(
                    run_id, tls.measure(ledger, pki, work, cfg, spec["tls_window_s"], _ia32(accel))
                )


def channel_parts(db, run_id, ledger, topo, pki, work, spec) -> None:
    """Latency and bulk through every channel, each brought up once per accel setting."""
    from cryptobench.scenarios.channel import bulk, channels, latency, procs

    for name in spec["channels"]:
        why = channels.missing(name)
        if why:
            db.add_figures(
                run_id,
                [
                    skipped({"part": p, "channel": name}, "channel", "-", why)
                    for p in ("latency", "bulk")
                    if p in spec["parts"]
                ],
            )
            continue
        # ssh uses OpenSSL's libcrypto whatever the channel: bulk runs both settings on all.
        openssl = channels.uses_openssl(name)
        for accel in spec["accel"] if openssl or "bulk" in spec["parts"] else ["on"]:
            key = {"channel": name, "accel": accel}
            _say(run_id, f"channel {name} (accel {accel})")
            try:
                tunnel = channels.up(name, ledger, topo, pki, work, _ia32(accel))
            except (procs.DaemonFailed, OSError, RuntimeError) as e:
                if name in model.IPSEC_IMPOSSIBLE:
                    why = f"{model.IPSEC_IMPOSSIBLE_WHY} (here: {str(e)[:200]})"
                    db.add_figures(
                        run_id, [skipped({"part": "latency", **key}, "channel", "-", why)]
                    )
                    break
                db.add_figures(run_id, [failed({"part": "latency", **key}, "channel", "-", str(e))])
                continue
            try:
                for _ in range(spec["runs"]):
                    if "latency" in spec["parts"] and (openssl or accel == "on"):
                        db.add_figures(
                            run_id,
                            latency.measure(
                                topo, tunnel.server_addr, key, spec["payloads"], spec["echoes"]
                            ),
                        )
                    if "bulk" in spec["parts"]:
                        db.add_figures(
                            run_id,
                            bulk.measure(
                                ledger, topo, work, tunnel, key, spec, _ia32(accel), openssl
                            ),
                        )
            finally:
                channels.down(ledger, tunnel)


def measure_all(db, run_id, ledger, spec) -> None:
    from cryptobench.scenarios.channel import handshake, topology
    from cryptobench.scenarios.channel.pki import Pki

    work = ledger.tempdir()
    pki = Pki(work / "pki")
    if "handshake" in spec["parts"]:
        tls_part(db, run_id, ledger, pki, work, spec)
    why = topology.missing()
    if why:
        print(f"channel: {why}; only the loopback TLS part ran", file=sys.stderr)
        db.add_figures(
            run_id, [skipped({"part": p}, "namespaces", "-", why) for p in spec["parts"]]
        )
        return
    topo = topology.create(ledger)
    spec["topology"] = {
        "a": topo.a,
        "b": topo.b,
        "link": f"{topo.veth_a}<->{topo.veth_b}",
        "addresses": [topology.ADDR_A, topology.ADDR_B],
    }
    db.set_settings(run_id, {"scenario": spec})
    if "handshake" in spec["parts"]:
        handshake.measure(db, run_id, ledger, topo, pki, work, spec, _say)
    if {"latency", "bulk"} & set(spec["parts"]):
        channel_parts(db, run_id, ledger, topo, pki, work, spec)


@dataclass(frozen=True)
class Options:
    """What `cryptobench channel` measures (the command line's options, typed; None: the
    default the option's help names)."""

    parts: str | None = None  # comma-separated
    channels: str | None = None  # comma-separated
    accel: str | None = None  # "on", "off" or "on,off"
    runs: int | None = None
    handshake_runs: int | None = None  # repetitions of each handshake cell (None: runs)
    window: float | None = None  # seconds per OpenVPN handshake cell
    size: str | None = None  # bulk file size, "128M"
    quick: bool = False


def command(args: argparse.Namespace) -> int:
    return start(options_from(Options, args), Target.from_args(args)).status


# The programs each part runs besides its channels' daemons (Debian's, mk/channel.mk).
PART_PROGRAMS = {
    "handshake": ("openvpn", "openssl"),
    "latency": ("ping",),
    "bulk": ("ssh-keygen", "/usr/sbin/sshd", "scp", "vsftpd", "curl", "iperf3"),
}


def programs(spec: dict[str, Any]) -> list[str]:
    """Every program the run will start: the namespaces' `ip`, each part's, each channel's."""
    from cryptobench.scenarios.channel import channels

    tunnelled = any(p in spec["parts"] for p in ("latency", "bulk"))
    return [
        "ip",
        *(t for p in spec["parts"] for t in PART_PROGRAMS[p]),
        *(t for c in spec["channels"] if tunnelled for t in channels.programs(c)),
    ]


def start(options: Options, target: Target) -> Started:
    """Measures the channels, stores the run; see run_figure_scenario for the rest of its life."""
    from cryptobench.scenarios.channel import SCENARIO

    spec = settings(options)
    packages.require("channel", programs(spec))

    def measure(db, run_id: int, ledger) -> None:
        measure_all(db, run_id, ledger, spec)
        if "handshake" in spec["parts"]:
            from cryptobench.scenarios.channel import predict

            db.add_figures(run_id, predict.figures(db, db.figures(run_id)))

    return run_figure_scenario(SCENARIO, target, spec, measure)
