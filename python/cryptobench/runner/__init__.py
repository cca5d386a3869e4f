"""Runner processes: finding the runners, asking them what they can do, and measuring cases.

Runners are `cryptobench-native` and every `cryptobench-runner-*` beside it or in
$CRYPTOBENCH_RUNNERS (`discover`); their capabilities are merged into one set. Measuring uses the
runners' `serve` mode (docs/protocol.md). There is one `serve` process per (provider, variant),
started from the provider's own runner with `--variant provider=variant`, so a crash takes down
only that provider. Cross-provider agreement is computed in each provider's own process and
decided here (agreement.py). Cases are measured key by key, the providers of a key side by side in
small shuffled batches, so drift on a shared machine hits every provider alike. Only one request is
outstanding at any moment: measurements never run concurrently.

Every request has a timeout. A process that dies (crash) or does not answer in time (hang) costs
the case it was working on, which is recorded as failed with the reason; the process is restarted
for that provider's remaining cases and the run goes on."""

from cryptobench.runner.discovery import (
    REPO_ROOT,
    RUNNER_NAME,
    RUNNER_PREFIX,
    discover,
    find_other_runners,
    find_runner,
    list_capabilities,
    runner_paths,
)
from cryptobench.runner.measurement import (
    MEASUREMENT_FIELDS,
    Measurement,
    Outcome,
    group_key,
    sample_cap,
    wants_more,
)
from cryptobench.runner.process import RunnerFailure, ServeProcess

__all__ = [
    "MEASUREMENT_FIELDS",
    "REPO_ROOT",
    "RUNNER_NAME",
    "RUNNER_PREFIX",
    "Measurement",
    "Outcome",
    "RunnerFailure",
    "ServeProcess",
    "discover",
    "find_other_runners",
    "find_runner",
    "group_key",
    "list_capabilities",
    "runner_paths",
    "sample_cap",
    "wants_more",
]
