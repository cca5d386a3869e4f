"""`cryptobench reproduce 002`: the storage scenario at the paper's settings, our bonnie++ and
dd figures in its table layout beside its own, with the ratio encrypted ÷ clean for both — the
ratio, not MB/s, is what carries across 17 years of hardware."""

from dataclasses import replace
from html import escape

from cryptobench.criteria import evaluate, specs_for
from cryptobench.report.html import Section, how
from cryptobench.report.reproduction import Reproduction
from cryptobench.scenarios import evidence
from cryptobench.scenarios.base import Target
from cryptobench.scenarios.storage.model import BONNIE_COLUMNS, PAPER_BONNIE, PAPER_DD, STAND_INS

DEVIATIONS = [
    "dd: we write zeros with conv=fdatasync (64 MiB quick, 1 GiB full); the paper wrote 4 GiB "
    "from /dev/random without a sync, and its clean dd spent 132.96 s of 151.82 s in the kernel "
    "reading /dev/random, so its dd partly measured the random source",
    "comparator: clean and encrypted systems sit on the same ext4 loop image, so our ratio "
    "compares like with like; the paper's 0.54 (geli + md ÷ a plain file) includes md's own "
    "halving, and its like-for-like ratio (geli + md ÷ UFS on md) is 0.85, the one we judge",
    "bonnie++ 2.00a with -f: no per-character columns (the paper's bonnie had them)",
    "one run, as in the paper",
]
TITLE = "Comparative testing of crypto containers and encrypted file systems"
# Paper columns to compare: (label, index in PAPER_BONNIE rows, our bonnie workload)
COLUMNS = (
    ("block write", 3, "bonnie write"),
    ("rewrite", 5, "bonnie rewrite"),
    ("block read", 9, "bonnie read"),
)


def measure(target: Target, quick: bool) -> int:
    """The storage scenario at the paper's settings (or quick), stored; the run's id."""
    from cryptobench.scenarios.storage.command import Options, start

    note = "reproduce 002" + (" --quick" if quick else "")
    options = (
        Options(backings="ext4", quick=True)
        if quick
        else Options(backings="ext4", size="1G", runs=1)
    )
    return start(options, replace(target, note=note)).run_id


def from_run(db_path, run_id: int, quick: bool) -> Reproduction:
    """The paper's bonnie and dd tables beside a stored run of `measure`, its claims judged."""
    from cryptobench.scenarios.storage.figures import _medians, summary
    from cryptobench.scenarios.storage.report import sections
    from cryptobench.store import Store
    from cryptobench.tables import text_table

    db = Store.open(db_path)
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
    enc = [s for s in systems if s not in ("ext4", "tmpfs")]

    def ratio_to_clean(workload: str) -> dict[str, float]:
        base = ours.get(("ext4", "ext4", workload))
        return {
            s: ours[(s, "ext4", workload)] / base
            for s in enc
            if base and (s, "ext4", workload) in ours
        }

    checks = [
        f
        for f in figures
        if f.metric == "passed" and f.key.get("check") == "wrong password refused"
    ]
    machine, libraries, noise = evidence.of_run(db_path, run_id)
    data = {
        "noise": noise.threshold,
        "dd_ratio": ratio_to_clean("dd write"),
        "block_write_ratio": ratio_to_clean("bonnie write"),
        "refused": {f.key["system"]: bool(f.values[0]) for f in checks},
    }
    claims = evaluate(specs_for("002"), data)
    not_done = [f"{paper} → {here}" for paper, here in STAND_INS.items()] + [
        "FreeBSD's geli, gbde and TrueCrypt cannot run here; the paper's hardware is 2009's",
        f"bonnie columns: {', '.join(BONNIE_COLUMNS)} (paper); ours from bonnie++ 2.00a",
    ]
    beside_text = (
        "The paper's bonnie table beside ours (ratio to the clean file system in brackets):\n"
        + table
        + "\n\nThe paper's dd (4 GiB from /dev/random), MB/s and × clean file:\n"
        + text_table(["", "MB/s", "× clean"], dd)
        + "\n\nOur dd write × clean ext4: "
        + (", ".join(f"{k} {v:.2f}" for k, v in sorted(data["dd_ratio"].items())) or "-")
    )
    text = summary(figures, spec) + "\n\n" + beside_text
    beside = Section(
        "storage-paper",
        "The paper's bonnie and dd tables beside ours",
        f"<pre>{escape(beside_text)}</pre>"
        + how(
            "K/s and MB/s as each measured them; brackets: the ratio to the clean file system "
            "(the paper's clean rows used a 4096 MB file, its encrypted rows 1024 MB). Ours sit "
            f"on one ext4 loop image. Noise threshold: {noise.threshold:.0%} ({noise.source})."
        ),
    )
    return Reproduction(
        "002",
        TITLE,
        [run_id],
        text,
        [beside, *sections(figures, spec)],
        claims,
        not_done,
        deviations=DEVIATIONS,
        machine=machine,
        libraries=libraries,
        quick=quick,
    )
