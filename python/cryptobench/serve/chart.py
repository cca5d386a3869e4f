"""The history chart: one line per machine through the medians of one case, each point with its
bootstrap 95% interval as a vertical bar, a dashed rule where the library's version changed.
Written as SVG text directly (no matplotlib): a page of 200 points draws in a millisecond, and
every stored text in it (machine names, versions) is escaped."""

import math
from html import escape
from typing import Any

from cryptobench.units import format_ns

WIDTH, HEIGHT = 860, 320
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 20, 40
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def history_svg(machines: dict[str, list[dict[str, Any]]]) -> str:
    runs = sorted({p["run_id"] for line in machines.values() for p in line})
    values = [
        v
        for line in machines.values()
        for p in line
        for v in (p["ci_low_ns"], p["ci_high_ns"], p["median_ns"])
        if v is not None
    ]
    if not values:
        return "<p>No measured point to draw.</p>"
    low, high = min(values), max(values)
    if high <= low:
        low, high = low * 0.9, high * 1.1 + 1e-9
    pad = (high - low) * 0.05
    low, high = max(0.0, low - pad), high + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    column = {r: i for i, r in enumerate(runs)}

    def x(run_id: int) -> float:
        return LEFT + (column[run_id] + 0.5) * plot_w / max(1, len(runs))

    def y(v: float) -> float:
        return TOP + plot_h - (v - low) / (high - low) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="history" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-label="median time per operation by run, one line per machine">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="#999"/>',
    ]
    for tick in _ticks(low, high):
        ty = y(tick)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#eee"/>'
            f'<text x="{LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" font-size="11">'
            f"{escape(format_ns(tick))}</text>"
        )
    step = max(1, len(runs) // 12)
    for i, r in enumerate(runs):
        if i % step == 0:
            parts.append(
                f'<text x="{x(r):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" '
                f'font-size="11">{r}</text>'
            )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 4}" text-anchor="middle" font-size="11">'
        "run</text>"
    )
    for n, (machine, line) in enumerate(sorted(machines.items())):
        colour = COLOURS[n % len(COLOURS)]
        points = [p for p in line if p["median_ns"] is not None]
        path = " ".join(f"{x(p['run_id']):.1f},{y(p['median_ns']):.1f}" for p in points)
        if len(points) > 1:
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}"/>')
        for p in points:
            px = x(p["run_id"])
            title = escape(
                f"run {p['run_id']} on {machine}: {format_ns(p['median_ns'])} "
                f"(95% CI {format_ns(p['ci_low_ns'])}–{format_ns(p['ci_high_ns'])}), "
                f"{p['version'] or 'version unknown'}"
            )
            parts.append(
                f'<g class="point"><title>{title}</title>'
                f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{y(p["ci_low_ns"]):.1f}" '
                f'y2="{y(p["ci_high_ns"]):.1f}" stroke="{colour}"/>'
                f'<circle cx="{px:.1f}" cy="{y(p["median_ns"]):.1f}" r="3" fill="{colour}"/></g>'
            )
        for p in line:
            if p["version_changed"]:
                px = x(p["run_id"])
                parts.append(
                    f'<line class="version-change" x1="{px:.1f}" x2="{px:.1f}" y1="{TOP}" '
                    f'y2="{TOP + plot_h}" stroke="{colour}" stroke-dasharray="4 3"/>'
                    f'<text x="{px + 3:.1f}" y="{TOP + 12}" font-size="10" fill="{colour}">'
                    f"{escape(p['version'] or '?')}</text>"
                )
        ly = TOP + 14 + 16 * n
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 10}" x2="{WIDTH - RIGHT + 30}" y1="{ly - 4}" '
            f'y2="{ly - 4}" stroke="{colour}" stroke-width="2"/>'
            f'<text x="{WIDTH - RIGHT + 34}" y="{ly}" font-size="11">{escape(machine)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = 10 ** math.floor(math.log10(span / 4)) if span > 0 else 1.0
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]
