"""The channel scenario with real daemons (as root, with /dev/net/tun): an OpenVPN tunnel
between two network namespaces measured by ping, OpenVPN handshakes counted, an
`openssl s_server` handshake rate on loopback; nothing left behind — namespaces, links, daemons,
temporary directories — also when the coordinator is killed with SIGKILL and the next run
cleans up."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_harness import missing_part

from cryptobench import cli
from cryptobench.scenarios.channel import handshake, kex, tls, topology
from cryptobench.scenarios.channel.pki import Pki
from cryptobench.scenarios.resources import Ledger, start_time
from cryptobench.store import Store

NEEDED = ("openvpn", "openssl", "ping", "ip", "ss")
NETWORK = os.geteuid() == 0 and os.path.exists("/dev/net/tun")
net_only = pytest.mark.skipif(
    not NETWORK or any(shutil.which(t) is None for t in NEEDED),
    reason="needs root, /dev/net/tun and " + ", ".join(NEEDED) + " (make setup installs them)",
)


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _links() -> set[str]:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines()}


def _ours(names: set[str]) -> set[str]:
    """The names a topology this process makes would have (cb<pid>a, cv<pid>b, …): another test
    worker's runs, or any other run on the machine, make their own beside ours."""
    tag = str(os.getpid())
    return {n for n in names if n[2:-1] == tag}


