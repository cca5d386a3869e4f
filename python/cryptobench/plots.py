"""The report's figures, each returned as an inline SVG string (matplotlib, no display needed)."""

import hashlib
import io
import math
import re
from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

from cryptobench.analysis import CaseResult
from cryptobench.units import format_size

matplotlib.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: smaller files, selectable labels
        "font.size": 9,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)


def to_svg(fig: Figure) -> str:
    """The figure as inline SVG. The same figure always gives the same text (the report of a run
    is the same bytes however often it is written), and the ids of its clip paths and markers
    carry a digest of the figure, so two figures on one page do not share an id."""
    with matplotlib.rc_context({"svg.hashsalt": "cryptobench"}):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    ids = sorted(set(re.findall(r'id="([A-Za-z0-9_]+)"', text)), key=len, reverse=True)
    if ids:
        pattern = re.compile("|".join(re.escape(i) for i in ids))
        text = pattern.sub(lambda m: f"{m.group(0)}-{digest}", text)
    return text


def _size_axis(ax, sizes: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_size(int(v))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    for label in ax.get_xticklabels():
        label.set_rotation(45)
        label.set_horizontalalignment("right")


_LINESTYLES = ("--", ":", "-.")


def _styles(labels: Sequence[str]) -> dict[str, tuple[str, str]]:
    """A colour per provider and a line style per variant, so a provider's variants match."""
    colours = matplotlib.colormaps["tab10"].colors
    providers: list[str] = []
    for label in labels:
        name = label.split("/")[0]
        if name not in providers:
            providers.append(name)
    out = {}
    variant_rank: dict[str, int] = {}
    for label in labels:
        name, _, variant = label.partition("/")
        colour = colours[providers.index(name) % len(colours)]
        if variant:
            variant_rank[name] = variant_rank.get(name, -1) + 1
            out[label] = (colour, _LINESTYLES[variant_rank[name] % len(_LINESTYLES)])
        else:
            out[label] = (colour, "-")
    return out


def throughput_vs_size(title: str, series: dict[str, list[CaseResult]]) -> str:
    """One line per provider[/variant]: throughput (MB/s) against message size, log–log, with the
    95% CI of the median as error bars."""
    fig = Figure(figsize=(6.4, 3.4))
    ax = fig.add_subplot()
    sizes: set[int] = set()
    styles = _styles(sorted(series))
    for label, cases in sorted(series.items()):
        points = [c for c in sorted(cases, key=lambda c: c.size) if c.bytes_per_s]
        if not points:
            continue
        x = np.array([c.size for c in points], dtype=float)
        y = np.array([c.bytes_per_s for c in points]) / 1e6
        # Throughput is size / time, so the time CI [lo, hi] maps to [size/hi, size/lo].
        lo = np.array([c.size / c.summary.ci_high * 1e3 for c in points])
        hi = np.array([c.size / c.summary.ci_low * 1e3 for c in points])
        colour, linestyle = styles[label]
        ax.errorbar(
            x,
            y,
            yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)],
            marker="o",
            markersize=3,
            linewidth=1.2,
            capsize=2,
            label=label,
            color=colour,
            linestyle=linestyle,
        )
        sizes.update(int(s) for s in x)
    ax.set_yscale("log")
    if sizes:
        _size_axis(ax, sorted(sizes))
    ax.set_xlabel("message size")
    ax.set_ylabel("throughput (MB/s)")
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)


def heatmap(
    title: str,
    rows: list[str],
    cols: list[str],
    values: dict[tuple[str, str], float],
    unit: str,
    annotate: dict[tuple[str, str], str] | None = None,
    log: bool = True,
    cmap: str = "viridis",
    links: dict[tuple[str, str], str] | None = None,
) -> str:
    """rows × cols cells coloured by value (log scale); cells without a value stay blank.
    `links`: a cell's annotation becomes a link (an SVG <a>) to that URL, e.g. '#case-…'."""
    grid = np.full((len(rows), len(cols)), np.nan)
    for (r, c), v in values.items():
        grid[rows.index(r), cols.index(c)] = v
    fig = Figure(figsize=(max(4.5, 0.62 * len(cols) + 2.2), max(2.2, 0.34 * len(rows) + 1.6)))
    ax = fig.add_subplot()
    ax.grid(False)
    finite = grid[np.isfinite(grid) & (grid > 0)] if log else grid[np.isfinite(grid)]
    norm = None
    if log and finite.size:
        norm = LogNorm(vmin=finite.min(), vmax=max(finite.max(), finite.min() * 1.0001))
    masked = np.ma.masked_invalid(np.where(grid > 0, grid, np.nan) if log else grid)
    image = ax.imshow(masked, aspect="auto", cmap=cmap, norm=norm)
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for (r, c), text in (annotate or {}).items():
        i, j = rows.index(r), cols.index(c)
        v = grid[i, j]
        dark = False
        if norm is not None and math.isfinite(v) and v > 0:
            red, green, blue, _ = image.cmap(norm(v))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        label = ax.text(
            j, i, text, ha="center", va="center", fontsize=6.5, color="white" if dark else "black"
        )
        if links and (r, c) in links:
            label.set_url(links[(r, c)])
    if finite.size:
        fig.colorbar(image, ax=ax, label=unit, shrink=0.85)
    ax.set_title(title)
    return to_svg(fig)


