"""`cryptobench report` and `cryptobench export`, and the --report/--json-out of a run."""

import argparse
import sys
from pathlib import Path

from cryptobench import analysis, leakverdicts, report, scenarios, store
from cryptobench.files import write_file
from cryptobench.units import parse_sizes


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser("report", parents=[db], help="write a self-contained HTML report")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("report.html"),
        metavar="FILE",
        help="output file (default: report.html)",
    )
    c.add_argument(
        "--size",
        metavar="SIZE",
        help="message size for the heatmap, box plots and bar charts "
        "(default: the largest size most cases share)",
    )
    c.set_defaults(func=cmd_report)

    c = sub.add_parser("export", parents=[db], help="export one run as JSON, CSV or Markdown")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument("--format", "-f", required=True, choices=_export_formats())
    c.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="output file (default: stdout)"
    )
    c.add_argument("--samples", action="store_true", help="include the raw samples")
    c.set_defaults(func=cmd_export)


def _export_formats() -> list[str]:
    from cryptobench.export import FORMATS

    return list(FORMATS)


def render_report(db: store.Store, run_id: int, size: int | None = None) -> str:
    """The HTML report of any run: the core's sections, or the scenario's that stored it (the
    same page as the scenario's --report). A core run's report shows the constant-time verdicts
    of the leaks runs stored beside it."""
    scenario = scenarios.for_suite(db.run(run_id).suite)
    if scenario is None:
        return report.render(analysis.load(db, run_id), size=size, checks=leakverdicts.load(db))
    return scenario.report_page(db, run_id)


def cmd_report(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    run_id = db.resolve_run(args.run)
    size = parse_sizes(args.size)[0] if args.size else None
    write_file(args.output, render_report(db, run_id, size))
    print(f"report: {args.output.resolve()}")
    return 0


def render_export(db: store.Store, run_id: int, fmt: str, with_samples: bool) -> str:
    """Any run as `fmt`: a scenario run as its scenario exports it (the same document as its
    --json-out), refusing a format that does not fit it."""
    from cryptobench.export import FORMATS

    scenario = scenarios.for_suite(db.run(run_id).suite)
    if scenario is None:
        return FORMATS[fmt](analysis.load(db, run_id), with_samples)
    return scenario.export(db, run_id, fmt)


def cmd_export(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    text = render_export(db, db.resolve_run(args.run), args.format, args.samples)
    if args.output:
        write_file(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def write_outputs(
    db: store.Store,
    run_id: int,
    args: argparse.Namespace,
    results: analysis.RunResults | None = None,
) -> None:
    """A run's --json-out and --report, when asked for."""
    if not (args.json_out or args.report):
        return
    results = results or analysis.load(db, run_id)
    if args.json_out:
        from cryptobench.export import json as json_export

        write_file(args.json_out, json_export.render(results))
        print(f"JSON: {args.json_out}")
    if args.report:
        write_file(args.report, report.render(results, checks=leakverdicts.load(db)))
        print(f"report: {args.report}")
