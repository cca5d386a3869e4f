"""Running the native driver `confcrypt-bench` (native/confcrypt/bench), which calls the
confcrypt library in-process and times each write and read, in a throwaway GnuPG home.

Driver contract (one JSON object on the driver's stdin, JSON lines on its stdout):
  in:  {"schemes": [...], "providers": [...], "n": [...], "runs": R, "dir": WORKDIR,
        "gnupghome": PATH, "recipient": FPR, "signer": FPR, "format": "ini",
        "compat_kdf": "thesis"|"sha512"|"sha256"|"sha1"}
  out: {"type": "info", ...}  versions (gpg, providers), the compat KDF per provider
       ("compat_kdf": {provider: "pbkdf2-sha1", ...}) and method facts, first
       {"type": "skip", "scheme", "provider", "reason"}
       {"type": "notes", "scheme", "provider", "notes": [...]}  what confcrypt says it used
       {"type": "heap", "scheme", "provider", "n", "direction", "allocs", "bytes",
        "peak_live_bytes"}  one untimed pass with the heap counter on
       {"type": "sample", "scheme", "provider", "n", "direction", "run", "ns"}
       {"type": "error", "message"}  then a non-zero exit (2: bad input)
       {"type": "done"}  last
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.scenarios.config.model import (
    COMPAT_KDFS,
    REQUIRED_ALGORITHMS,
    SCHEMES,
    THESIS_RUNS,
    ScenarioRun,
)

# ---- running the driver --------------------------------------------------------------------------


def find_driver(explicit: str | None = None) -> str:
    """The confcrypt-bench executable: --driver, $CRYPTOBENCH_CONFCRYPT_BENCH, next to this
    Python's interpreter (make setup installs it into .venv/bin), the build tree, or PATH."""
    env = os.environ.get("CRYPTOBENCH_CONFCRYPT_BENCH")
    for name, given in (("--driver", explicit), ("CRYPTOBENCH_CONFCRYPT_BENCH", env)):
        if given:
            if not (Path(given).is_file() and os.access(given, os.X_OK)):
                raise UserError(f"{name}={given}: not an executable file")
            return given
    repo = Path(__file__).resolve().parents[4]
    candidates = [
        str(Path(sys.executable).parent / "confcrypt-bench"),
        str(repo / "native" / "build" / "confcrypt-bench"),
        shutil.which("confcrypt-bench"),
    ]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    raise UserError("confcrypt-bench not found: run `make setup` (it builds and installs it)")


