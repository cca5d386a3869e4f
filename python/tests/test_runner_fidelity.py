"""The fidelity benches' summary (python/cryptobench/runner_fidelity.py): the runners print the
rounds, the coordinator their medians, ratio and verdict."""

import io
import json

from cryptobench.runner_fidelity import summarise


def line(engine, harness) -> str:
    return json.dumps(
        {"type": "fidelity", "case": "go hash sha256 1024", "harness": "testing.B",
         "engine_ns": engine, "harness_ns": harness}
    )  # fmt: skip


def test_the_ratio_of_the_round_medians_decides_and_other_lines_are_not_read():
    out = io.StringIO()
    rounds = [[100.0, 104.0, 999.0], [102.0, 101.0, 103.0], [98.0, 99.0, 100.0]]
    assert summarise(["criterion's report\n", line(rounds, [100.0, 101.0, 500.0])], out) == 0
    text = out.getvalue()
    assert "criterion" not in text and " 1.010" in text  # the medians 102 and 101
    assert text.splitlines()[-1] == "all ratios within 0.9-1.1"


def test_a_ratio_outside_the_range_or_an_error_line_fails():
    out = io.StringIO()
    assert summarise([line([120.0], [100.0])], out) == 1
    assert out.getvalue().splitlines()[-1] == "1 of 1 ratios outside 0.9-1.1"
    # The range is the one printed: 0.905 is inside it (1/0.905 > 1.1 is not what is asked).
    assert summarise([line([90.5], [100.0])], io.StringIO()) == 0
    assert summarise([line([89.5], [100.0])], io.StringIO()) == 1
    assert summarise(["{not json\n", line([100.0], [100.0])], io.StringIO()) == 0
    error = json.dumps({"type": "error", "message": "gcm: failed the gate"})
    assert summarise([error], io.StringIO()) == 1
    assert summarise([], io.StringIO()) == 1
