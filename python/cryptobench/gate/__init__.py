"""The correctness gate for runners gated by the coordinator (docs/protocol.md, "Who gates").

The coordinator parses `vectors/` once (`vectors.py`), makes each case's parameters
(`material.py`), plans known-answer steps and round trips with their judges (`symmetric.py`,
`publickey.py`: every family quirk and every message is here), sends them in `steps` requests
(one per wave of references, `steps.py`) and decides (`case.py`); agreement artifacts and
cross-checks are steps too (`artifacts.py`). A runner keeps only what must run in its own
process: preparing operations, running the steps on them, timing, the check of the timed
instance, its heap count.
`cryptobench-native` gates itself (native/src/core/gate*.cpp) and is not driven from here.
"""

from cryptobench.gate.artifacts import agreement_reply, cross_check_verdicts
from cryptobench.gate.case import Gated, gate_case
from cryptobench.gate.material import Params, case_params
from cryptobench.gate.vectors import Vectors

COORDINATOR = "coordinator"  # the `gate` a runner declares in `hello` and `capabilities`


def gated_by_coordinator(hello: dict) -> bool:
    return hello.get("gate") == COORDINATOR


__all__ = [
    "COORDINATOR",
    "Gated",
    "Params",
    "Vectors",
    "agreement_reply",
    "case_params",
    "cross_check_verdicts",
    "gate_case",
    "gated_by_coordinator",
]
