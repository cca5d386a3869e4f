"""The process scenario with the real program, real libraries and real processes."""

import os
import stat
import sys
from pathlib import Path

import pytest

from cryptobench import cli, runner
from cryptobench.scenarios.process import driver, measure
from cryptobench.scenarios.process.model import ALGORITHMS
from cryptobench.store import Store


@pytest.fixture(scope="module")
def program() -> str:
    try:
        return driver.find_program()
    except Exception as e:
        pytest.skip(str(e))


def test_the_program_round_trips_every_algorithm_on_every_provider(tmp_path, program):
    caps = runner.list_capabilities(runner.find_runner())
    data = os.urandom(100_003)  # not a multiple of any block or chunk
    src = tmp_path / "in"
    src.write_bytes(data)
    tried = 0
    for provider, info in caps.providers.items():
        for algorithm in ALGORITHMS:
            if algorithm not in info.algorithms:
                continue
            ct, out = tmp_path / "ct", tmp_path / "out"
            e = driver.measure(driver.encfile(program, "encrypt", provider, algorithm, src, ct))
            d = driver.measure(driver.encfile(program, "decrypt", provider, algorithm, ct, out))
            assert (e.status, d.status) == (0, 0), (provider, algorithm, e.stderr, d.stderr)
            assert out.read_bytes() == data, (provider, algorithm)
            assert ct.read_bytes()[20:100] != data[:80]  # it did encrypt
            tried += 1
    assert tried >= 40


def test_one_execution_encrypts_and_then_decrypts_as_the_paper_timed_it(tmp_path, program):
    """EvalMe's execution: "the encryption of the given input and the decryption of the result"
    in one process (§3). Its output is the input again; misuse is a usage error (exit 2)."""
    data = os.urandom(70_001)
    src, ct, back = tmp_path / "in", tmp_path / "ct", tmp_path / "back"
    src.write_bytes(data)
    for provider, algorithm in (("botan", "aes-192-cbc"), ("cryptopp", "chacha20")):
        argv = driver.encfile(program, "roundtrip", provider, algorithm, src, ct, back)
        cost = driver.measure(argv)
        assert cost.status == 0, (provider, algorithm, cost.stderr)
        assert back.read_bytes() == data and ct.read_bytes()[20:100] != data[:80]
        back.unlink()
    no_back = driver.measure(driver.encfile(program, "roundtrip", "botan", "chacha20", src, ct))
    assert no_back.status == 2 and "roundtrip needs --back" in no_back.stderr
    stray = driver.measure(
        driver.encfile(program, "encrypt", "botan", "chacha20", src, ct, tmp_path / "b")
    )
    assert stray.status == 2 and "--back is for roundtrip" in stray.stderr


def test_the_figures_are_the_childs_own(tmp_path):
    grow = "b = b'x' * (50 << 20); import sys; sys.exit(3)"
    cost = driver.measure([sys.executable, "-c", grow])
    assert cost.status == 3
    assert cost.max_rss_kib >= 50 * 1024  # the kernel's high-water mark of that process
    small = driver.measure([sys.executable, "-c", "pass"])
    assert small.max_rss_kib < 50 * 1024
    assert cost.user_s + cost.sys_s > 0


def _corrupting(tmp_path: Path, program: str) -> str:
    """The real program, except that what it encrypts gets one byte flipped afterwards."""
    wrapper = tmp_path / "corrupting-encfile"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'"{program}" "$@" || exit $?\n'
        'if [ "$1" = encrypt ]; then\n'
        '  out=$(echo "$@" | sed "s/.*--out \\([^ ]*\\).*/\\1/")\n'
        '  printf "\\377" | dd of="$out" bs=1 seek=40 conv=notrunc 2>/dev/null\n'
        "fi\n"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return str(wrapper)


def test_a_corrupted_output_fails_its_cell(tmp_path, program):
    src = tmp_path / "in"
    src.write_bytes(os.urandom(70_000))
    spec = {"runs": 2, "warmup": 0}
    cells = [("openssl", "aes-192-cbc"), ("openssl", "aes-256-gcm")]
    results = list(
        measure.cell_runs(
            _corrupting(tmp_path, program), cells, [("random", src)], 70_000, tmp_path, spec
        )
    )
    reasons = {r[0].key["algorithm"]: r[0].reason for r in results}
    assert all(r[0].status == "failed" for r in results)
    assert "round trip changed the data" in reasons["aes-192-cbc"]  # unauthenticated: garbage
    assert reasons["aes-256-gcm"].startswith("exit 5")  # authenticated: refused


def test_a_small_run_is_stored_shown_and_reported(tmp_path, capsys, program):
    db = tmp_path / "r.db"
    argv = [
        "process",
        "-p",
        "openssl,botan",
        "-a",
        "chacha20",
        "--kinds",
        "random,text",
        "--sizes",
        "8K",
        "--runs",
        "2",
        "--roundtrip",
        "--db",
        str(db),
    ]
    assert cli.main(argv) == 0
    figures = Store.open(db).figures(1)
    walls = [f for f in figures if f.metric == "wall" and f.key.get("kind") in ("random", "text")]
    # providers × kinds × (encrypt, decrypt, and the paper's one execution doing both)
    assert len(walls) == 2 * 2 * 3
    assert {f.key["direction"] for f in walls} == {"encrypt", "decrypt", "roundtrip"}
    assert all(f.status == "ok" and len(f.values) == 2 for f in walls)
    # reproduce 004 judges the paper's execution and shows our split beside it
    from cryptobench.scenarios.process.reproduce import SPLIT_ONLY, from_run

    rep = from_run(db, 1, quick=True)
    assert "one execution encrypting and decrypting, median" in rep.text
    assert "two processes, encrypt + decrypt" in rep.text and SPLIT_ONLY not in rep.deviations
    assert any(f.key.get("kind") == "in-process" and f.status == "ok" for f in figures)
    assert cli.main(["show", "1", "--db", str(db)]) == 0
    assert "Where the time goes" in capsys.readouterr().out
    out = tmp_path / "r.html"
    assert cli.main(["report", "1", "--db", str(db), "-o", str(out)]) == 0
    assert 'id="process-throughput"' in out.read_text()
    assert cli.main(["process", "-a", "rot13", "--db", str(db)]) == 1


def test_a_hanging_program_is_ended_and_leaves_nothing(tmp_path):
    marker = f"61.{os.getpid()}"  # a sleep nobody else runs
    cost = driver.measure(["sleep", marker], timeout_s=1)
    assert cost.status == -9 and "timed out" in cost.stderr
    import time

    time.sleep(0.3)

    def cmdline(pid: str) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # a process of the busy machine that ended meanwhile
            return b""

    running = [p for p in os.listdir("/proc") if p.isdigit() and marker.encode() in cmdline(p)]
    assert running == []
