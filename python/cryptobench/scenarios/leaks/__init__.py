"""The `leaks` scenario: is an operation's time independent of its secrets, here? Input classes
that differ only in a secret, timed in turns and compared in pairs, with an A/A control
(docs/leaks.md). `cryptobench leaks`."""

from cryptobench.scenarios.base import figure_scenario

SCENARIO = figure_scenario(
    "leaks",
    "is it constant-time here? secret-dependent input classes timed in pairs, with an A/A control",
)
