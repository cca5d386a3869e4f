"""`cryptobench reproduce 002`: the storage scenario at the paper's settings, our bonnie++ and
dd figures in its table layout beside its own, with the ratio encrypted ÷ clean for both — the
ratio, not MB/s, is what carries across 17 years of hardware."""

from dataclasses import replace

from cryptobench.report.reproduction import Claim, Reproduction
from cryptobench.scenarios.base import Target
from cryptobench.scenarios.storage.model import BONNIE_COLUMNS, PAPER_BONNIE, PAPER_DD, STAND_INS

TITLE = "Comparative testing of crypto containers and encrypted file systems"
# Paper columns to compare: (label, index in PAPER_BONNIE rows, our bonnie workload)
COLUMNS = (
    ("block write", 3, "bonnie write"),
    ("rewrite", 5, "bonnie rewrite"),
    ("block read", 9, "bonnie read"),
)


def reproduce(target: Target, quick: bool) -> Reproduction:
    from cryptobench.scenarios.storage.command import Options, start
    from cryptobench.scenarios.storage.figures import _medians, summary
    from cryptobench.scenarios.storage.report import sections
    from cryptobench.store import Store
    from cryptobench.tables import text_table

    note = "reproduce 002" + (" --quick" if quick else "")
    options = (
        Options(backings="ext4", quick=True)
        if quick
        else Options(backings="ext4", size="1G", runs=1)
    )
    run_id = start(options, replace(target, note=note)).run_id
    db = Store.open(target.db)
    figures = db.figures(run_id)
    spec = db.run(run_id).settings.get("scenario", {})
    ours = _medians(figures, "throughput")
    clean = "cleanfs + su_on"
    rows = []
    for machine, values in PAPER_BONNIE.items():
        rows.append(
            [f"paper: {machine}"]
            + [f"{values[i]:.0f} ({values[i] / PAPER_BONNIE[clean][i]:.2f})" for _, i, _ in COLUMNS]
        )
    systems = sorted({k[0] for k in ours if k[1] == "ext4"})
    for system in systems:
        cells = []
        for _, _, workload in COLUMNS:
            value, base = ours.get((system, "ext4", workload)), ours.get(("ext4", "ext4", workload))
            cells.append(
                "-"
                if value is None
                else f"{value:.0f}" + (f" ({value / base:.2f})" if base else "")
            )
        rows.append([f"ours: {system}", *cells])
    table = text_table(["K/s (× clean)", *[c[0] for c in COLUMNS]], rows)
    dd = [
        [name, f"{bps / 1e6:.1f}", f"{bps / PAPER_DD['clean file system (file)']:.2f}"]
        for name, bps in PAPER_DD.items()
    ]
    claims = []
    enc = [s for s in systems if s not in ("ext4", "tmpfs")]
    ratios = {
        s: ours[(s, "ext4", "dd write")] / ours[("ext4", "ext4", "dd write")]
        for s in enc
        if (s, "ext4", "dd write") in ours and ("ext4", "ext4", "dd write") in ours
    }
    if ratios:
        claims.append(
            Claim(
                "Encryption costs a large share of the clean file system's write speed",
                "geli + md wrote at 0.54 of a clean file (dd, 15.2 vs 28.3 MB/s); bonnie block "
                "writes of the FUSE systems at 0.65–0.72 of clean UFS",
                "dd write × clean: " + ", ".join(f"{s} {r:.2f}" for s, r in sorted(ratios.items())),
                all(r < 1 for r in ratios.values()),
            )
        )
    checks = [
        f
        for f in figures
        if f.metric == "passed" and f.key.get("check") == "wrong password refused"
    ]
    if checks:
        accepted = [f.key["system"] for f in checks if not f.values[0]]
        claims.append(
            Claim(
                "Every system refuses a wrong password",
                "geli, gbde, TrueCrypt and encfs refuse it; cryptofs mounts and shows garbage "
                "names",
                "accepted a wrong password: " + (", ".join(accepted) if accepted else "none"),
                not accepted,
            )
        )
    not_done = [f"{paper} → {here}" for paper, here in STAND_INS.items()] + [
        "FreeBSD's geli, gbde and TrueCrypt cannot run here; the paper's hardware is 2009's",
        f"bonnie columns: {', '.join(BONNIE_COLUMNS)} (paper); ours from bonnie++ 2.00a",
    ]
    text = (
        summary(figures, spec) + "\n\nThe paper's bonnie table beside ours (ratio to the "
        "clean file system in brackets):\n" + table + "\n\nThe paper's dd (4 GiB from "
        "/dev/random), MB/s and × clean file:\n" + text_table(["", "MB/s", "× clean"], dd)
    )
    return Reproduction("002", TITLE, [run_id], text, sections(figures, spec), claims, not_done)
