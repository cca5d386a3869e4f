"""Writing output files: all or nothing."""

import contextlib
import os
import tempfile
from pathlib import Path

from cryptobench.errors import UserError


def write_file(path: Path, text: str) -> None:
    """Writes all or nothing: a temporary file next to the target, renamed over it."""
    path = Path(path)
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
