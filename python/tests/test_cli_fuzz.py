"""Generated bad input for both command lines (Hypothesis): argument vectors and small files for
every `cryptobench` command and for `confcrypt`. The property, for each:

* exit 0, or exactly one error line (`cryptobench: error: ...`, `confcrypt: ...`) and a non-zero
  exit — never a traceback (an exception out of `main`), never confcrypt's "internal error";
* never a hang: each call has a few seconds (SIGALRM in process, a timeout for confcrypt);
* nothing new or changed in its directory but the outputs it was told to write.

`make test` runs a bounded number of examples (profile "ci", about a minute);
`make fuzz-cli` runs the "fuzz" profile with many more (HYPOTHESIS_PROFILE=fuzz).

Commands that would start real measurements or a server (run, calibrate, fidelity, reproduce,
the scenarios, serve) are generated only with at least one argument that must be refused, so the
generator never starts a storage, channel or core run; the commands that only read or write the
store and files (runs, show, report, export, compare, recommend, import, push) are generated
freely."""

import contextlib
import io
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import store_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cryptobench.cli import main

# ci: about 30 s per property on an idle 2-core machine (the cryptobench one renders reports).
settings.register_profile(
    "ci",
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("CLI_FUZZ_EXAMPLES", "1500")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A hang is forever; these are generous because a report renders plots, which takes tens of
# seconds on a 2-core machine shared with other builds.
HANG_S = 90
CONFCRYPT_HANG_S = 20

# ---- files the arguments may name -------------------------------------------------------------

TEXTS = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.sampled_from(
        [
            '{"results":[{"command":"a","times":[0.1,0.2]}]}',
            '{"results":[{"command":"a","times":[NaN]}]}',
            '[{"algo":"AES-128","op":"encrypt","events":160,"nanos":5,"buf_size":16}]',
            "+H:16:64\n+F:0:aes-128-cbc:1000:2000\n",
            "+H:16:64\n+F:0:aes-128-cbc:1000\n",
            'algorithms = ["sha256"]\nsizes = [64]\n',
            'algorithms = ["pbkdf2-sha256"]\nsizes = [16]\n'
            "cost = {iterations = 9223372036854775807}",
            "x = " + "[" * 3000,
            "[" * 3000,
            "",
        ]
    ),
)
FILE_NAMES = ["in.json", "in.txt", "suite.toml", "out.html", "out.json", "x.db"]
SPECIAL = ["fifo", "dir", "/dev/null", "/dev/zero", "link", "missing/x.json", "", "-"]


def make_files(root: Path, contents: list[str]) -> None:
    for name, text in zip(FILE_NAMES, contents, strict=False):
        (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    os.mkfifo(root / "fifo")
    (root / "dir").mkdir()
    (root / "link").symlink_to(root / "in.txt")


# ---- argument vectors -------------------------------------------------------------------------

VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "-1",
            "1",
            "3",
            "1e400",
            "nan",
            "latest",
            "1,2",
            ",",
            "all",
            "quick",
            "json",
            "csv",
            "markdown",
            "hyperfine",
            "openssl-speed",
            "botan-speed",
            "128",
            "1K",
            "64KiB",
            "mysql://u@h/db",
            "postgresql://h:x/db",
            "r.db?x",
            "\udcff",
            "a" * 300,
        ]
    ),
    st.sampled_from(FILE_NAMES + SPECIAL),
    st.text(st.characters(blacklist_characters="\0"), max_size=12),  # argv holds no NUL
)
COMMON_OPTIONS = ["--db", "-o", "--output", "--report", "--json-out", "--format", "-f", "--note",
                  "--size", "--samples", "--level", "--run", "--to", "--json", "--quick",
                  "--runs", "--sizes", "--suite", "-p", "-a", "--bogus"]  # fmt: skip

# Read or write only the store and named files: generated freely.
FREE = ["runs", "show", "report", "export", "compare", "recommend", "import", "push"]
# Would measure something when valid: always carry an argument that must be refused.
GUARDED = {
    "run": ["--samples", "0"],
    "list": ["--bogus"],
    "calibrate": ["--db", ""],
    "fidelity": ["--rounds", "0"],
    "reproduce": ["--db", ""],
    "serve": ["--port", "0"],
    "storage": ["--systems", ""],
    "channel": ["--window", "0"],
    "process": ["--runs", "0"],
    "leaks": ["--rounds", "0"],
    "scenario config": ["--runs", "0"],
    "scenario storage": ["--size", ""],
    "scenario channel": ["--parts", ""],
    "scenario process": ["--sizes", ""],
    "scenario leaks": ["--rounds", "0"],
}


