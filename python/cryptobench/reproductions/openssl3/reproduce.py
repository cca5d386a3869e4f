"""`cryptobench reproduce openssl3`: the openssl/openssl threads' regressions of OpenSSL 3 against
1.1.1 (criteria/openssl3.py), repeated with one core run over every OpenSSL version here: the
system library (3.0) and the versioned providers `make versions` built (openssl@1.1.1,
openssl@3.5, ...): SHA-256 per call, `keyload` of a PEM RSA private key and a PEM X.509
certificate, and the in-memory TLS 1.3 handshake (the server's CPU per handshake). A version
not built here (aws-lc) leaves its claim undecided with the reason."""

from html import escape

import numpy as np

from cryptobench import analysis, lifecycle, plan, runner, store, versions
from cryptobench.criteria import evaluate, specs_for
from cryptobench.criteria.openssl3 import HANDSHAKES_S, SHA256_111T, SHA256_310
from cryptobench.errors import Interrupted
from cryptobench.progress import ProgressBar
from cryptobench.report.html import Section, html_table
from cryptobench.report.reproduction import Reproduction
from cryptobench.scenarios import evidence
from cryptobench.scenarios.base import Target
from cryptobench.tables import text_table

TITLE = "OpenSSL 3's performance regressions against 1.1.1 (openssl/openssl issue threads)"
SYSTEM = "openssl"  # the distribution's library: 3.0 on Debian 12
OLD = "openssl@1.1.1"
NEWER = ("openssl@3.5", "openssl@3.6", "openssl@4.0")  # the first present stands for "3.x"
AWS_LC = "aws-lc"  # the handshake claim 3.5; make versions VERSIONS=aws-lc builds it
WANTED = (SYSTEM, OLD, *NEWER, AWS_LC)
ABSENT = "absent_providers"  # in the run's settings: provider -> why it was not measured
SIZES = (16, 16384)
DEVIATIONS = [
    "our loop prepares the digest once (EVP_MD fetched once per process, as OpenSSL's "
    "performance notes advise) and times EVP_DigestInit_ex2/Update/Final per message; "
    "`openssl speed` in 3.1.0 called EVP_Digest with an implicit fetch per call, so a cost that "
    "comes only from the implicit fetch does not show here",
    "openssl@1.1.1 and the 3.x/4.x versions are static builds of the crates' sources "
    "(native/versions/build.py, the flags in the machine record's code path); the system 3.0 "
    "is Debian's shared library",
    "the medians of interleaved samples on a shared 2-core machine; the threads quote one "
    "`openssl speed` run each",
    "keyload decodes an RSA-2048 key (unencrypted PKCS#8 PEM, PEM_read_bio_PrivateKey from "
    "memory) and a self-signed RSA-2048 certificate (PEM_read_bio_X509); #15199's figures are "
    "for a 512-bit RSA key in the traditional PKCS#1 PEM ('BEGIN RSA PRIVATE KEY') read with "
    "PEM_read_PrivateKey from a file opened per load, #18814's from richsalz's timing tool",
    "the handshake is ours (vectors/tls13.json: X25519, TLS_AES_128_GCM_SHA256, a self-signed "
    "RSA-2048 or ECDSA P-256 certificate the client verifies, no resumption), client and server "
    "in one thread over memory BIOs; the claims read the server's CPU per handshake of the "
    "RSA-2048 case (the rustls bench's certificate); the published figures' exact setup "
    "(certificate, machine) is not known beyond issue 28's quote",
]
HANDSHAKE = "tls13-x25519-rsa-2048"  # the criteria's case: RSA-2048, as the rustls bench
HANDSHAKES = (HANDSHAKE, "tls13-x25519-ecdsa-p256")
NO_HANDSHAKE = ("no handshake was measured: the OpenSSL builds here have no libssl (make versions "
                "adds it)")  # fmt: skip
KEY = "rsa-2048-pem"  # keyload of a PEM RSA private key (#15199, #18814)
CERT = "x509-rsa-2048-pem"  # keyload of a PEM certificate (#18814)
# openssl/openssl#15199 (hannob, 2023-07-08): seconds per 100,000 PEM RSA key loads.
PEM_LOADS_15199 = {"1.1": 0.7, "3.0": 40.0, "3.1": 7.0}


