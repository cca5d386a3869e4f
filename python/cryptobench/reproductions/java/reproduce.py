"""`cryptobench reproduce 001`: the 2008 comparison of Java crypto providers, by security level,
repeated over today's JCA providers and the fastest native library: the paper's grid (its
algorithm kinds that still exist, 128 KiB-2 MiB), its questions (ranking per level, linearity in
input length, Java vs native) and its key setup."""

from html import escape

import numpy as np

from cryptobench import analysis, runner, store
from cryptobench.criteria import evaluate, specs_for
from cryptobench.report.html import Section, html_table
from cryptobench.report.reproduction import Reproduction
from cryptobench.reproductions.java import figures, grid, model
from cryptobench.scenarios import evidence
from cryptobench.scenarios.base import Target
from cryptobench.tables import text_table

DEVIATIONS = [
    "timing: a 5 s JIT warm-up per operation and the median of the samples; the paper averaged "
    "a fixed number of iterations with no warm-up (its per-iteration figures are not in the "
    "excerpt, so its method cannot be run beside ours on its data)",
    "one OS (Linux) here; the paper measured Windows Vista and Ubuntu",
    "defunct providers replaced by stand-ins (see the providers table); the language question "
    "is asked of ACCP and aws-lc-rs, which share AWS-LC, not of JSafe and BSafe",
    "Java ÷ native in the tables is against OpenSSL, which is not the library behind any Java "
    "provider: it ranks providers, it does not measure the language",
]
TITLE = "Benchmarking of Java crypto algorithms: seven JCA providers and one C library"
ABSENT = "absent_providers"  # in the run's settings: provider -> why it was not measured


def providers_table(present: list[str], absent: dict[str, str]) -> list[list[str]]:
    rows = []
    for paper, ours, why in model.PAPER_PROVIDERS:
        state = (
            ""
            if not ours
            else ("measured" if ours in present else f"absent: {absent.get(ours, '')}")
        )
        rows.append([paper, ours or "-", why, state])
    for ours, why in model.NEW_PROVIDERS.items():
        rows.append(
            ["-", ours, why, "measured" if ours in present else f"absent: {absent.get(ours, '')}"]
        )
    return rows


def key_setup_table(setups: list) -> tuple[str, list[list[str]]]:
    """The key-setup figures the run stored (grid.key_setup): ns per setup, or the reason."""
    rows = []
    for f in sorted(setups, key=lambda f: (f.key["provider"], f.key["algorithm"])):
        provider, alg = f.key["provider"], f.key["algorithm"]
        if f.status == "ok" and f.median:
            rows.append([provider, alg, f"{f.median:.0f}", f"{1e9 / f.median:.0f}"])
        else:
            rows.append([provider, alg, f.extra.get("status", f.status), f.reason[:80]])
    if not rows:
        return "none stored with this run", rows
    return text_table(["provider", "algorithm", "key setup ns", "per second"], rows), rows


def measure(target: Target, quick: bool) -> int | Reproduction:
    """The grid as one core run and the JVM runner's key setups, stored with it; the run's id,
    or the Reproduction that says why nothing can be measured here."""
    caps = runner.discover()
    g = grid.choose(caps, quick)
    java = [p for p in g.providers if p in model.JAVA_PROVIDERS]
    if not java:
        why = "; ".join(f"{p}: {w}" for p, w in g.absent.items())
        return Reproduction("001", TITLE, [], "", [], not_reproduced=[
            f"no Java provider here (the JVM runner is not built: {why})"])  # fmt: skip
    run_id = grid.run_grid(target, g, quick)
    setups = grid.key_setup(g, caps)
    db = store.Store.open(target.db)
    db.add_figures(run_id, setups)
    # what the run could not measure, and why, for the reproduction made from it later
    db.set_settings(run_id, {**db.run(run_id).settings, ABSENT: g.absent})
    return run_id