class GnupgHome:
    """A throwaway GnuPG home with one signing+encryption key, like the thesis's user key.

    The gpg-agent it starts is stopped on exit (gpgconf --kill all)."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="cryptobench-gpg-"))
        self.fingerprint = ""

    def __enter__(self) -> "GnupgHome":
        os.chmod(self.path, 0o700)
        gpg = shutil.which("gpg")
        if not gpg:
            shutil.rmtree(self.path, ignore_errors=True)
            raise UserError("gpg not installed: `make apt-config` installs it")
        env = {**os.environ, "GNUPGHOME": str(self.path)}
        uid = "cryptobench scenario <scenario@cryptobench.invalid>"
        try:
            cmd = [gpg, "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign"]
            subprocess.run([*cmd, "0"], env=env, check=True, capture_output=True)
            listing = subprocess.run(
                [gpg, "--batch", "--with-colons", "--list-secret-keys", uid],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            self.fingerprint = next(
                line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:")
            )
            subprocess.run(
                [
                    gpg,
                    "--batch",
                    "--passphrase",
                    "",
                    "--quick-add-key",
                    self.fingerprint,
                    "cv25519",
                ],
                env=env,
                check=True,
                capture_output=True,
            )
        except (subprocess.CalledProcessError, StopIteration) as e:
            self.__exit__()
            detail = getattr(e, "stderr", b"") or b""
            raise UserError(
                f"cannot create a GnuPG key for the scenario: {detail.decode(errors='replace')}"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        env = {**os.environ, "GNUPGHOME": str(self.path)}
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True, check=False)
        shutil.rmtree(self.path, ignore_errors=True)


def driver_spec(
    providers: list[str],
    n_values: Iterable[int],
    runs: int,
    workdir: Path,
    gnupg: GnupgHome,
    schemes: Sequence[str] = tuple(SCHEMES),
    compat_kdf: str = "thesis",
) -> dict[str, Any]:
    return {
        "schemes": list(schemes),
        "providers": providers,
        "n": list(n_values),
        "runs": runs,
        "dir": str(workdir),
        "gnupghome": str(gnupg.path),
        "recipient": gnupg.fingerprint,
        "signer": gnupg.fingerprint,
        "format": "ini",
        "compat_kdf": compat_kdf,
    }


def run_driver(
    driver: str,
    spec: dict[str, Any],
    on_message: Callable[[dict[str, Any]], None],
) -> None:
    """Runs the driver on `spec` and hands every JSON line it prints to on_message."""
    env = {**os.environ}
    if spec.get("gnupghome"):
        env["GNUPGHOME"] = spec["gnupghome"]
    try:
        proc = subprocess.Popen(
            [driver],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    except OSError as e:
        raise UserError(f"cannot start {driver}: {e.strerror}") from None
    with proc:
        try:
            _read_driver(proc, spec, on_message)
        except BaseException:
            # Interrupted, or a bad line: the driver must not go on measuring unattended.
            if proc.poll() is None:
                proc.kill()
            raise


def _read_driver(
    proc: subprocess.Popen, spec: dict[str, Any], on_message: Callable[[dict[str, Any]], None]
) -> None:
    assert proc.stdin and proc.stdout and proc.stderr
    proc.stdin.write(json.dumps(spec))
    proc.stdin.close()
    for line in proc.stdout:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise UserError(
                f"confcrypt-bench printed a line that is not JSON: {line[:200]}"
            ) from None
        if message.get("type") == "error":
            proc.wait()
            raise UserError(f"confcrypt-bench: {message.get('message', '?')}")
        on_message(message)
    stderr = proc.stderr.read()
    if proc.wait() != 0:
        raise UserError(
            f"confcrypt-bench exited with status {proc.returncode}: {stderr.strip()[-500:]}"
        )


def default_providers(provider_algorithms: dict[str, dict[str, Sequence[str]]]) -> list[str]:
    """Providers offering every REQUIRED_ALGORITHMS, from `cryptobench-native list`:
    provider -> algorithm -> operations (Capabilities.providers[p].algorithms)."""
    return [
        name
        for name, algorithms in provider_algorithms.items()
        if all(op in algorithms.get(alg, ()) for alg, op in REQUIRED_ALGORITHMS)
    ]


def run_scenario(
    providers: list[str],
    n_values: Sequence[int],
    runs: int = THESIS_RUNS,
    driver: str | None = None,
    workdir: Path | None = None,
    on_message: Callable[[ScenarioRun, dict[str, Any]], None] | None = None,
    schemes: Sequence[str] = tuple(SCHEMES),
    compat_kdf: str = "thesis",
) -> ScenarioRun:
    """Creates the GnuPG key and a work directory, runs the driver, returns what it reported.
    `workdir` is where the directory of configuration files is made (default: $TMPDIR): its file
    system is part of the measurement, since every write is fsync'ed. `compat_kdf`: PBKDF2's
    hash in the thesis's scheme (model.COMPAT_KDFS; "thesis": each library its variant's)."""
    if runs < 1:
        raise UserError("--runs must be at least 1")
    if compat_kdf not in COMPAT_KDFS:
        raise UserError(f"--compat-kdf {compat_kdf!r}: expected one of {', '.join(COMPAT_KDFS)}")
    if not n_values or any(n < 1 for n in n_values):
        raise UserError("--n: configuration sizes must be positive")
    exe = find_driver(driver)
    with (
        GnupgHome() as gnupg,
        tempfile.TemporaryDirectory(prefix="cryptobench-config-", dir=workdir) as d,
    ):
        spec = driver_spec(providers, n_values, runs, Path(d), gnupg, schemes, compat_kdf)
        public = {k: v for k, v in spec.items() if k not in ("dir", "gnupghome")}
        public["driver"] = exe
        public["workdir_fs"] = filesystem_of(Path(d))
        result = ScenarioRun(spec=public)

        def handle(message: dict[str, Any]) -> None:
            result.handle(message)
            if on_message:
                on_message(result, message)

        run_driver(exe, spec, handle)
    if not result.done:
        raise UserError("confcrypt-bench stopped before it was done")
    return result


def filesystem_of(path: Path) -> str:
    """The type of the file system holding `path` (ext4, tmpfs, ...), from /proc/self/mounts."""
    best, fs_type = "", "?"
    target = str(path.resolve())
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return fs_type
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        mount = parts[1].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, fs_type = mount, parts[2]
    return fs_type
