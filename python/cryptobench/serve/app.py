"""The web application of `cryptobench serve` (Starlette): each page at a stable URL, as HTML or,
with `?format=json` or under `/api/`, as the same data in JSON.

| page | HTML | JSON |
|---|---|---|
| runs, filtered and sorted | `/` or `/runs` | `/api/runs` |
| one run (`cryptobench report N`) | `/runs/N` | `/api/runs/N` (`cryptobench export N -f json`) |
| one case across runs | `/history?provider=…&operation=…&algorithm=…&size=…` | `/api/history?…` |
| regressions | `/regressions` | `/api/regressions` |
| two runs compared | `/compare?a=N&b=M` | `/api/compare?…` |
| scenario runs and their figures | `/scenarios` | `/api/scenarios` |

The handlers run on the event loop's thread one at a time: the store has one connection, and
a page is a few queries, so requests are served in turn rather than sharing it across threads.
Every page carries security headers; the templates escape every value; an unknown URL or id is
a 404 page and a malformed parameter a 400 page, never a traceback.
"""

import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cryptobench import __version__
from cryptobench.commands.output import render_export, render_report
from cryptobench.errors import UserError
from cryptobench.serve import pages
from cryptobench.serve.chart import history_svg
from cryptobench.store import Store
from cryptobench.units import format_ns

HERE = Path(__file__).parent
# The pages of serve load nothing but their own stylesheet; a run's report is one file with its
# own inline style and script (report/html.py), so it gets those and nothing else.
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}


class SecurityHeaders:
    """ASGI middleware: every response gets HEADERS and a content security policy."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.decode().lower() for k, _ in headers}
                for k, v in HEADERS.items():
                    if k not in present:
                        headers.append((k.encode(), v.encode()))
                if "content-security-policy" not in present:
                    headers.append((b"content-security-policy", PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db: Store, second: Callable[[], Store] | None = None) -> Starlette:
    """The application over `db`. `second` opens another connection to the same store: given
    it, a thread computes every regression pair in the background, newest first, so that
    the regressions pages answer from memory once it is through."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals |= {"version": __version__, "store": str(db.path)}
    env.filters |= {"ns": format_ns, "ratio": _ratio, "query": _query}
    env.globals["history_svg"] = history_svg
    cache: dict = {}

    def html(template: str, status: int = 200, **data: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(template).render(**data), status_code=status)

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/") or request.query_params.get("format") == "json"

    def page(template: str, build: Callable[[dict[str, str]], dict[str, Any]]):
        async def endpoint(request: Request) -> Response:
            data = build(dict(request.query_params))
            if wants_json(request):
                return JSONResponse(pages.as_json(data))
            return html(template, **data, params=dict(request.query_params))

        return endpoint

    async def run(request: Request) -> Response:
        run_id = pages.run_id(db, request.path_params["run"])
        if wants_json(request):
            body = render_export(db, run_id, "json", False)
            return Response(body, media_type="application/json")
        previous = (
            f' · <a href="/compare?a={run_id - 1}&amp;b={run_id}">compare with run {run_id - 1}</a>'
            if run_id > 1
            else ""
        )
        nav = (
            f'<p style="font:14px sans-serif"><a href="/runs">all runs</a>{previous}'
            f' · <a href="/api/runs/{run_id}">JSON</a></p>'
        )
        text = render_report(db, run_id).replace("<body>", "<body>" + nav, 1)
        return HTMLResponse(text, headers={"content-security-policy": REPORT_POLICY})

    def error(request: Request, status: int, message: str) -> Response:
        if wants_json(request):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        return html("error.html", status=status, status_code=status, message=message)

    async def not_found(request: Request, exc: Exception) -> Response:
        return error(request, 404, str(exc) if isinstance(exc, pages.NotFound) else "no such page")

    async def bad_request(request: Request, exc: Exception) -> Response:
        return error(request, 400, str(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = "no such page" if exc.status_code == 404 else exc.detail
        return error(request, exc.status_code, detail)

    async def internal(request: Request, exc: Exception) -> Response:
        traceback.print_exception(exc, file=sys.stderr)
        return error(request, 500, "internal error (the server's log has the details)")

    routes = []
    for path, template, build in (
        ("/runs", "runs.html", lambda p: pages.runs_page(db, p, cache)),
        ("/history", "history.html", lambda p: pages.history_page(db, p, cache)),
        ("/regressions", "regressions.html", lambda p: pages.regressions_page(db, p, cache)),
        ("/compare", "compare.html", lambda p: pages.compare_page(db, p)),
        ("/scenarios", "scenarios.html", lambda p: pages.scenarios_page(db, p)),
    ):
        endpoint = page(template, build)
        routes += [Route(path, endpoint), Route("/api" + path, endpoint)]
    routes += [
        Route("/", page("runs.html", lambda p: pages.runs_page(db, p, cache))),
        Route("/runs/{run}", run),
        Route("/api/runs/{run}", run),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            pages.NotFound: not_found,
            UserError: not_found,
            pages.BadRequest: bad_request,
            HTTPException: http_error,
            Exception: internal,
        },
    )
    app.state.db = db
    if second is not None:
        threading.Thread(target=_warm, args=(second, cache), daemon=True).start()
    return SecurityHeaders(app)


def _warm(second: Callable[[], Store], cache: dict) -> None:
    try:
        db = second()
        try:
            start = time.monotonic()
            done = pages.warm_regressions(db, cache)
            print(
                f"regressions: {done} pairs compared in {time.monotonic() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        finally:
            db.close()
    except Exception as e:  # the pages compute what they need themselves
        print(f"regressions not computed in the background: {e}", file=sys.stderr, flush=True)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _query(params: dict[str, Any], **changes: Any) -> str:
    """A query string: `params` with `changes` applied (None removes a key)."""
    from urllib.parse import urlencode

    merged = {k: v for k, v in {**params, **changes}.items() if v not in (None, "")}
    return urlencode(merged)
