"""What every section of every report shares: the page, its CSS, tables, figures and the "how
this was obtained" notes. One place for the styling of the core's sections and every scenario's."""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from cryptobench.units import format_size


@dataclass(frozen=True)
class Section:
    """One section of a report: an anchor, a title for the table of contents, its HTML."""

    key: str
    title: str
    html: str


CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .6em 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 2px 7px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f4f4f4; }
.how { background: #f7f9fc; border-left: 3px solid #8aa4d6; padding: .4em .8em; margin: .6em 0;
       font-size: 13px; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.figs svg { max-width: 100%; height: auto; }
.bad { color: #a40000; } .warn { color: #8a5a00; }
code { font-size: 12px; }
th { cursor: pointer; user-select: none; } th[data-dir="asc"]::after { content: " ▲"; }
th[data-dir="desc"]::after { content: " ▼"; }
input.filter { margin: .4em 0 0; padding: 2px 6px; width: 22em; font-size: 12.5px; }
tr:target { background: #fff4c2; } .answer td:first-child { font-weight: 600; }
"""

# Sorting, filtering and jumping to folded rows, in the page itself: the report stays one file
# that needs no network. Numbers with units (ns/µs/ms/s, B/KiB/MiB, k/M/G prefixes) sort by value.
SCRIPT = r"""
(function () {
  const scale = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1, "B": 1, "KiB": 1024,
                 "MiB": 1048576, "GiB": 1073741824, "k": 1e3, "M": 1e6, "G": 1e9, "%": 1};
  function value(cell) {
    const t = cell.textContent.trim().replace(/^[~≈]/, "");
    const m = t.match(/^(-?[0-9][0-9.,]*(?:e[-+]?[0-9]+)?)\s*([a-zA-Zµ%]*)/);
    if (!m) return null;
    const n = parseFloat(m[1].replace(/,/g, ""));
    const unit = m[2] || "";
    const f = scale[unit] !== undefined ? scale[unit] : (scale[unit.charAt(0)] || 1);
    return n * f;
  }
  function sort(table, index, th) {
    const body = table.tBodies[0];
    const dir = th.dataset.dir === "asc" ? "desc" : "asc";
    table.querySelectorAll("th").forEach(h => delete h.dataset.dir);
    th.dataset.dir = dir;
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = a.cells[index], y = b.cells[index];
      if (!x || !y) return 0;
      const vx = value(x), vy = value(y);
      const c = (vx !== null && vy !== null) ? vx - vy
        : x.textContent.localeCompare(y.textContent, undefined, {numeric: true});
      return dir === "asc" ? c : -c;
    });
    rows.forEach(r => body.appendChild(r));
  }
  document.querySelectorAll("table").forEach(table => {
    if (!table.tHead || !table.tBodies.length) return;
    table.tHead.querySelectorAll("th").forEach((th, i) =>
      th.addEventListener("click", () => sort(table, i, th)));
    if (table.tBodies[0].rows.length > 10) {
      const box = document.createElement("input");
      box.className = "filter";
      box.placeholder = "filter rows: type a provider, algorithm, …";
      box.addEventListener("input", () => {
        const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
        Array.from(table.tBodies[0].rows).forEach(r => {
          const t = r.textContent.toLowerCase();
          r.hidden = !words.every(w => t.includes(w));
        });
      });
      table.parentNode.insertBefore(box, table);
    }
    table.classList.add("interactive");
  });
  function reveal() {
    const id = location.hash ? decodeURIComponent(location.hash.slice(1)) : "";
    const target = id && document.getElementById(id);
    for (let e = target; e; e = e.parentElement) if (e.tagName === "DETAILS") e.open = true;
    if (target) target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
"""


COLLAPSE_ROWS = 30  # longer tables start folded, with their row count shown


def html_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    numeric: set[int] | None = None,
    *,
    row_ids: Sequence[str] | None = None,
    markup: set[int] | None = None,
    collapse: bool = True,
) -> str:
    """A table the page's script makes sortable (click a heading) and, when long, filterable.
    `numeric` columns are right-aligned; `markup` columns hold HTML made by us, not text;
    `row_ids` give rows an anchor to link to; a table longer than COLLAPSE_ROWS is folded."""
    numeric, markup = numeric or set(), markup or set()
    rows = list(rows)
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)

    def cell(i: int, v: object) -> str:
        content = str(v) if i in markup else escape(text(v))
        return f'<td class="n">{content}</td>' if i in numeric else f"<td>{content}</td>"

    body = "".join(
        (f'<tr id="{escape(row_ids[k])}">' if row_ids else "<tr>")
        + "".join(cell(i, v) for i, v in enumerate(row))
        + "</tr>"
        for k, row in enumerate(rows)
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if collapse and len(rows) > COLLAPSE_ROWS:
        return f"<details><summary>{len(rows)} rows</summary>{table}</details>"
    return table


def anchor(*parts: object) -> str:
    """An id for an element, from the names that identify it (a case, a figure)."""
    return "-".join(re.sub(r"[^A-Za-z0-9]+", "_", str(p)).strip("_") for p in parts)


def text(v: object) -> str:
    return "-" if v is None else str(v)


def svg_row(svgs: list[str], ids: Sequence[str] | None = None) -> str:
    figures = (
        f'<figure id="{escape(ids[k])}">{s}</figure>' if ids else f"<figure>{s}</figure>"
        for k, s in enumerate(svgs)
    )
    return '<div class="figs">' + "".join(figures) + "</div>"


def how(text: str, lead: str | None = "How this was obtained.") -> str:
    prefix = f"<b>{escape(lead)}</b> " if lead else ""
    return f'<p class="how">{prefix}{text}</p>'


def num(v: float | None, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def se(v: float, fmt: str) -> str:
    return "" if v != v else f" ± {format(v, fmt)}"  # v != v: NaN, too few sizes for an error


def size_text(size: int | None) -> str:
    return format_size(size) if size is not None else "-"


def page(title: str, intro: str, sections: Sequence[Section]) -> str:
    """A whole self-contained HTML page: title, an introduction (HTML), a table of contents and
    the sections."""
    toc = "".join(f'<li><a href="#{s.key}">{escape(s.title)}</a></li>' for s in sections)
    body = "".join(
        f'<section id="{s.key}"><h2>{escape(s.title)}</h2>{s.html}</section>' for s in sections
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>{intro}<ol>{toc}</ol>{body}<script>{SCRIPT}</script>"
        "</body></html>\n"
    )