def _gone(pid: int, started: int | None, timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if start_time(pid) is None or start_time(pid) != started:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("CRYPTOBENCH_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_an_s_server_handshake_rate_on_loopback(tmp_path, state):
    with Ledger("channel", state) as ledger:
        work = ledger.tempdir()
        pki = Pki(work / "pki")
        cfg = tls.Config("TLS 1.3 X25519", "ecdsa-p256", "X25519")
        figures = {f.metric: f for f in tls.measure(ledger, pki, work, cfg, 1)}
        # The configuration the paper measured, with its 1024-bit DH group (legacy, confined).
        legacy = tls.Config("TLS 1.2 DHE-RSA", "rsa-1024", "rfc5114-1024")
        old = {f.metric: f for f in tls.measure(ledger, pki, work, legacy, 1)}
    assert figures["handshakes/s"].status == "ok", figures["handshakes/s"].reason
    assert figures["handshakes/s"].extra["handshakes"] > 0
    assert figures["handshakes per CPU-s"].median > 0
    assert old["handshakes/s"].status == "ok", old["handshakes/s"].reason
    assert not work.exists()
    assert "OPENSSL_CONF" not in os.environ  # the legacy configuration stayed in the run


def test_a_hybrid_pq_handshake_carries_the_ml_kem_key_and_ciphertext(tmp_path, state):
    """Go's crypto/tls on loopback: the hybrid's ClientHello carries an ML-KEM-768 encapsulation
    key (1184 bytes) more than X25519's, the server's flight an ML-KEM-768 ciphertext (1088).
    Ed25519 certificate: its signature is always 64 bytes, where an ECDSA signature's DER length
    varies by handshake (70-72 bytes) and moved the server's flight by a byte in CI."""
    if kex.missing():
        missing_part(kex.missing())
    with Ledger("channel", state) as ledger:
        work = ledger.tempdir()
        pki = Pki(work / "pki")
        got = {}
        for group in ("X25519", "X25519MLKEM768"):
            figs = kex.measure(ledger, pki, work, kex.Config("ed25519", group), 0.3)
            got[group] = {f.metric: f for f in figs}
    classic, hybrid = got["X25519"], got["X25519MLKEM768"]
    for g in (classic, hybrid):
        assert g["handshakes/s"].status == "ok", g["handshakes/s"].reason
        assert g["handshakes/s"].extra["handshakes"] > 0
        assert g["handshakes per server CPU-s"].median > 0
    assert hybrid["handshakes/s"].extra["negotiated"] == "X25519MLKEM768"
    assert classic["handshakes/s"].extra["negotiated"] == "X25519"
    hello = hybrid["ClientHello bytes"].median - classic["ClientHello bytes"].median
    answer = hybrid["server→client bytes"].median - classic["server→client bytes"].median
    assert 1184 <= hello < 1184 + 64
    assert 1088 <= answer < 1088 + 64
    assert classic["ClientHello segments at MTU 1500"].median == 1
    assert not work.exists()


def test_a_clienthello_past_one_segment_is_counted_as_two():
    assert kex.segments(kex.SEGMENT_PAYLOAD) == 1
    assert kex.segments(kex.SEGMENT_PAYLOAD + 1) == 2


@net_only
def test_openvpn_tunnel_and_handshakes_measured_and_nothing_left(tmp_path, state, capsys):
    before_ns, before_links = _ours(_namespaces()), _ours(_links())
    db = tmp_path / "r.db"
    argv = [
        "channel",
        "--quick",
        "--parts",
        "latency",
        "--channels",
        "raw veth,openvpn AES-256-GCM",
        "--accel",
        "on",
        "--db",
        str(db),
    ]
    assert cli.main(argv) == 0
    figures = Store.open(db).figures(1)
    rtt = {(f.key["channel"], f.key["payload"]): f for f in figures if f.metric == "rtt"}
    assert {c for c, _ in rtt} == {"raw veth", "openvpn AES-256-GCM"}
    assert all(f.status == "ok" and f.extra["lost"] < len(f.values) for f in rtt.values())
    assert cli.main(["show", "1", "--db", str(db)]) == 0
    assert "ping rtt" in capsys.readouterr().out
    # what `reproduce 003` (and `reproduce 003 --stored`) renders from such a stored run
    from cryptobench.scenarios.channel.reproduce import from_run

    rep = from_run(db, 1, quick=True)
    assert "Table 5.3, OpenVPN" in rep.text and "ours raw veth" in rep.text
    assert len([c for c in rep.claims if not c.ours_only]) == 8
    # OpenVPN handshakes: a server and two renegotiating clients for two seconds.
    with Ledger("channel", state) as ledger:
        work = ledger.tempdir()
        topo = topology.create(ledger)
        figs = handshake.cell(
            ledger, topo, Pki(work / "pki"), work, "rsa-2048", "ffdhe2048", "on", 2, 2.0
        )
        pids = [e for e in ledger.entries if e["kind"] == "pid"]
        assert pids == []  # every daemon of the cell was stopped by pid at its end
    by_metric = {f.metric: f for f in figs}
    assert by_metric["handshakes/min"].status == "ok", by_metric["handshakes/min"].reason
    assert by_metric["handshakes/min"].extra["handshakes"] >= 1
    assert by_metric["connect time"].median > 0
    assert _ours(_namespaces()) == before_ns
    assert _ours(_links()) == before_links
    assert not work.exists()
    assert list(state.glob("*.json")) == []


@net_only
def test_a_daemon_that_fails_is_recorded_with_its_log_and_the_run_goes_on(tmp_path, state):
    from cryptobench.scenarios.channel import openvpn

    with Ledger("channel", state) as ledger:
        work = ledger.tempdir()
        topo = topology.create(ledger)
        pki = Pki(work / "pki")
        # A client whose server is not there never connects: its log says why.
        s = openvpn.Settings(cipher="AES-256-GCM")
        client = openvpn.start_client(ledger, topo, pki, work, s)
        with pytest.raises(Exception) as err:
            openvpn.wait_client(client, 3)
        assert "not connected" in str(err.value) and "|" in str(err.value)


@net_only
def test_a_killed_run_is_cleaned_up_by_the_next(tmp_path, state):
    db = tmp_path / "r.db"
    env = {
        **os.environ,
        "CRYPTOBENCH_STATE_DIR": str(state),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cryptobench",
            "channel",
            "--parts",
            "latency",
            "--channels",
            "openvpn AES-256-GCM",
            "--accel",
            "on",
            "--db",
            str(db),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    ledger_file = state / f"channel-{child.pid}.json"
    recorded: dict = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        try:
            recorded = json.loads(ledger_file.read_text())
        except (OSError, ValueError):
            recorded = {}
        kinds = [e["kind"] for e in recorded.get("entries", [])]
        if kinds.count("pid") >= 2:  # the OpenVPN server and client are up (or coming up)
            break
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    entries = recorded["entries"]
    namespaces = {e["name"] for e in entries if e["kind"] == "netns"}
    pids = [(e["pid"], e["started"]) for e in entries if e["kind"] == "pid"]
    dirs = [e["path"] for e in entries if e["kind"] == "path"]
    assert namespaces and pids and dirs
    assert namespaces <= _namespaces()  # the killed run left them behind
    # The next run cleans up what the killed one recorded, before it measures anything.
    assert (
        cli.main(
            ["channel", "--parts", "latency", "--channels", "raw veth", "--quick", "--db", str(db)]
        )
        == 0
    )
    assert not namespaces & _namespaces()
    assert all(_gone(pid, started) for pid, started in pids)
    assert not any(Path(d).exists() for d in dirs)
    assert not any(str(child.pid) in link for link in _links())
    assert list(state.glob("*.json")) == []


def test_bad_input_is_one_line(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    assert cli.main(["channel", "--channels", "carrier-pigeon", "--db", db]) == 1
    assert "unknown channel 'carrier-pigeon'" in capsys.readouterr().err
    assert cli.main(["channel", "--parts", "speed", "--db", db]) == 1
    assert "unknown part 'speed'" in capsys.readouterr().err
    # zero repetitions is a usage error of the option itself (issue 25: never "the default")
    with pytest.raises(SystemExit) as ended:
        cli.main(["channel", "--runs", "0", "--db", db])
    assert ended.value.code == 2
    assert "argument --runs: '0' is not a positive integer" in capsys.readouterr().err
    assert cli.main(["channel", "--runs", "21", "--db", db]) == 1
    assert "--runs must be between" in capsys.readouterr().err
    assert cli.main(["channel", "--handshake-runs", "21", "--db", db]) == 1
    assert "--handshake-runs must be between" in capsys.readouterr().err


def test_without_namespaces_only_the_loopback_part_runs(tmp_path, state, monkeypatch, capsys):
    monkeypatch.setattr(topology, "missing", lambda: "not root: network namespaces need root")
    monkeypatch.setattr(
        tls, "grid", lambda quick: [tls.Config("TLS 1.3 X25519", "ed25519", "X25519")]
    )
    db = tmp_path / "r.db"
    assert cli.main(["channel", "--quick", "--accel", "on", "--db", str(db)]) == 0
    assert "not root: network namespaces need root; only the loopback TLS part ran" in (
        capsys.readouterr().err
    )
    figures = Store.open(db).figures(1)
    assert any(f.metric == "handshakes/s" and f.status == "ok" for f in figures)
    skipped = {f.key["part"] for f in figures if f.status == "skipped"}
    assert {"handshake", "latency", "bulk"} <= skipped


def test_the_handshake_prediction_comes_from_a_stored_core_run(tmp_path, native_runner):
    """A real core run of OpenSSL (accelerated and not) on the channel's small suite, then the
    prediction and the break-even read from it; without a core run the prediction is a skip
    that says how to make one."""
    from cryptobench import analysis
    from cryptobench.figures import Figure
    from cryptobench.scenarios.channel import predict

    db = tmp_path / "r.db"
    measured = [
        Figure(
            {
                "part": "tls",
                "protocol": "TLS 1.2 DHE-RSA",
                "cert": "rsa-2048",
                "group": "ffdhe2048",
                "accel": "on",
            },
            "handshakes per server CPU-s",
            "1/s",
            [100.0],
        ),
        # Go's crypto/tls handshakes (the channel's `tls-kex` part): not OpenSSL's, no `accel`;
        # the full `reproduce 003` of 2026-11-27 ended on a KeyError here after 1 h 46 m.
        Figure(
            {"part": "tls-kex", "stack": "go crypto/tls", "cert": "ecdsa-p256", "group": "X25519"},
            "handshakes per server CPU-s",
            "1/s",
            [900.0],
        ),
    ]
    none = predict.figures(Store.open(db), measured)
    assert none[0].status == "skipped" and "cryptobench run --suite" in none[0].reason
    argv = [
        "run",
        "--suite",
        predict.suite_path(),
        "-a",
        "rsa-2048-pss-sha256,ffdhe2048,aes-256-gcm",
        "--db",
        str(db),
    ]
    assert cli.main(argv) == 0
    store = Store.open(db)
    results = analysis.load(store, predict.latest_core_run(store))
    on = predict.handshake(results, "rsa-2048", "ffdhe2048", "on")
    assert on.server_ns > 0 and on.both_ns > on.server_ns
    assert predict.handshake(results, "rsa-2048", "rfc5114-1024", "on").server_ns is None
    (gcm,) = predict.break_even(results)
    assert gcm.algorithm == "aes-256-gcm"
    assert gcm.ns_per_byte_soft > gcm.ns_per_byte_accel  # masking AES-NI costs per byte
    predicted = predict.figures(store, measured)
    assert [f.key["of"] for f in predicted if f.key.get("part") == "predict"] == ["tls"]
    figs = {f.metric: f for f in predicted}
    assert figs["predicted handshakes per server CPU-s"].median == pytest.approx(1e9 / on.server_ns)


@net_only
def test_sigterm_during_a_measurement_tears_everything_down(tmp_path, state):
    env = {
        **os.environ,
        "CRYPTOBENCH_STATE_DIR": str(state),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cryptobench",
            "channel",
            "--parts",
            "latency",
            "--channels",
            "openvpn AES-256-GCM",
            "--accel",
            "on",
            "--db",
            str(tmp_path / "r.db"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    ledger_file = state / f"channel-{child.pid}.json"
    entries: list = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        try:
            entries = json.loads(ledger_file.read_text())["entries"]
        except (OSError, ValueError, KeyError):
            entries = []
        if [e["kind"] for e in entries].count("pid") >= 2:
            break
        time.sleep(0.05)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=60) == 130  # interrupted, stored as such
    assert not {e["name"] for e in entries if e["kind"] == "netns"} & _namespaces()
    assert all(_gone(e["pid"], e["started"]) for e in entries if e["kind"] == "pid")
    assert not any(Path(e["path"]).exists() for e in entries if e["kind"] == "path")
    assert not ledger_file.exists()
