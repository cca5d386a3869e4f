"""The second hardening round (issue 25), one reproducer per finding: nothing clobbered (output
paths), nothing started by mistake (empty and zero option values), nothing half-stored (import),
nothing read forever (FIFOs, devices), no traceback, no nonsense accepted."""

import os
import shutil
import stat
import subprocess

import pytest
from conftest import error_of, run_cli

from cryptobench import plan
from cryptobench.cli import build_parser, main
from cryptobench.errors import UserError
from cryptobench.files import write_file
from cryptobench.store import Store


def fifo(path):
    os.mkfifo(path)
    return path


# ---- 1. output paths never replace what is not a regular file ---------------------------------


def special_outputs(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("keep me\n")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    out = {"FIFO": fifo(tmp_path / "pipe.html"), "symbolic link": link}
    try:
        dev = tmp_path / "null"
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        out["device"] = dev
    except PermissionError:
        pass
    return out, target


def test_report_and_export_refuse_a_device_fifo_or_symlink_as_output(capsys, tmp_path, db):
    outputs, target = special_outputs(tmp_path)
    for kind, path in outputs.items():
        before = os.lstat(path)
        for argv in (
            ["report", "--db", db, "-o", str(path)],
            ["export", "--db", db, "-f", "json", "-o", str(path)],
        ):
            assert kind in error_of(capsys, *argv)
            after = os.lstat(path)
            assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert target.read_text() == "keep me\n"
    with pytest.raises(UserError, match="FIFO"):
        write_file(outputs["FIFO"], "x")


def test_run_outputs_are_checked_before_anything_is_planned(capsys, tmp_path):
    missing = tmp_path / "no-such-dir" / "out.json"
    msg = error_of(capsys, "run", "--suite", "quick", "--dry-run", "--json-out", str(missing))
    assert "does not exist" in msg
    msg = error_of(capsys, "run", "--suite", "quick", "--dry-run", "--report", str(tmp_path))
    assert "directory" in msg
    assert not (tmp_path / "default-results.db").exists()


# ---- 2. an empty or zero value is an error, never the default ---------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["storage", "--systems", ""],
        ["channel", "--parts", ""],
        ["channel", "--window", "0"],
        ["channel", "--window", "-1"],
        ["channel", "--runs", "0"],
        ["storage", "--runs", "0"],
        ["process", "--runs", "-3"],
        ["report", "--db", ""],
        ["run", "--json-out", ""],
        ["run", "--sizes", " "],
    ],
)
def test_empty_zero_or_negative_values_are_usage_errors(argv, capsys):
    # Parsing alone: on a cryptobench without the rule these start real runs, so never main().
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cryptobench: error: argument ")


def test_an_absent_option_still_means_the_default_and_an_empty_note_is_a_note():
    args = build_parser().parse_args(["run", "--note", ""])
    assert args.note == "" and args.sizes is None


# ---- 5. import checks every figure before it stores, in one transaction -------------------------

BAD_IMPORTS = [
    ("hyperfine", '{"results":[{"command":"a","times":[NaN]}]}', "not a number"),
    ("hyperfine", '{"results":[{"command":"a","times":[Infinity]}]}', "not a number"),
    ("hyperfine", '{"results":[{"command":"a","times":[1e400]}]}', "finite"),
    ("hyperfine", '{"results":[{"command":"a","times":[-1]}]}', "above 0"),
    ("hyperfine", '{"results":[{"command":"a","times":[0]}]}', "above 0"),
    ("hyperfine", '{"results":[{"command":"a","times":[]}]}', "no measurements"),
    ("hyperfine", '{"results":[{"command":"a","times":[true]}]}', "not a number"),
    ("hyperfine", '{"results":[{"command":"a","times":["0.1"]}]}', "not a number"),
    ("hyperfine", '{"results":[{"command":7,"times":[0.1]}]}', "command"),
    (
        "hyperfine",
        '{"results":[{"command":"a","times":[0.1]},{"command":"a","times":[0.2]}]}',
        "twice",
    ),
    ("hyperfine", "[" * 100_000, "not JSON"),
    ("hyperfine", '{"results":[{"command":"a","times":[0.1]}', "not JSON"),
    (
        "botan-speed",
        '[{"algo":"AES-128","op":"encrypt","events":1e400,"nanos":5,"buf_size":16}]',
        "finite",
    ),
    (
        "botan-speed",
        '[{"algo":"AES-128","op":"encrypt","events":16,"nanos":5,'
        '"buf_size":12345678901234567890123456}]',
        "size",
    ),
    (
        "botan-speed",
        '[{"algo":"AES-128","op":"encrypt","events":16,"nanos":"5","buf_size":16}]',
        "not a number",
    ),
    ("openssl-speed", "+H:16:64\n+F:0:aes-128-cbc:1000\n", "cannot read the line"),
    ("openssl-speed", "+H:16\n+F:0:aes-128-cbc:-5\n", "above 0"),
    ("openssl-speed", "+H:16\n+F:0:aes-128-cbc:nan\n", "above 0"),
    ("openssl-speed", "+F2:0:2048:-1:0.001\n", "above 0"),
]


@pytest.mark.parametrize(("fmt", "text", "words"), BAD_IMPORTS)
def test_import_refuses_impossible_figures_and_stores_nothing(capsys, tmp_path, fmt, text, words):
    path = tmp_path / "in.txt"
    path.write_text(text)
    dbfile = tmp_path / "r.db"
    assert words in error_of(capsys, "import", str(path), "-f", fmt, "--db", str(dbfile))
    if dbfile.exists():
        assert Store.open(dbfile).runs() == []