def suite_text(providers: list[str], quick: bool) -> str:
    return (
        'description = "reproduce openssl3: SHA-256 per call and per byte across OpenSSL '
        'versions"\n'
        f"providers = {providers!r}\nsizes = {list(SIZES)!r}\nsamples = {7 if quick else 21}\n"
        # the default suite's adaptive sampling: on a loaded machine a case goes on (up to 41
        # samples) until its median's interval is within 5%
        f"min_samples = {5 if quick else 11}\nmax_samples = {15 if quick else 41}\n"
        "ci_target = 0.05\nbatch = 3\ntarget_sample_ms = 1\nwarmup_ms = 10\n"
        "heap_iterations = 2\ntimeout_s = 120\n"
        '\n[[matrix]]\nalgorithms = ["sha256"]\noperations = ["hash"]\n'
        f'\n[[matrix]]\nalgorithms = ["{KEY}", "{CERT}"]\noperations = ["keyload"]\n'
        f'\n[[matrix]]\nalgorithms = {list(HANDSHAKES)!r}\noperations = ["handshake"]\n'
    ).replace("'", '"')


def run_core(target: Target, providers: list[str], quick: bool) -> int:
    suite = plan.parse_suite(suite_text(providers, quick), "openssl3", "reproduce openssl3")
    exe = runner.find_runner()
    caps = runner.discover()
    the_plan = plan.expand(suite, caps)
    db = store.Store.open(target.db)
    argv = list(target.argv) or ["cryptobench", "reproduce", "openssl3"]
    note = "reproduce openssl3" + (" --quick" if quick else "")
    run_id = lifecycle.create_core_run(db, the_plan, exe, caps, argv, note)
    runner_args, _ = lifecycle.runner_pinning(None, False)
    bar = ProgressBar()
    try:
        status = lifecycle.measure(db, run_id, exe, the_plan.timeout_s, runner_args, bar.update,
                                   caps)  # fmt: skip
    finally:
        bar.close()
    if status == "interrupted":
        raise Interrupted(
            f"run {run_id} is stored in part; `cryptobench run --resume {run_id}` finishes it"
        )
    return run_id


def throughputs(ok: list) -> dict[str, dict[int, float]]:
    """provider -> {size: MB/s} of SHA-256."""
    out: dict[str, dict[int, float]] = {}
    for c in ok:
        if c.algorithm == "sha256" and c.variant == "default" and c.bytes_per_s:
            out.setdefault(c.provider, {})[c.size] = c.bytes_per_s / 1e6
    return out


def load_seconds(ok: list) -> dict[str, dict[str, float]]:
    """provider -> {keyload algorithm: median seconds per load}."""
    out: dict[str, dict[str, float]] = {}
    for c in ok:
        if c.operation == "keyload" and c.variant == "default" and c.median_ns:
            out.setdefault(c.provider, {})[c.algorithm] = c.median_ns / 1e9
    return out


def load_figures(loads: dict[str, dict[str, float]], newest: str | None) -> dict:
    """The criteria's pem_rsa_load_s and load_ratio from the measured loads (None: missing)."""
    by = {"1.1.1": loads.get(OLD, {}), "3.0": loads.get(SYSTEM, {})}
    if newest:
        by["3.x"] = loads.get(newest, {})
    pem = {v: t[KEY] for v, t in by.items() if KEY in t}
    old, sys = by["1.1.1"], by["3.0"]
    ratio = {
        name: sys[alg] / old[alg]
        for name, alg in (("cert", CERT), ("key", KEY))
        if alg in sys and old.get(alg)
    }
    return {"pem_rsa_load_s": pem or None, "load_ratio": ratio if len(ratio) == 2 else None}


def load_table(loads: dict[str, dict[str, float]], libraries: dict[str, str]) -> list[list[str]]:
    rows = [[f"OpenSSL {v} (#15199, 512-bit key)", f"{s:.1f}", "-", "-", "-"]
            for v, s in PEM_LOADS_15199.items()]  # fmt: skip
    rows.append(["3.x ÷ 1.1.1 (#18814)", "-", "-", "×6 (more than)", "×3.5"])
    base = loads.get(OLD, {})
    for provider, t in loads.items():
        cells = [f"{t[a] * 1e5:.2f}" if a in t else "-" for a in (KEY, CERT)]
        ratios = [f"×{t[a] / base[a]:.2f}" if a in t and base.get(a) else "-" for a in (KEY, CERT)]
        rows.append([f"{provider} ({libraries.get(provider, '?')})", *cells, *ratios])
    return rows


