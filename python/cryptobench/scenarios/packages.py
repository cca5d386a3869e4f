"""The Debian packages a scenario drives: each scenario's are one part of the build (mk/PART.mk's
APT_PART), installed by `make apt-PART` or `make setup` — `make demo` installs none of them. A
scenario names the programs and files its run will use before it creates anything, and a run on
a machine that lacks some ends with one line naming the make target that installs them."""

import shutil
from collections.abc import Iterable
from pathlib import Path

from cryptobench.errors import UserError


def absent(programs: Iterable[str] = (), files: Iterable[Path] = ()) -> list[str]:
    """The programs (names on PATH or absolute paths) and files that are not there, in order."""
    gone = [p for p in dict.fromkeys(programs) if shutil.which(p) is None]
    return gone + [str(f) for f in dict.fromkeys(files) if not Path(f).exists()]


def require(part: str, programs: Iterable[str] = (), files: Iterable[Path] = ()) -> None:
    """Refuses the run when any of them is missing: `make apt-PART` installs them."""
    gone = absent(programs, files)
    if gone:
        raise UserError(
            f"{', '.join(gone)} not installed: `make apt-{part}` installs the {part} "
            "scenario's packages"
        )
