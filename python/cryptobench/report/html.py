"""What every section of every report shares: the page, its CSS, tables, figures and the "how
this was obtained" notes. One place for the styling of the core's sections and every scenario's."""

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
"""


def html_table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: set[int] | None = None
) -> str:
    numeric = numeric or set()
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{escape(text(v))}</td>'
            if i in numeric
            else f"<td>{escape(text(v))}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def text(v: object) -> str:
    return "-" if v is None else str(v)


def svg_row(svgs: list[str]) -> str:
    return '<div class="figs">' + "".join(f"<figure>{s}</figure>" for s in svgs) + "</div>"


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
        f"<h1>{escape(title)}</h1>{intro}<ol>{toc}</ol>{body}</body></html>\n"
    )
