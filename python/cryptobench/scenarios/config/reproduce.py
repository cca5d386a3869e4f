"""`cryptobench reproduce 000`: the thesis's configuration benchmark at its settings (or the
quick variant), with its claims checked against what this machine measures."""

from dataclasses import replace
from typing import Any

from cryptobench.report.reproduction import Claim, Reproduction
from cryptobench.scenarios.base import Target, settings_of
from cryptobench.scenarios.config.model import (
    THESIS_READ_1000,
    THESIS_TABLE,
    ScenarioResults,
    Series,
)

TITLE = "Transparent encryption of configuration values and files"


def _read_1000(results: ScenarioResults, label: str) -> float | None:
    scheme, _, provider = label.partition("/")
    s = Series(scheme, provider, "read")
    value = results.medians.get(s, {}).get(1000)
    return value if value is not None else results.extrapolated.get(s, {}).get(1000)


def claims(results: ScenarioResults) -> list[Claim]:
    out = []
    libraries = ("gcrypt", "openssl", "botan")
    reads = {lib: _read_1000(results, f"compat/{lib}") for lib in libraries}
    if all(v is not None for v in reads.values()):
        ours = ", ".join(f"{lib} {reads[lib]:.2f} s" for lib in libraries)
        out.append(
            Claim(
                "Reading 1,000 values encrypted with the thesis's scheme takes seconds",
                "libgcrypt 10.7 s, OpenSSL 16.6 s, Botan 38 s (the thesis, as quoted in "
                "CONFCRYPT.md)",
                ours + (" (extrapolated from the fit)" if results.extrapolated else ""),
                all(v > 1.0 for v in reads.values()),
            )
        )
    h = {
        o.series.provider: o.mean_h_s
        for o in results.overheads
        if o.series.scheme == "compat" and o.series.direction == "read"
    }
    if all(lib in h for lib in libraries):
        order = sorted(libraries, key=h.get)
        out.append(
            Claim(
                "The libraries rank libgcrypt < OpenSSL < Botan in overhead",
                "h on reading: "
                + ", ".join(
                    f"{lib} {THESIS_TABLE[(f'compat/{lib}', 'read')][0]} s" for lib in libraries
                )
                + " (Table 6.1)",
                "h on reading: "
                + ", ".join(f"{lib} {h[lib]:.3f} s" for lib in libraries)
                + f"; order here: {' < '.join(order)}",
                order == list(libraries),
            )
        )
    whole = {o.series.direction: o.mean_h_s for o in results.overheads if o.series.scheme ==
             "wholefile"}  # fmt: skip
    if "read" in whole:
        out.append(
            Claim(
                "Whole-file encryption costs milliseconds",
                "h = 0.005 s reading, 0.007 s writing (Table 6.2)",
                f"h = {whole['read'] * 1e3:.1f} ms reading"
                + (f", {whole['write'] * 1e3:.1f} ms writing" if "write" in whole else ""),
                whole["read"] < 0.05,
            )
        )
    confcrypt = {lib: _read_1000(results, f"confcrypt/{lib}") for lib in libraries}
    pairs = [(lib, reads[lib], confcrypt[lib]) for lib in libraries
             if reads.get(lib) and confcrypt.get(lib)]  # fmt: skip
    if pairs:
        out.append(
            Claim(
                "The cost is the per-value key derivation, not encryption as such",
                f"no per-file alternative measured; plain reading about "
                f"{THESIS_READ_1000['plain'] * 1e3:.0f} ms",
                "confcrypt (one key unwrap per file, AEAD per value) reads 1,000 values in "
                + ", ".join(f"{lib} {c * 1e3:.1f} ms ({r / c:.0f}× faster)" for lib, r, c in pairs),
                all(c * 10 < r for _, r, c in pairs),
            )
        )
    return out


def reproduce(target: Target, quick: bool) -> Reproduction:
    from cryptobench.scenarios.config import SCENARIO
    from cryptobench.scenarios.config.command import Options, start
    from cryptobench.scenarios.config.figures import from_figures, summary_of
    from cryptobench.scenarios.config.report import section
    from cryptobench.store import Store

    note = "reproduce 000" + (" --quick" if quick else "")
    started = start(Options(quick=quick), replace(target, note=note))
    run_id = started.run_id
    not_done: list[str] = []
    if started.status != 0:
        not_done.append(f"the scenario stopped with exit status {started.status}")
    run = SCENARIO.stored(Store.open(target.db), run_id)
    stored: Any = from_figures(run.figures, settings_of(run))
    if not stored.samples:
        return Reproduction("000", TITLE, [], "no figures", [], not_reproduced=not_done)
    results = stored.analyse()
    machine = run.machine
    not_done.append(
        "the thesis's machine and library versions: ours are newer, so compare factors and "
        "rankings, not seconds"
    )
    if stored.extrapolate:
        not_done.append(
            "--quick measures the thesis's scheme up to n = 100 only; its n = 1000 figures are "
            "extrapolated from the fit (run without --quick to measure them)"
        )
    return Reproduction(
        "000",
        TITLE,
        [run_id],
        summary_of(results, stored.info),
        [section(stored, machine)],
        claims(results),
        not_done,
    )
