"""The `config` scenario: what encrypting configuration values costs an application — the
thesis behind confcrypt, repeated (its Tables 6.1 and 6.2). `cryptobench scenario config`."""

from cryptobench.scenarios.base import figure_scenario

SCENARIO = figure_scenario(
    "config",
    "the thesis's benchmark: writing and reading encrypted configuration files",
    paper="000",
    top_level=False,
)
