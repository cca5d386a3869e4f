"""The Rust runner's cargo target directory is shared by every checkout on the machine
(runners/rust/shared-target.sh): each checkout must still install a runner built from its own
sources. Two tiny crates of one name stand in for two checkouts of the runner; they are built
the way runners/rust/build.sh builds it (lock, claim, `cargo build --release --locked`, copy the
binary from the target directory), with the real cargo, in a few seconds."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "runners" / "rust" / "shared-target.sh"


def find_cargo() -> str | None:
    recorded = ROOT / "runners" / "rust" / "build" / "cargo-path"  # build.sh's toolchain
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    candidates = [recorded.read_text().strip()] if recorded.exists() else []
    candidates += [shutil.which("cargo") or "", str(home / "bin" / "cargo")]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


CARGO = find_cargo()
pytestmark = pytest.mark.skipif(CARGO is None, reason="no cargo (the Rust runner is absent too)")

# What build.sh does, in its order: lock the target directory, claim the crate's artifacts for
# this checkout, build, copy the binary cargo leaves in <target>/release.
BUILD = """. "$1" && target_lock "$2" && target_claim "$3" "$2" twin &&
CARGO_TARGET_DIR="$2" "$3" build --release --locked && install -m 755 "$2/release/twin" "$4"
"""


def checkout(root: Path, name: str) -> Path:
    """A checkout of the crate `twin` whose binary prints the checkout's name."""
    src = root / name
    (src / "src").mkdir(parents=True)
    (src / "Cargo.toml").write_text(
        '[package]\nname = "twin"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (src / "src" / "main.rs").write_text(f'fn main() {{ println!("built from {name}"); }}\n')
    subprocess.run([CARGO, "generate-lockfile", "--offline"], cwd=src, check=True, timeout=60)
    return src


def build(src: Path, target: Path) -> tuple[str, str]:
    """Builds and installs the checkout's binary; what the installed binary prints, and cargo's
    messages."""
    installed = src / "installed"
    done = subprocess.run(
        ["bash", "-c", BUILD, "build", SHARED, target, CARGO, installed],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    says = subprocess.run([installed], capture_output=True, text=True, timeout=30, check=True)
    return says.stdout.strip(), done.stderr


def test_each_checkout_installs_a_binary_built_from_its_own_sources(tmp_path):
    a, b = checkout(tmp_path, "a"), checkout(tmp_path, "b")
    target = tmp_path / "shared-target"
    assert build(a, target)[0] == "built from a"
    # b's sources are older than a's build: without the claim cargo finds b fresh and b gets a's
    assert build(b, target)[0] == "built from b"
    assert build(a, target)[0] == "built from a"
    assert (target / ".checkout-of-twin").read_text().strip() == str(a.resolve())
    # the same checkout again: its own build is reused, nothing compiled
    says, messages = build(a, target)
    assert says == "built from a" and "Compiling" not in messages