def from_run(db_path, run_id: int, quick: bool) -> Reproduction:
    """The paper's questions answered from a stored run of `measure`, its claims judged."""
    db = store.Store.open(db_path)
    results = analysis.load(db, run_id)
    ok = [c for c in results.ok_cases() if c.variant == "default"]
    measured = {lib["provider"] for lib in db.libraries(run_id)}
    providers = [p for p in grid.wanted() if p in measured]
    settings = db.run(run_id).settings
    absent = (
        settings[ABSENT]
        if ABSENT in settings
        else {p: "not in this run" for p in grid.wanted() if p not in measured}
    )
    sizes = sorted({c.size for c in ok if c.symmetric})

    fits = figures.linear_fits(ok)
    rs = figures.ratios(ok)
    setups = [f for f in db.figures(run_id) if f.key.get("part") == grid.KEY_SETUP]
    ks_text, ks_rows = key_setup_table(setups)
    prov_rows = providers_table(providers, absent)
    prov_headers = ["paper's provider (2008)", "here", "why", "state"]
    # the paper's 1 MB focus, or the largest size below it that a quick grid measures
    focus = max((s for s in sizes if s <= model.FOCUS_SIZE), default=model.FOCUS_SIZE)
    text = "\n\n".join(
        [
            "The paper's providers and what stands in for them:\n"
            + text_table(prov_headers, prov_rows),
            f"Provider ranking per security level at {focus >> 10} KiB (the paper's "
            f"focus; OAEP at 32 bytes, key generation per key; {model.LEVEL_SOURCE}; level 0: "
            "below level 1):\n" + figures.rankings(ok),
            "Linearity in input length (least squares t = a + b·n over 128 KiB-2 MiB):\n"
            + figures.fits_table(fits),
            f"Java ÷ native ({model.NATIVE}) at {focus >> 10} KiB, throughput or "
            "operations per second (> 1: the Java provider is faster):\n"
            + figures.ratios_table(rs),
            "Key setup (a new key object and Cipher.init, no data; the paper's section 3.1.1):\n"
            + ks_text,
        ]
    )
    machine, libraries, noise = evidence.of_run(db_path, run_id)
    claims = evaluate(specs_for("001"), criteria_data(ok, noise.threshold))
    not_done = list(model.NOT_IN_CATALOGUE)
    not_done += [f"{p} absent: {w}" for p, w in absent.items()]
    not_done.append(model.LEVEL_SOURCE)
    if quick:
        not_done.append(
            "--quick: AES-128-CBC, ChaCha20, MD5, SHA-256, HMAC-SHA-256 and RSA-2048 at 128 KiB, "
            "512 KiB and 2 MiB, encryption only, no 3DES and no key generation, 5 samples; the "
            "full grid is `cryptobench reproduce 001`"
        )
    sections = [
        Section("p001-providers", "001: providers and stand-ins",
                html_table(prov_headers, prov_rows)),
        Section("p001-results", "001: rankings, linearity, Java vs native",
                "<pre>" + escape(text.split("\n\n", 1)[1]) + "</pre>"),
        Section("p001-keysetup", "001: key setup",
                html_table(["provider", "algorithm", "key setup ns", "per second"], ks_rows)),
    ]  # fmt: skip
    return Reproduction(
        "001",
        TITLE,
        [run_id],
        text,
        sections,
        claims,
        not_done,
        deviations=DEVIATIONS,
        machine=machine,
        libraries=libraries,
        quick=quick,
    )


def criteria_data(ok: list, noise: float) -> dict:
    """The plain figures paper001's criteria judge (criteria/paper001.py)."""
    sweeps: dict[tuple, dict[int, float]] = {}
    for c in ok:
        if c.symmetric and c.median_ns:
            sweeps.setdefault((c.label, c.algorithm, c.operation), {})[c.size] = c.median_ns
    rows = [
        {"label": " ".join(k), "n_small": min(t), "t_small": t[min(t)], "n_large": max(t),
         "t_large": t[max(t)]}
        for k, t in sorted(sweeps.items())
        if len(t) >= 2
    ]  # fmt: skip
    focus = {(c.provider, c.algorithm, c.operation): c for c in figures.at_focus(ok)}
    pairs = []
    for java, (native, library) in model.SAME_LIBRARY.items():
        for (p, alg, op), c in sorted(focus.items()):
            other = focus.get((native, alg, op))
            if p == java and other and figures.figure(c) and figures.figure(other):
                ratio = figures.figure(c) / figures.figure(other)
                pairs.append({"java": f"{java} {alg} {op}", "native": native, "library": library,
                              "ratio": ratio})  # fmt: skip
    # this run's own noise: the median over cases of interquartile range ÷ median of the samples
    spreads = [
        float((np.percentile(c.ns, 75) - np.percentile(c.ns, 25)) / np.median(c.ns))
        for c in ok
        if len(c.ns) >= 4 and np.median(c.ns) > 0
    ]
    spread = float(np.median(spreads)) if spreads else None
    return {"noise": noise, "run_spread": spread, "sweeps": rows, "pairs": pairs}