def box_plot(title: str, groups: dict[str, np.ndarray]) -> str:
    """One box per provider[/variant] over its per-operation samples, each relative to its own
    median, so that spread is comparable between fast and slow providers. The box spans the
    quartiles, the line is the median (0), whiskers reach the furthest sample within 1.5 IQR,
    dots are beyond."""
    labels = [k for k, v in groups.items() if v.size]
    data = [100 * (groups[k] / np.median(groups[k]) - 1) for k in labels]
    fig = Figure(figsize=(max(3.6, 0.42 * len(labels) + 1.6), 3.0))
    ax = fig.add_subplot()
    ax.boxplot(data, tick_labels=labels, showfliers=True, flierprops={"markersize": 2})
    ax.set_ylabel("deviation from the median (%)")
    ax.set_title(title)
    for label in ax.get_xticklabels():
        label.set_rotation(45)
        label.set_horizontalalignment("right")
    return to_svg(fig)


def variant_bars(title: str, groups: dict[str, dict[str, float]]) -> str:
    """Grouped horizontal bars: for each provider·algorithm, throughput of each variant (MB/s,
    log axis). Horizontal so that many groups stay readable: the figure grows downwards."""
    names = list(groups)
    variants: list[str] = []
    for bars in groups.values():
        variants += [v for v in bars if v not in variants]
    per_group = max(1, len(variants))
    fig = Figure(figsize=(7.0, max(3.0, 0.11 * len(names) * per_group + 1.4)))
    ax = fig.add_subplot()
    height = 0.8 / per_group
    for k, variant in enumerate(variants):
        ys = [i + (k - (per_group - 1) / 2) * height for i in range(len(names))]
        xs = [groups[n].get(variant, np.nan) / 1e6 for n in names]
        ax.barh(ys, xs, height=height, label=variant)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("throughput (MB/s)")
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    fig.tight_layout()
    return to_svg(fig)


def ops_bars(
    title: str,
    groups: dict[str, dict[str, float]],
    errors: dict[str, dict[str, tuple[float, float]]] | None = None,
    xlabel: str = "operations per second",
    palette: Sequence[str] = (),
) -> str:
    """Grouped horizontal bars on a log axis: for each group (an algorithm and operation), one bar
    per provider[/variant]. `errors` gives the 95% CI of each bar as (low, high) in the same unit.
    Colours follow `palette` (all provider labels of the run), so a provider has the same colour
    in every such figure even when some are missing from one."""
    names = list(groups)
    labels: list[str] = []
    for bars in groups.values():
        labels += [lb for lb in bars if lb not in labels]
    styles = _styles([*palette, *(lb for lb in labels if lb not in palette)])
    per_group = max(1, len(labels))
    fig = Figure(figsize=(7.0, max(2.6, 0.13 * len(names) * per_group + 1.4)))
    ax = fig.add_subplot()
    height = 0.8 / per_group
    smallest = math.inf
    for k, label in enumerate(labels):
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            value = groups[name].get(label)
            if value is None or not value > 0:
                continue
            ys.append(i + (k - (per_group - 1) / 2) * height)
            xs.append(value)
            low, high = (errors or {}).get(name, {}).get(label, (value, value))
            lo.append(max(value - low, 0))
            hi.append(max(high - value, 0))
        if not xs:
            continue
        smallest = min(smallest, *xs)
        colour, linestyle = styles[label]
        ax.barh(
            ys,
            xs,
            height=height,
            label=label,
            color=colour,
            alpha=0.55 if linestyle != "-" else 0.9,
            xerr=[lo, hi] if errors else None,
            error_kw={"elinewidth": 0.8, "capsize": 1.5},
        )
    ax.set_yticks(range(len(names)), names, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xscale("log")
    if math.isfinite(smallest):
        # Bars on a log axis start at its left edge: a power of ten well below the smallest value
        # keeps a slow provider's bar from shrinking to nothing next to a fast one.
        ax.set_xlim(left=10 ** math.floor(math.log10(smallest / 3)))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.grid(axis="y", visible=False)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)


def spread_box(title: str, groups: dict[str, np.ndarray], ylabel: str, scale: float = 1e6) -> str:
    """One box per provider[/variant] over raw per-operation times (divided by `scale`, e.g. ms),
    log axis: for operations whose cost varies from call to call, such as key generation, where
    the spread itself is the result. Box: quartiles; line: median; whiskers: furthest sample
    within 1.5 IQR; dots: beyond."""
    labels = [k for k, v in groups.items() if v.size]
    data = [groups[k] / scale for k in labels]
    fig = Figure(figsize=(max(3.6, 0.45 * len(labels) + 1.8), 3.0))
    ax = fig.add_subplot()
    ax.boxplot(data, tick_labels=labels, showfliers=True, flierprops={"markersize": 2})
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    for label in ax.get_xticklabels():
        label.set_rotation(45)
        label.set_horizontalalignment("right")
    return to_svg(fig)


def time_vs_bytes(title: str, points: dict[str, list[tuple[float, float, str]]]) -> str:
    """A log-log scatter: for each series (an operation), points (bytes on the wire, median time
    per operation in ns, the algorithm's name, written beside its point)."""
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.add_subplot()
    markers = "osD^v<>"
    for k, (name, pts) in enumerate(points.items()):
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] / 1e3 for p in pts]
        ax.scatter(xs, ys, label=name, marker=markers[k % len(markers)], s=22, alpha=0.85)
        for x, y, (_, _, text) in zip(xs, ys, pts, strict=True):
            ax.annotate(text, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bytes on the wire (public key + ciphertext, share or signature)")
    ax.set_ylabel("median time per operation (µs)")
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)
