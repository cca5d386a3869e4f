"""`cryptobench serve`: the store's runs as a small read-only web application (Starlette, served
by uvicorn, pages from Jinja2 templates). app.py routes and renders, pages.py says what each
page shows (the same data as its JSON), chart.py draws a case's history, command.py is the
command line. docs/serve.md describes the pages."""