def handshakes(ok: list) -> dict[str, dict[str, tuple[float, float | None]]]:
    """provider -> {handshake algorithm: (median ns per handshake, both sides in one thread;
    the server's CPU ns per handshake)}."""
    out: dict[str, dict[str, tuple[float, float | None]]] = {}
    for c in ok:
        if c.operation == "handshake" and c.variant == "default" and c.median_ns:
            out.setdefault(c.provider, {})[c.algorithm] = (c.median_ns, c.server_cpu_ns)
    return out


def server_rates(hs: dict[str, dict[str, tuple[float, float | None]]]) -> dict | None:
    """The criteria's handshakes_s: the server's handshakes per CPU-second, RSA-2048 case."""
    names = {"1.1.1": OLD, "3.0": SYSTEM, "aws-lc": AWS_LC}
    rates = {}
    for key, provider in names.items():
        server_ns = hs.get(provider, {}).get(HANDSHAKE, (0.0, None))[1]
        if server_ns:
            rates[key] = 1e9 / server_ns
    return rates or None


def handshake_table(
    hs: dict[str, dict[str, tuple[float, float | None]]], libraries: dict[str, str]
) -> list[list[str]]:
    rows = [[f"{v} (issue 28, rustls discussions)", "?", "-", "-", f"{r:,.1f}", "-"]
            for v, r in HANDSHAKES_S.items()]  # fmt: skip
    base = hs.get(OLD, {})
    for provider, by in hs.items():
        for alg, (ns, server) in by.items():
            old_server = base.get(alg, (0.0, None))[1]
            rows.append([
                f"{provider} ({libraries.get(provider, '?')})", alg.removeprefix("tls13-x25519-"),
                f"{1e9 / ns:,.1f}", f"{server / 1e3:,.1f}" if server else "not measured",
                f"{1e9 / server:,.1f}" if server else "-",
                f"{old_server / server:.2f}" if server and old_server else "-",
            ])  # fmt: skip
    return rows


def run_spread(ok: list) -> float | None:
    spreads = [
        float((np.percentile(c.ns, 75) - np.percentile(c.ns, 25)) / np.median(c.ns))
        for c in ok
        if len(c.ns) >= 4 and np.median(c.ns) > 0
    ]
    return float(np.median(spreads)) if spreads else None


def table(mb: dict[str, dict[int, float]], libraries: dict[str, str]) -> list[list[str]]:
    rows = [
        ["1.1.1t (#20998)", f"{SHA256_111T[16] / 1e3:.1f}", f"{SHA256_111T[16384] / 1e3:.1f}",
         "1.00", "1.00"],
        ["3.1.0 (#20998)", f"{SHA256_310[16] / 1e3:.1f}", f"{SHA256_310[16384] / 1e3:.1f}",
         f"{SHA256_310[16] / SHA256_111T[16]:.2f}",
         f"{SHA256_310[16384] / SHA256_111T[16384]:.2f}"],
    ]  # fmt: skip
    base = mb.get(OLD, {})
    for provider, v in mb.items():
        ratio = [f"{v[s] / base[s]:.2f}" if s in v and base.get(s) else "-" for s in SIZES]
        name = f"{provider} ({libraries.get(provider, '?')})"
        rows.append([name, *(f"{v[s]:.1f}" if s in v else "-" for s in SIZES), *ratio])
    return rows


def measure(target: Target, quick: bool) -> int | Reproduction:
    """One core run over every OpenSSL version here; the run's id, or the Reproduction that
    says why it cannot be made here."""
    caps = runner.discover()
    present = [p for p in WANTED if p in caps.providers]
    absent = versions.absent(set(caps.providers))
    missing = {p: absent.get(p, "not in this runner") for p in WANTED if p not in present}
    if SYSTEM not in present or OLD not in present:
        return Reproduction("openssl3", TITLE, [], "", [], not_reproduced=[
            "needs the system openssl and openssl@1.1.1 (make versions)",
            *(f"{p}: {why}" for p, why in missing.items())])  # fmt: skip
    run_id = run_core(target, present, quick)
    db = store.Store.open(target.db)
    # what the run could not measure, and why, for the reproduction made from it later
    db.set_settings(run_id, {**db.run(run_id).settings, ABSENT: missing})
    return run_id


