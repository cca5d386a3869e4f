"""The storage scenario's report sections: MB/s per system and workload with the clean
baseline as a line, CPU beside it, the ratio to clean, the security table."""

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table, svg_row
from cryptobench.scenarios.storage.figures import (
    CLEAN,
    THROUGHPUT_HEADERS,
    _medians,
    security_matrix,
    throughput_rows,
)

STREAMING = ("dd write", "dd read", "fio seq write", "fio seq read")


def _systems(medians: dict, backing: str) -> list[str]:
    """The encrypted systems measured on this backing (the clean ones are the baseline line;
    tmpfs as a system would dwarf every bar on ext4)."""
    return [s for s in dict.fromkeys(k[0] for k in medians if k[1] == backing) if s not in CLEAN]


def _grouped(ax, systems: list[str], workloads: list[str], value) -> float:
    width = 0.8 / max(1, len(systems))
    for i, system in enumerate(systems):
        xs = [j + i * width for j in range(len(workloads))]
        ax.bar(xs, [value(system, w) or 0 for w in workloads], width, label=system)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(workloads))], workloads, fontsize=7)
    return width


def _bars(figures: list[Figure], backing: str) -> list[str]:
    """MB/s with the clean baseline dashed, and the CPU % it took, side by side."""
    from matplotlib.figure import Figure as MplFigure

    from cryptobench.plots import to_svg

    tput = {k: v for k, v in _medians(figures, "throughput").items() if k[2] in STREAMING}
    cpu = _medians(figures, "cpu")
    systems = _systems(tput, backing)
    workloads = [w for w in STREAMING if any(k[1] == backing and k[2] == w for k in tput)]
    if not systems or not workloads:
        return []
    out = []
    for metric, data, unit in (("throughput", tput, "MB/s"), ("CPU", cpu, "CPU % (100 = 1 core)")):
        fig = MplFigure(figsize=(5.6, 3.4))
        ax = fig.add_subplot()
        _grouped(ax, systems, workloads, lambda s, w, d=data: d.get((s, backing, w)))
        clean = CLEAN[backing]
        for j, w in enumerate(workloads):
            base = data.get((clean, backing, w))
            if base:
                ax.hlines(base, j - 0.1, j + 0.8, colors="black", linestyles="--", linewidth=1)
        ax.set_ylabel(unit)
        ax.set_title(f"{metric} on {backing}; dashed: clean {clean}", fontsize=9)
        ax.legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        out.append(to_svg(fig))
    return out


def _ratios(figures: list[Figure], backing: str) -> str:
    """Speed as a fraction of the clean file system's: the figure that carries across machines."""
    from matplotlib.figure import Figure as MplFigure

    from cryptobench.plots import to_svg

    tput = _medians(figures, "throughput")
    times = _medians(figures, "time")
    clean = CLEAN[backing]

    def ratio(system: str, workload: str) -> float | None:
        k, c = (system, backing, workload), (clean, backing, workload)
        if k in tput and tput.get(c):
            return tput[k] / tput[c]
        if k in times and times.get(c) and times[k]:
            return times[c] / times[k]
        return None

    workloads = [*STREAMING, "untar", "ls -lR", "rm -r"]
    systems = _systems({**tput, **times}, backing)
    workloads = [w for w in workloads if any(ratio(s, w) for s in systems)]
    if not systems or not workloads:
        return ""
    fig = MplFigure(figsize=(7.6, 3.4))
    ax = fig.add_subplot()
    _grouped(ax, systems, workloads, ratio)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_ylabel(f"× clean {clean} speed")
    ax.set_title(f"speed relative to clean {clean} (1 = no cost)", fontsize=9)
    ax.legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return to_svg(fig)


def sections(figures: list[Figure], spec: dict) -> list[Section]:
    backings = spec.get("backings", ["ext4"])
    svgs = [s for b in backings for s in _bars(figures, b)]
    ratio_svgs = [s for s in (_ratios(figures, b) for b in backings) if s]
    out = [
        Section(
            "storage-throughput",
            "Encrypted file systems beside the clean one",
            (svg_row(ratio_svgs) if ratio_svgs else "")
            + (svg_row(svgs) if svgs else "")
            + html_table(THROUGHPUT_HEADERS, throughput_rows(figures), numeric={3, 4, 5})
            + how(
                "Every system sits on the same fresh file system (a new ext4 on a loop image, or "
                "tmpfs), so the difference is the encryption. dd: 1 MiB blocks from /dev/zero with "
                "fdatasync, then the page cache dropped and the file read back. fio: sequential "
                "1 MiB write and read, 4 KiB random read (psync). Metadata: untar of a tree of "
                "small files from this machine, ls -lR (cache dropped), rm -r. CPU %: every "
                "process involved (the workload and the file system's daemon) per wall-clock "
                "second; 100% = one core. × clean speed: the system's figure ÷ the clean file "
                "system's on the same backing (for times, clean ÷ system). Kernel AES-XTS "
                f"driver: {spec.get('kernel_cipher', '?')}."
            ),
        )
    ]
    headers, rows, details = security_matrix(figures)
    if rows:
        out.append(
            Section(
                "storage-security",
                "Security checks",
                html_table(headers, rows)
                + html_table(["system", "on", "check", "detail"], details)
                + how(
                    "A wrong password must be refused; a marker written through the mount must "
                    "not appear in any backing file, nor the file's name among the backing "
                    "names; a byte flipped in the probe's ciphertext must make the read fail. "
                    "A system that does not authenticate its data (encfs standard, fscrypt, "
                    "LUKS/XTS) cannot pass the last check: XTS and CBC return changed data."
                ),
            )
        )
    return out
