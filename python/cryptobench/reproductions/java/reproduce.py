"""`cryptobench reproduce 001`: the 2008 comparison of Java crypto providers, by security level,
repeated over today's JCA providers and the fastest native library: the paper's grid (its
algorithm kinds that still exist, 128 KiB-2 MiB), its questions (ranking per level, linearity in
input length, Java vs native) and its key setup."""

import statistics
from html import escape

from cryptobench import analysis, runner, store
from cryptobench.report.html import Section, html_table
from cryptobench.report.reproduction import Claim, Reproduction
from cryptobench.reproductions.java import figures, grid, model
from cryptobench.scenarios.base import Target
from cryptobench.tables import text_table

LINEAR_R2 = 0.99
LINEAR_SHARE = 0.9
TITLE = "Benchmarking of Java crypto algorithms: seven JCA providers and one C library"


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


def key_setup_table(results: dict) -> tuple[str, list[list[str]]]:
    rows = []
    for (provider, alg), r in sorted(results.items()):
        s = r.get("summary") or {}
        if r.get("status") == "ok" and s.get("median_ns"):
            rows.append([provider, alg, f"{s['median_ns']:.0f}", f"{1e9 / s['median_ns']:.0f}"])
        else:
            rows.append([provider, alg, r.get("status", "?"), r.get("reason", "")[:80]])
    return text_table(["provider", "algorithm", "key setup ns", "per second"], rows), rows


def reproduce(target: Target, quick: bool) -> Reproduction:
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
    results = analysis.load(db, run_id)
    ok = [c for c in results.ok_cases() if c.variant == "default"]

    fits = figures.linear_fits(ok)
    rs = figures.ratios(ok)
    ks_text, ks_rows = key_setup_table(setups)
    prov_rows = providers_table(g.providers, g.absent)
    prov_headers = ["paper's provider (2008)", "here", "why", "state"]
    text = "\n\n".join(
        [
            "The paper's providers and what stands in for them:\n"
            + text_table(prov_headers, prov_rows),
            f"Provider ranking per security level at {model.FOCUS_SIZE >> 10} KiB (the paper's "
            f"focus; OAEP at 32 bytes, key generation per key; {model.LEVEL_SOURCE}; level 0: "
            "below level 1):\n" + figures.rankings(ok),
            "Linearity in input length (least squares t = a + b·n over 128 KiB-2 MiB):\n"
            + figures.fits_table(fits),
            f"Java ÷ native ({model.NATIVE}) at {model.FOCUS_SIZE >> 10} KiB, throughput or "
            "operations per second (> 1: the Java provider is faster):\n"
            + figures.ratios_table(rs),
            "Key setup (a new key object and Cipher.init, no data; the paper's section 3.1.1):\n"
            + ks_text,
        ]
    )
    claims = []
    if fits:
        worst = min(fits, key=lambda f: f.r2)
        linear = [f for f in fits if f.r2 >= LINEAR_R2]
        claims.append(
            Claim(
                "Time is linear in the input length (128 KB-2 MB)",
                "section 3.1: encrypting 128 KB takes half as long as 256 KB (no statistical test)",
                f"R² of t = a + b·n ≥ {LINEAR_R2} in {len(linear)} of {len(fits)} sweeps; median "
                f"{statistics.median(f.r2 for f in fits):.5f}, lowest {worst.r2:.5f} "
                f"({worst.label} {worst.operation} {worst.algorithm}); holds when at least "
                f"{LINEAR_SHARE:.0%} of the sweeps reach it (one noisy sweep on a shared machine "
                "does not make a cipher non-linear)",
                len(linear) >= LINEAR_SHARE * len(fits),
            )
        )
    if rs:
        slower = [r for r in rs if r[3] < 1]
        by_provider = {
            p: statistics.median(r for q, _, _, r in rs if q == p) for p in {x[0] for x in rs}
        }
        claims.append(
            Claim(
                "Java providers are slower than native C/C++",
                "section 3.2 compares JSafe with BSafe (same vendor, Java vs C++); its figures "
                "are plots not in the excerpt",
                f"{len(slower)} of {len(rs)} Java figures are below {model.NATIVE}'s; median "
                "ratio per provider: "
                + ", ".join(f"{p} {v:.2f}" for p, v in sorted(by_provider.items())),
                len(slower) > len(rs) / 2,
            )
        )
    not_done = list(model.NOT_IN_CATALOGUE)
    not_done += [f"{p} absent: {w}" for p, w in g.absent.items()]
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
    return Reproduction("001", TITLE, [run_id], text, sections, claims, not_done)