def test_import_refuses_a_note_that_is_not_text(capsys, tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"results":[{"command":"a","times":[0.1]}]}')
    msg = error_of(capsys, "import", str(path), "-f", "hyperfine", "--note", "a\udcff")
    assert "--note" in msg
    assert not (tmp_path / "default-results.db").exists()


def test_an_imported_hyperfine_run_has_a_report(capsys, tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"results":[{"command":"sleep 0.1","times":[0.1, 0.11, 0.12]}]}')
    dbfile = str(tmp_path / "r.db")
    assert main(["import", str(path), "-f", "hyperfine", "--db", dbfile]) == 0
    out = tmp_path / "report.html"
    assert main(["report", "--db", dbfile, "-o", str(out)]) == 0
    assert "sleep 0.1" in out.read_text()


# ---- 7. inputs that are not regular files are refused at once ---------------------------------


def test_fifo_device_and_directory_inputs_are_refused_at_once(capsys, tmp_path):
    pipe = str(fifo(tmp_path / "pipe.toml"))
    assert "FIFO" in error_of(capsys, "run", "--suite", pipe, "--dry-run")
    assert "FIFO" in error_of(capsys, "import", pipe, "-f", "hyperfine")
    assert "device" in error_of(capsys, "run", "--suite", "/dev/zero", "--dry-run")
    assert "directory" in error_of(capsys, "import", str(tmp_path), "-f", "hyperfine")
    from cryptobench.files import read_input  # new in this round

    with pytest.raises(UserError, match="FIFO"):
        read_input(pipe)


# ---- 8. tracebacks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://user@host:notaport/db",
        "postgresql://[::1/db",
        "postgresql://" + "h" * 300 + "/db",
        "postgresql://" + "a" * 70 + ".example/db",
    ],
)
def test_malformed_postgresql_urls_are_one_line(capsys, url):
    assert "database URL" in error_of(capsys, "runs", "--db", url)


def test_deeply_nested_suite_toml_is_one_line(capsys, tmp_path):
    suite = tmp_path / "deep.toml"
    suite.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in error_of(capsys, "run", "--suite", str(suite), "--dry-run")


def test_a_store_with_text_that_is_not_utf8_is_one_line(capsys, tmp_path, db):
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("UPDATE runs SET note = CAST(x'fffe' AS TEXT)")
    con.commit()
    con.close()
    assert "UTF-8" in error_of(capsys, "runs", "--db", db)


@pytest.mark.parametrize("command", [["storage"], ["scenario", "config"], ["process"]])
def test_a_missing_workdir_is_refused_before_any_run(capsys, tmp_path, command):
    dbfile = tmp_path / "r.db"
    missing = str(tmp_path / "nowhere")
    argv = [*command, "--workdir", missing, "--db", str(dbfile)]
    assert "--workdir" in error_of(capsys, *argv)
    assert not dbfile.exists()


# ---- 9. nonsense accepted ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cost", "words"),
    [
        ("{ iterations = 9223372036854775807 }", "iterations"),
        ("{ N = 4611686018427387904 }", "'N' up to"),
        ("{ N = 1048576, r = 64 }", "128 × N × r"),
        ("{ m = 1073741824 }", "'m' up to"),
    ],
)
def test_giant_kdf_costs_are_refused_when_planned(pk_caps, cost, words):
    text = f"""
        algorithms = ["pbkdf2-sha256", "scrypt", "argon2id"]
        sizes = [16]
        cost = {cost}
    """
    with pytest.raises(UserError, match=words):
        plan.expand(plan.parse_suite(text, "t", "t"), pk_caps)


@pytest.mark.parametrize("target", ["mysql://u@h/db", "sqlite:///tmp/x.db", "http://example/x"])
def test_foreign_store_urls_are_refused(capsys, tmp_path, db, target, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "not supported" in error_of(capsys, "runs", "--db", target)
    assert "not supported" in error_of(capsys, "push", "1", "--db", db, "--to", target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]


def test_a_store_name_with_a_query_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "'?'" in error_of(capsys, "runs", "--db", "r.db?mode=ro")


# ---- 10. errors found only after the work -----------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root")
def test_import_into_a_read_only_store_is_one_line(tmp_path, db):
    ro = tmp_path / "ro"
    ro.mkdir()
    shutil.copy(db, ro / "r.db")
    data = tmp_path / "in.json"
    data.write_text('{"results":[{"command":"a","times":[0.1]}]}')
    import sys

    script = (
        f"mount --bind {ro} {ro} && mount -o remount,ro,bind {ro} && "
        f"{sys.executable} -m cryptobench import {data} -f hyperfine --db {ro / 'r.db'}"
    )
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cryptobench: error: database"), r.stderr
    assert "INSERT" not in r.stderr


def test_a_line_break_in_an_argument_stays_one_line(capsys, tmp_path):
    # Found by test_cli_fuzz.py: the message echoed the argument with its line break.
    assert "\\r" in error_of(capsys, "runs", "\r")
    assert "a\\nb" in error_of(capsys, "report", "-o", str(tmp_path / "a\nb" / "x.html"))


def test_the_cli_as_a_process_prints_one_line(tmp_path):
    r = run_cli("report", "-o", "/dev/null", "--db", str(tmp_path / "none.db"), timeout=60)
    assert r.returncode == 1
    assert r.stderr.startswith("cryptobench: error: -o/--output /dev/null: is a device")
