"""`cryptobench serve [--db URL] [--host 127.0.0.1] [--port N] [--public]`."""

import argparse
import ipaddress
import sys

from cryptobench.errors import UserError

DEFAULT_PORT = 8350


def register(sub, db: argparse.ArgumentParser) -> None:
    from cryptobench.commands.common import number

    c = sub.add_parser(
        "serve", parents=[db], help="serve the stored runs as a read-only web application"
    )
    c.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1; another than loopback needs --public)",
    )
    c.add_argument(
        "--port",
        type=number(int, lambda v: 0 < v < 65536, "a port number"),
        default=DEFAULT_PORT,
        help=f"port (default: {DEFAULT_PORT})",
    )
    c.add_argument(
        "--public",
        action="store_true",
        help="allow an address other than loopback: anyone who reaches it reads every run",
    )
    c.set_defaults(func=cmd_serve)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace) -> int:
    if not is_loopback(args.host):
        if not args.public:
            raise UserError(
                f"--host {args.host} is not a loopback address: every stored run would be "
                "readable from the network; add --public if that is meant"
            )
        print(
            f"cryptobench: warning: serving on {args.host}, not loopback: anyone who can reach "
            f"port {args.port} reads every stored run (no authentication)",
            file=sys.stderr,
        )
    import uvicorn

    from cryptobench.serve.app import create_app
    from cryptobench.store import Store

    db = Store.open_readonly(args.db)
    app = create_app(db, second=lambda: Store.open_readonly(args.db))
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(
        f"serving {db.path} (read-only) at http://{host}:{args.port}/ — Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        db.close()
    return 0