def from_run(db_path, run_id: int, quick: bool) -> Reproduction:
    """The threads' figures beside a stored run of `measure`, their claims judged."""
    db = store.Store.open(db_path)
    ok = analysis.load(db, run_id).ok_cases()
    stored = db.libraries(run_id)
    present = [p for p in WANTED if p in {lib["provider"] for lib in stored}]
    settings = db.run(run_id).settings
    absent = settings.get(ABSENT, {})
    missing = [f"{p}: {absent.get(p, 'not in this run')}" for p in WANTED if p not in present]
    mb = throughputs(ok)
    machine, libraries, noise = evidence.of_run(db_path, run_id)
    newest = next((p for p in NEWER if p in mb), None)
    loads = load_seconds(ok)
    hs = handshakes(ok)
    not_measured = [] if hs else [NO_HANDSHAKE]
    data = {
        "noise": noise.threshold,
        "run_spread": run_spread(ok),
        "sha256_mb_s": {"1.1.1": mb.get(OLD), "3.0": mb.get(SYSTEM)},
        **load_figures(loads, newest),
        "handshakes_s": server_rates(hs),
    }
    claims = evaluate(specs_for("openssl3"), data)
    headers = ["version", "16 B MB/s", "16 KiB MB/s", "÷ 1.1.1 at 16 B", "÷ 1.1.1 at 16 KiB"]
    rows = table(mb, libraries)
    load_headers = ["version", "s per 100,000 PEM RSA key loads", "s per 100,000 PEM cert loads",
                    "key ÷ 1.1.1", "cert ÷ 1.1.1"]  # fmt: skip
    load_rows = load_table(loads, libraries)
    hs_headers = ["version", "certificate", "handshakes/s (both sides)", "server CPU µs each",
                  "server handshakes per CPU-s", "1.1.1's server CPU ÷ this"]  # fmt: skip
    hs_rows = handshake_table(hs, libraries)
    builds = [
        [lib["provider"], lib["version"] or "?", (lib["code_path"] or {}).get("build")
         or ("the distribution's shared library" if lib["provider"] == SYSTEM else "?")]
        for lib in stored
        if lib["variant"] in (None, "", "default") and lib["provider"] in present
    ]  # fmt: skip
    build_headers = ["provider", "version", "build (as the run recorded it)"]
    text = "\n\n".join([
        "SHA-256, one message per call (the threads' figures first; newest 3.x here: "
        f"{newest or 'none built'}):\n" + text_table(headers, rows),
        "keyload, RSA-2048 PEM private key and certificate (the threads' figures first):\n"
        + text_table(load_headers, load_rows),
        "In-memory TLS 1.3 handshake, full, no resumption (the quoted figures first):\n"
        + text_table(hs_headers, hs_rows),
        "The versions measured and their builds (native/versions/build.py):\n"
        + (text_table(build_headers, builds) if builds else "none"),
    ])  # fmt: skip
    sections = [
        Section("openssl3-sha256", "openssl3: SHA-256 per call across versions",
                html_table(headers, rows)),
        Section("openssl3-keyload", "openssl3: PEM key and certificate loads across versions",
                html_table(load_headers, load_rows)),
        Section("openssl3-handshake", "openssl3: TLS 1.3 handshakes across versions",
                html_table(hs_headers, hs_rows)),
        Section("openssl3-builds", "openssl3: the versions and their builds",
                "<p>" + escape("as the run recorded them: the system library, and versions "
                               "built from the crates' sources (make versions)")
                + "</p>" + html_table(build_headers, builds)),
    ]  # fmt: skip
    return Reproduction(
        "openssl3",
        TITLE,
        [run_id],
        text,
        sections,
        claims,
        [*missing, *not_measured],
        deviations=DEVIATIONS,
        machine=machine,
        libraries=libraries,
        quick=quick,
    )
