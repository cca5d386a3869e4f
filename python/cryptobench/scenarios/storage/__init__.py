"""The `storage` scenario: what an encrypted file system costs beside the clean one (the 2009
comparison, 002). `cryptobench storage`."""

from cryptobench.scenarios.base import figure_scenario

SCENARIO = figure_scenario(
    "storage",
    "what an encrypted file system costs beside the clean one: dd, fio, bonnie++, metadata",
    paper="002",
)
