"""Exporters: one module per format, each with `render(results, with_samples) -> str`.

Adding a format means adding a module here and one line to FORMATS.
"""

from collections.abc import Callable

from cryptobench.analysis import RunResults
from cryptobench.export import csv, gbench, json, md

Renderer = Callable[[RunResults, bool], str]

FORMATS: dict[str, Renderer] = {
    "json": json.render,
    "csv": csv.render,
    "md": md.render,
    "gbench": gbench.render,
}