@st.composite
def argv_for(draw, command: str) -> list[str]:
    tokens: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            tokens += [draw(st.sampled_from(COMMON_OPTIONS)), draw(VALUES)]
        else:
            tokens.append(draw(VALUES))
    if command in GUARDED:
        tokens = [t for t in tokens if t != "--"]  # after "--" the refused option is a name
        bad = GUARDED[command]
        at = draw(st.integers(0, len(tokens)))
        tokens[at:at] = bad
    return [*command.split(), *tokens]


COMMANDS = st.sampled_from(FREE + list(GUARDED))


class Hang(BaseException):
    pass


def snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for p in root.rglob("*"):
        st_ = p.lstat()
        out[str(p.relative_to(root))] = (st_.st_mode, st_.st_size, st_.st_mtime_ns, st_.st_ino)
    return out


def named_outputs(argv: list[str]) -> set[str]:
    """What the command may write: its -o/--report/--json-out, push's --to, the store of an import
    or push (and SQLite's journal files beside it)."""
    out = set()
    for i, tok in enumerate(argv[:-1]):
        if tok in ("-o", "--output", "--report", "--json-out", "--to", "--db"):
            out.add(argv[i + 1])
    if argv and argv[0] == "report":
        out.add("report.html")
    out.add("r.db")
    out |= {f"{n}{s}" for n in list(out) for s in ("-journal", "-wal", "-shm")}
    # A new store's directory is made with it (push --to DIR/x.db).
    return out | {str(p) for n in list(out) for p in Path(n).parents if str(p) != "."}


@pytest.fixture(scope="module")
def seeded_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("store") / "r.db"
    timings = {("alpha", "default", "hash", "sha256", 64): 100.0}
    store_run(path, timings)
    store_run(path, {k: v * 1.1 for k, v in timings.items()}, seed=8)
    return path


@given(command=COMMANDS, data=st.data(), contents=st.lists(TEXTS, min_size=6, max_size=6))
def test_cryptobench_never_tracebacks_hangs_or_clobbers(
    command, data, contents, seeded_store, tmp_path_factory
):
    root = tmp_path_factory.mktemp("fuzz")
    make_files(root, contents)
    shutil.copy(seeded_store, root / "r.db")
    argv = data.draw(argv_for(command))
    before = snapshot(root)
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    out, err = io.StringIO(), io.StringIO()

    def on_alarm(*_):
        raise Hang(f"cryptobench {argv} ran longer than {HANG_S} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        os.chdir(root)
        os.environ["CRYPTOBENCH_DB"] = str(root / "r.db")
        os.environ["XDG_DATA_HOME"] = str(root / "xdg")
        signal.alarm(HANG_S)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as e:
                status = e.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
    lines = err.getvalue().strip().splitlines()
    if status not in (0, None):
        assert len(lines) == 1, (argv, err.getvalue())
        assert lines[0].startswith("cryptobench: error: "), (argv, lines)
    else:
        assert not any("error" in line for line in lines), (argv, lines)
        assert command in FREE, f"{argv} was accepted: it would have measured"
    after = snapshot(root)
    allowed = named_outputs(argv)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    changed = {p for p in changed if p not in allowed and not p.startswith("xdg")}
    assert not changed, (argv, sorted(changed))
    assert (root / "fifo").is_fifo() and (root / "link").is_symlink(), argv


# ---- confcrypt --------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
CONFCRYPT = shutil.which("confcrypt", path=str(REPO / ".venv/bin")) or next(
    (str(p) for p in [REPO / "native/build/confcrypt/confcrypt"] if p.exists()), None
)
# The exit codes docs/confcrypt.md lists, without 1 (internal: a bug) and 127 (exec's command).
CONFCRYPT_EXITS = set(range(2, 23))

CC_COMMANDS = ["init", "set", "get", "unset", "show", "rotate", "recipients", "exec", "encrypt",
               "decrypt", "migrate", "providers", "help", "frob"]  # fmt: skip
CC_OPTIONS = ["--provider", "--format", "--aead", "--passphrase-file", "--key-file", "--signer",
              "--recipient", "-r", "--sign-with", "--gpg-timeout", "--encrypt-regex",
              "--master-password-file", "--prefix", "--encrypt", "--plain", "--compat",
              "--unprotected", "--no-rotate", "--verbose", "--bogus"]  # fmt: skip
CC_FILES = ["app.ini", "app.json", "app.env", "key", "pass", "fifo", "dir", "/dev/zero",
            "missing.ini", "link"]  # fmt: skip
CC_VALUES = st.one_of(
    st.sampled_from(CC_FILES),
    st.sampled_from(
        [
            "",
            "-",
            "db/password",
            "a/b/c",
            "keyfile:key",
            "passphrase",
            "gpg:00",
            "openssl",
            "botan",
            "ini",
            "json",
            "dotenv",
            "chacha20-poly1305",
            "0",
            "1e9",
            "list",
            "add",
            "remove",
            "(",
            ".*",
            "ENC:cc1:x",
            "--",
        ]
    ),
    # A real argv holds no NUL and no lone surrogate (subprocess cannot encode one).
    st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=10),
)
CC_TEXTS = st.one_of(
    st.text(max_size=300),
    st.sampled_from(
        [
            "[db]\nhost = h\n#@META crypto/encrypt = 1\npassword = p\n",
            "#@CONFCRYPT cc2 id=x aead=aes-256-gcm keys=1 protected=0 mac=y\n[a]\nb = c\n",
            '{"a": {"b": 1}, "#confcrypt": "cc2"}',
            "export A=1\nB='x'\n",
            "[a]\nb = ENC:cc1:abc\n",
        ]
    ),
)


