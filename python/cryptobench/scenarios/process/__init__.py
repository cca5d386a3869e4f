"""The `process` scenario: what encrypting a file costs a whole process — CPU, peak memory,
input kinds (the EvalMe paper, 004). `cryptobench process`."""

from cryptobench.scenarios.base import figure_scenario

SCENARIO = figure_scenario(
    "process",
    "what encrypting a file costs a whole process: time, CPU, peak memory, input kinds",
    paper="004",
)
