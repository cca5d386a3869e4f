"""The storage scenario's report sections: MB/s per system and workload with the clean
baseline as a line, CPU beside it, the ratio to clean, the security table."""

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table, svg_row
from cryptobench.scenarios.storage.figures import (
    THROUGHPUT_HEADERS,
    _medians,
    security_rows,
    throughput_rows,
)


def _bars(figures: list[Figure], backing: str) -> str:
    from matplotlib.figure import Figure as MplFigure

    from cryptobench.plots import to_svg

    tput = {
        k: v
        for k, v in _medians(figures, "throughput").items()
        if k[1] == backing and k[2] in ("dd write", "dd read", "fio seq write", "fio seq read")
    }
    if not tput:
        return ""
    workloads = sorted({k[2] for k in tput})
    systems = [s for s in dict.fromkeys(k[0] for k in tput) if s != backing]
    fig = MplFigure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(systems))
    for i, system in enumerate(systems):
        xs = [j + i * width for j in range(len(workloads))]
        ax.bar(xs, [tput.get((system, backing, w), 0) for w in workloads], width, label=system)
    for j, w in enumerate(workloads):
        clean = tput.get((backing, backing, w))
        if clean:
            ax.hlines(clean, j - 0.1, j + 0.8, colors="black", linestyles="--", linewidth=1)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(workloads))], workloads)
    ax.set_ylabel("MB/s")
    ax.set_title(f"on {backing}; dashed: clean {backing}")
    ax.legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_svg(fig)


def sections(figures: list[Figure], spec: dict) -> list[Section]:
    svgs = [s for s in (_bars(figures, b) for b in spec.get("backings", ["ext4"])) if s]
    out = [
        Section(
            "storage-throughput",
            "Encrypted file systems beside the clean one",
            (svg_row(svgs) if svgs else "")
            + html_table(THROUGHPUT_HEADERS, throughput_rows(figures), numeric={3, 4, 5})
            + how(
                "Every system sits on the same fresh file system (a new ext4 on a loop image, or "
                "tmpfs), so the difference is the encryption. dd: 1 MiB blocks from /dev/zero with "
                "fdatasync, then the page cache dropped and the file read back. fio: sequential "
                "1 MiB write and read, 4 KiB random read (psync). Metadata: untar of a tree of "
                "small files from this machine, ls -lR (cache dropped), rm -r. CPU %: every "
                "process involved (the workload and the file system's daemon) per wall-clock "
                "second; 100% = one core. × clean speed: the system's figure ÷ the clean file "
                "system's on the same backing. Kernel AES-XTS driver: "
                f"{spec.get('kernel_cipher', '?')}."
            ),
        )
    ]
    sec = security_rows(figures)
    if sec:
        out.append(
            Section(
                "storage-security",
                "Security checks",
                html_table(["system", "on", "check", "result", "detail"], sec),
            )
        )
    return out
