"""Plain-text and Markdown tables for the terminal and the Markdown export."""

from collections.abc import Sequence


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns padded to fit; columns whose cells all look numeric are right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, v in enumerate(row):
            widths[i] = max(widths[i], len(v))
    numeric = [
        bool(cells) and all(_looks_numeric(row[i]) for row in cells) for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]) for i, v in enumerate(values)
        ]
        return "  ".join(parts).rstrip()

    out = [line(list(headers)), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[_cell(v).replace("|", "\\|") for v in row] for row in rows]
    numeric = [
        bool(cells) and all(_looks_numeric(r[i]) for r in cells) for i in range(len(headers))
    ]
    out = ["| " + " | ".join(headers) + " |"]
    out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    out += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(out)


def _cell(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _looks_numeric(s: str) -> bool:
    if s in ("-", ""):
        return True
    head = s.split()[0].lstrip("±~<>")
    try:
        float(head.rstrip("%x×"))
    except ValueError:
        return False
    return True
