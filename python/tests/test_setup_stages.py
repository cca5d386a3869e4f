"""Setup in stages (issue 31): `make demo` installs only what the default suite and its report
need, and a scenario run without its packages ends with one line naming the make target that
installs them, before it creates anything. The Makefile is read with `make -n`, which prints
what would be installed without running apt or building anything."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import error_of

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str) -> str:
    done = subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def variable(name: str) -> list[str]:
    """A Makefile variable's words, after every mk/*.mk has added to it."""
    return make("-s", "--eval", "print-%: ; @echo $($*)", f"print-{name}").split()


def installs(*goal: str) -> set[str]:
    """The Debian packages `make -n GOAL` would hand to mk/apt-install.sh."""
    out = make("-n", *goal)
    found = set()
    for line in out.splitlines():
        m = re.search(r"mk/apt-install\.sh \S+ (.*)$", line)
        if m:
            found.update(m.group(1).split())
    return found


def parts() -> list[str]:
    """Every part with its own packages (APT_PART in the Makefile or a mk/*.mk)."""
    names = {"build", "libs", "test"}
    for mk in (ROOT / "mk").glob("*.mk"):
        names.update(re.findall(r"^APT_(\w+) :?=", mk.read_text(), re.M))
    return sorted(names)


def test_the_demo_installs_no_package_only_a_scenario_or_a_test_needs():
    demo = installs("demo")
    wanted = set(variable("APT_build")) | set(variable("APT_libs"))
    assert demo == wanted
    only_others = set(variable("APT_PACKAGES")) - wanted
    assert only_others, "no package beyond the demo's: the parts lost theirs"
    assert not demo & only_others
    # the heavy ones the issue names, by name, in case a part lists one twice
    for heavy in ("chromium", "postgresql", "clang", "openvpn", "gocryptfs", "qemu-utils"):
        assert heavy not in demo
    # ... and still every library the native runner measures
    for lib in ("libssl-dev", "libgcrypt20-dev", "libbotan-2-dev", "libcrypto++-dev"):
        assert lib in demo


def test_the_demo_builds_without_the_test_tools():
    out = make("-n", "demo")
    assert "-DCB_BUILD_TESTS=OFF" in out
    assert "[dev]" not in out
    for runner in ("go", "python", "rust"):
        assert f"runners/{runner}/build.sh" in out
    assert "runners/jvm/build.sh" not in out  # the demo does not wait for the JVM's build


def test_the_demo_builds_only_what_its_suite_measures_and_setup_builds_the_rest():
    demo = make("-n", "demo")
    # no scenario programs, no second (soft) Rust build and no Rust fidelity bench (criterion);
    # the demo suite, then the command of the default one
    assert "-DCB_SCENARIO_TOOLS=OFF" in demo
    assert "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" in demo  # same -O2, no -g
    assert "RUST_SOFT=0 RUST_FULL=0" in demo
    assert "run --suite demo" in demo and "--suite default" in demo
    setup = make("-n", "setup")
    assert "-DCB_SCENARIO_TOOLS=ON" in setup
    assert "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g -DNDEBUG" in setup
    assert "RUST_SOFT=1 RUST_FULL=1" in setup
    assert "run --suite default" in make("-n", "demo", "SUITE=default")


def test_the_demo_builds_the_runners_unniced_and_setup_keeps_them_niced():
    """On a bare machine the demo's runner builds run beside the un-niced native build with
    nothing else to yield to; `make setup` (helpers, CI) keeps them below everything else."""
    for goal, nice in (("demo", "0"), ("setup", "10")):
        lines = make("-n", goal).splitlines()
        for runner in ("go", "rust"):
            build = [line for line in lines if f"runners/{runner}/build.sh" in line]
            assert build, f"make {goal} builds no {runner} runner"
            assert all(f"RUNNER_NICE={nice} " in line for line in build), (goal, build)


def test_setup_and_test_still_install_every_part():
    everything = set(variable("APT_PACKAGES"))
    assert installs("setup") >= everything
    assert installs("test") >= everything
    assert "-DCB_BUILD_TESTS=ON" in make("-n", "test")


def test_each_part_has_its_own_install_target():
    for part in parts():
        packages = set(variable(f"APT_{part}"))
        assert packages and installs(f"apt-{part}") >= packages, part
    for part in ("channel", "storage", "process", "config"):
        assert part in parts()


def test_an_unknown_part_is_refused():
    done = subprocess.run(
        ["make", "apt-nosuchpart"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "no part 'nosuchpart'" in done.stderr


@pytest.mark.parametrize(
    ("argv", "target", "program"),
    [
        (["storage", "--systems", "gocryptfs", "--quick"], "apt-storage", "gocryptfs"),
        (["channel", "--parts", "bulk", "--quick"], "apt-channel", "iperf3"),
        (["scenario", "config", "--quick"], "apt-config", "gpg"),
    ],
)
def test_a_scenario_without_its_packages_names_the_target(
    capsys, monkeypatch, tmp_path, argv, target, program
):
    """Run on a PATH without the scenario's programs: one line, the make target, no run stored
    and no store created."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    db = tmp_path / "results.db"
    message = error_of(capsys, *argv, "--db", str(db))
    assert f"`make {target}`" in message and program in message
    assert "\n" not in message.strip()
    assert not db.exists()