@pytest.mark.skipif(CONFCRYPT is None, reason="confcrypt not built (make setup)")
@given(
    command=st.sampled_from(CC_COMMANDS),
    tokens=st.lists(st.one_of(st.sampled_from(CC_OPTIONS), CC_VALUES), max_size=6),
    contents=st.lists(CC_TEXTS, min_size=3, max_size=3),
    stdin=st.binary(max_size=100),
)
def test_confcrypt_never_crashes_hangs_or_touches_other_files(
    command, tokens, contents, stdin, tmp_path_factory
):
    root = tmp_path_factory.mktemp("cc")
    for name, text in zip(["app.ini", "app.json", "app.env"], contents, strict=True):
        (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    (root / "key").write_bytes(bytes(range(32)))
    (root / "pass").write_text("secret\n")
    os.mkfifo(root / "fifo")
    (root / "dir").mkdir()
    (root / "link").symlink_to(root / "app.ini")
    argv = [command, *tokens]
    if command == "exec" and "--" not in tokens:
        argv += ["--", "true"]
    elif command == "exec":
        argv = [*argv[: argv.index("--")], "--", "true"]  # never run a generated command
    before = snapshot(root)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "GNUPGHOME": str(root / "gnupg-none"),
        "CONFCRYPT_CONFIG": "/nonexistent",
    }
    try:
        r = subprocess.run(
            [CONFCRYPT, "--no-prompt", "--gpg-timeout", "5", *argv],
            input=stdin,
            capture_output=True,
            cwd=root,
            env=env,
            timeout=CONFCRYPT_HANG_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"confcrypt {argv} ran longer than {CONFCRYPT_HANG_S} s")
    err = r.stderr.decode("utf-8", "replace")
    lines = err.strip().splitlines()
    if r.returncode != 0:
        assert r.returncode in CONFCRYPT_EXITS, (argv, r.returncode, err)
        assert len(lines) == 1 and lines[0].startswith("confcrypt: "), (argv, err)
        assert "internal error" not in err, (argv, err)
    # A file named on the command line may change (the FILE, a created key file); nothing else.
    named = {t for t in argv if not t.startswith("-")} | {
        t.split(":", 1)[1] for t in argv if t.startswith("keyfile:")
    }
    after = snapshot(root)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    changed = {p for p in changed if p not in named and not p.startswith("gnupg-none")}
    if "link" in named:
        changed.discard("app.ini")  # written through the link
    assert not changed, (argv, sorted(changed))
