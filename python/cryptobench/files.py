"""Files the user names: inputs opened as files with a bound, outputs written all or nothing.

One rule for every output path (report/export -o, run and scenario --report/--json-out): a
path that exists and is not a regular file (a device, a FIFO, a symlink, a directory) is
refused, and so is a path whose directory does not exist — checked before any work, so a run
never measures for an hour and then fails to write. One rule for every input file (import,
suite, scenario configuration): it must be a regular file, opened without blocking on a FIFO,
and read with a size bound."""

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from cryptobench.errors import UserError

# The largest input file read whole (a suite, an imported result file).
MAX_INPUT_BYTES = 64 << 20


def check_output(path: Path | None, what: str = "output") -> None:
    """Refuses, before any work, an output path that cannot be written as a new regular file
    or that would replace something other than a regular file."""
    if path is None:
        return
    path = Path(path)
    if not str(path) or path.name in ("", ".", ".."):
        raise UserError(f"{what} {str(path)!r}: not a file name")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UserError(f"{what} {path}: {e.strerror}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = _kind(st.st_mode)
        raise UserError(f"{what} {path}: is {kind}, not a regular file; refusing to replace it")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"{what} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{what} {path}: the directory {parent} is not writable")


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def write_file(path: Path, text: str) -> None:
    """Writes all or nothing: a temporary file next to the target, renamed over it. Never
    replaces anything but a regular file (check_output)."""
    path = Path(path)
    check_output(path)
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            dir=path.parent if str(path.parent) else ".",
            prefix=f".{path.name}.",
            delete=False,
        ) as f:
            tmp = f.name
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would have made it, not the temp file's 0600
        os.replace(tmp, path)
    except OSError as e:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise UserError(f"cannot write {path}: {e.strerror}") from None


def read_input(path: Path, what: str = "", limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file, at most `limit` of them. A FIFO, device or directory is
    refused at once (opened non-blocking, so a FIFO without a writer cannot hang us)."""
    path = Path(path)
    label = f"{what} {path}" if what else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise UserError(f"cannot read {label}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"cannot read {label}: is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise UserError(f"cannot read {label}: larger than {limit >> 20} MiB")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UserError(f"cannot read {label}: larger than {limit >> 20} MiB")
        return b"".join(chunks)
    except OSError as e:
        raise UserError(f"cannot read {label}: {e.strerror}") from None
    finally:
        os.close(fd)


def read_text(path: Path, what: str = "", limit: int = MAX_INPUT_BYTES) -> str:
    """read_input as UTF-8 text; a file that is not is refused with one line."""
    data = read_input(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        label = f"{what} {path}" if what else str(path)
        raise UserError(f"cannot read {label}: not UTF-8 text (byte {e.start})") from None
