"""Command line of cryptobench-runner-python (docs/protocol.md, "Commands")."""

import argparse
import re
import sys

from . import RUNNER, protocol, serve, variants
from .providers import NAMES

USAGE = f"""usage: {RUNNER} list  [--variant P=V]...
       {RUNNER} serve [--variant P=V]... [--cpu N|--no-pin]
       {RUNNER} bench [--no-pin]   (fidelity against timeit)
Protocol and message formats: docs/protocol.md
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse's "argument --cpu: " before a message that names its option already
        message = re.sub(r"^argument (--[\w-]+): (?=\1)", "", message)
        sys.stderr.write(f"{RUNNER}: {message}\n{USAGE}")
        sys.exit(2)


def _cpu(value: str) -> int:
    if not value.isdigit() or int(value) >= 1024:
        raise argparse.ArgumentTypeError(f"--cpu takes a CPU number, got '{value}'")
    return int(value)


def _variant(value: str) -> str:
    provider, _, variant = value.partition("=")
    if not provider or not variant:
        raise argparse.ArgumentTypeError(f"--variant takes PROVIDER=VARIANT, got '{value}'")
    if provider not in NAMES:
        raise argparse.ArgumentTypeError(f"--variant: unknown provider '{provider}'")
    if variant not in variants.names(provider):
        raise argparse.ArgumentTypeError(
            f"{provider} has no variant '{variant}' ({', '.join(variants.names(provider))})"
        )
    return value


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog=RUNNER, usage=USAGE, add_help=False)
    parser.add_argument("command", choices=("list", "serve", "bench"))
    parser.add_argument("--variant", action="append", type=_variant, default=[])
    parser.add_argument("--cpu", type=_cpu)
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args(argv)
    chosen: dict[str, str] = {}
    for value in args.variant:
        provider, _, variant = value.partition("=")
        if chosen.setdefault(provider, variant) != variant:
            parser.error(f"--variant: {provider} given twice ({chosen[provider]}, {variant})")
    try:  # may re-execute the runner with the variants' environment
        variants.select(chosen, sys.argv[1:] if argv is None else argv)
    except (RuntimeError, OSError) as e:
        parser.error(str(e))
    if args.command == "list":
        protocol.emit(sys.stdout, protocol.capabilities())
        return 0
    try:
        cpu = protocol.pin(args.cpu, not args.no_pin)
    except ValueError as e:
        parser.error(str(e))
    if args.command == "bench":
        from .bench import bench

        return bench()
    return serve.serve(sys.stdin, sys.stdout, cpu)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # the coordinator went away: nothing left to tell it
        sys.exit(1)
