"""`cryptobench leaks --method taint`: secret flow under valgrind's memcheck (the ctgrind /
TIMECOP technique, docs/leaks.md). Each (provider, variant, algorithm) gets one runner process
under memcheck; its `taint` requests (docs/protocol.md) mark the key -- and a message to encrypt
-- undefined, so every branch or memory index that depends on them is a memcheck error. The
errors are read from valgrind's XML, attributed to the operation between the runner's two client
messages, and filtered by the reviewed suppressions (taint.supp, beside this file)."""

import os
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptobench.figures import Figure, failed
from cryptobench.gate.material import ByteStream, case_params
from cryptobench.gate.vectors import Vectors
from cryptobench.runner import RunnerFailure
from cryptobench.runner.process import ServeProcess
from cryptobench.scenarios.leaks.classes import AEAD_SIZE, flip

SUPPRESSIONS = Path(__file__).with_name("taint.supp")
# Under memcheck a runner starts in ~20 s on this machine (it loads every library) and one
# software AES-GCM operation with hundreds of reported sites takes seconds more.
TIMEOUT_S = 900.0
QUIT_WAIT_S = 120.0
# memcheck's error kinds that are a secret-dependent site: a branch, and a memory address (a
# table index) computed from the secret.
SITE_KINDS = {"UninitCondition": "branch", "UninitValue": "memory index"}
SECRET_ORIGIN = "client request"
METRIC = "secret-dependent sites"
# A "verdict:" suppression (taint.supp) stands for the branches on a whole tag's outcome: at most
# two per decryption (OpenSSL 3.5 tests the outcome twice on a valid tag), where a byte-by-byte
# comparison loop over a 16-byte tag would be used 16 times. The test decrypts twice.
VERDICT_PREFIX = "verdict:"
DECRYPTIONS = 2
VERDICT_USES = 2 * DECRYPTIONS


def valgrind_args(xml_file: Path) -> list[str]:
    return [
        "valgrind",
        "--tool=memcheck",
        "--xml=yes",
        f"--xml-file={xml_file}",
        "--track-origins=yes",
        "--leak-check=no",
        "--error-limit=no",
        "--num-callers=24",
        # The Rust runner re-executes its build with RustCrypto's portable backends for the
        # variant rustcrypto/soft (runners/rust/src/variants.rs): memcheck follows it there.
        "--trace-children=yes",
        "--gen-suppressions=all",
        f"--suppressions={SUPPRESSIONS}",
    ]


def valgrind_version() -> str:
    try:
        out = subprocess.run(
            ["valgrind", "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


@dataclass(frozen=True)
class Frame:
    fn: str
    obj: str
    file: str
    line: int

    def label(self) -> str:
        where = f"{self.file}:{self.line}" if self.file else Path(self.obj).name
        return f"{self.fn or '?'} ({where})"


@dataclass
class Site:
    """One memcheck error (one distinct stack) inside an operation."""

    kind: str  # branch | memory index
    what: str
    operation: str
    frames: list[Frame]
    secret_origin: bool
    suppression: str = ""

    def top(self) -> str:
        """The innermost frame with a name, and the unnamed frames above it (a library's static
        functions have no symbol in Debian's stripped builds)."""
        for unnamed, f in enumerate(self.frames):
            if f.fn:
                lib = Path(f.obj).name
                inner = f"{unnamed} unnamed frame(s) in {lib} called by " if unnamed else ""
                return inner + f.label()
        return Path(self.frames[0].obj).name if self.frames else "?"


@dataclass
class Parsed:
    sites: list[Site] = field(default_factory=list)
    suppressed: dict[str, int] = field(default_factory=dict)
    outside: int = 0  # errors before or after any operation (not the secret's doing)


def _frames(stack: ET.Element | None) -> list[Frame]:
    if stack is None:
        return []
    return [
        Frame(
            f.findtext("fn") or "",
            f.findtext("obj") or "",
            f.findtext("file") or "",
            int(f.findtext("line") or 0),
        )
        for f in stack.findall("frame")
    ]


def parse_xml(text: str) -> Parsed:
    """valgrind's XML (its protocol 4): errors in the order they happened, each attributed to
    the operation whose begin/end client messages enclose it."""
    root = ET.fromstring(text)
    out = Parsed()
    current = ""
    for el in root:
        if el.tag == "clientmsg":
            words = (el.findtext("text") or "").split()
            if len(words) == 3 and words[0] == "cryptobench-taint":
                current = words[2] if words[1] == "begin" else ""
        elif el.tag == "error":
            kind = el.findtext("kind") or ""
            if kind not in SITE_KINDS:
                continue
            if not current:
                out.outside += 1
                continue
            aux = " ".join(a.text or "" for a in el.findall("auxwhat"))
            out.sites.append(
                Site(
                    SITE_KINDS[kind],
                    el.findtext("what") or el.findtext("xwhat/text") or "",
                    current,
                    _frames(el.find("stack")),
                    # No origin recorded: memcheck lost it on the way (through vector
                    # operations); inside the operation only the secret was undefined.
                    SECRET_ORIGIN in aux or "created by" not in aux,
                    el.findtext("suppression/rawtext") or "",
                )
            )
        elif el.tag == "suppcounts":
            for pair in el.findall("pair"):
                out.suppressed[pair.findtext("name") or "?"] = int(pair.findtext("count") or 0)
    return out


@dataclass(frozen=True)
class Slot:
    provider: str
    variant: str
    exe: Path
    env: dict[str, str | None]

    @property
    def label(self) -> str:
        return self.provider if self.variant == "default" else f"{self.provider}/{self.variant}"


@dataclass
class Cell:
    slot: Slot
    algorithm: str
    parsed: Parsed = field(default_factory=Parsed)
    outcomes: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    problem: str = ""


def _environment(slot: Slot) -> dict[str, str]:
    # The variant's switches set before valgrind starts: the runner would otherwise re-execute
    # itself through /proc/self/exe, which under valgrind is valgrind's own tool.
    env = dict(os.environ)
    for key, value in slot.env.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _request(proc: ServeProcess, cell: Cell, op: str, data: bytes, secret: bool, params) -> dict:
    reply = proc.request(
        {
            "cmd": "taint",
            "case": {
                "id": op,
                "provider": cell.slot.provider,
                "variant": cell.slot.variant,
                "operation": op.split("-")[0],
                "algorithm": cell.algorithm,
                "size": len(data),
            },
            "params": params,
            "input": data.hex(),
            "secret_input": secret,
        },
        f"running {op} under memcheck",
    )
    if reply.get("type") == "error":
        raise RunnerFailure("protocol", f"the runner refused taint: {reply.get('message')}")
    if reply.get("status") != "ok":
        raise RunnerFailure("protocol", f"{reply.get('status')}: {reply.get('reason')}")
    if not reply.get("supported"):
        raise RunnerFailure(
            "protocol",
            f"{Path(cell.slot.exe).name} was built without valgrind/memcheck.h: `make apt-leaks`, "
            "then rebuild it (`make native` or `make runner-rust`)",
        )
    if not reply.get("on_valgrind"):
        raise RunnerFailure("protocol", "the runner did not run under valgrind")
    return reply["outcome"]


def _operations(proc: ServeProcess, cell: Cell, info: dict, seed: int) -> None:
    """AEAD: encryption of a secret message, decryption of the valid ciphertext, and of one
    whose tag is wrong in its last byte (an early-exit comparison runs through 15 bytes)."""
    params = case_params(info, {"seed": seed}, Vectors()).to_json()
    message = ByteStream(seed ^ 0x7A1).bytes(AEAD_SIZE)
    sealed = _request(proc, cell, "encrypt", message, True, params)
    if "out" not in sealed:
        raise RunnerFailure("protocol", f"encryption failed: {sealed.get('error')}")
    ciphertext = bytes.fromhex(sealed["out"])
    opened = _request(proc, cell, "decrypt-valid", ciphertext, False, params)
    if opened.get("out") != message.hex():
        raise RunnerFailure("protocol", f"decrypting the valid ciphertext gave {opened}")
    refused = _request(proc, cell, "decrypt-tag-last", flip(ciphertext, -1), False, params)
    if "error" not in refused:
        raise RunnerFailure("protocol", "a tag wrong in its last byte was accepted")
    cell.outcomes = {"encrypt": "ok", "decrypt-valid": "ok", "decrypt-tag-last": "refused"}


def run_cell(cell: Cell, info: dict, seed: int) -> None:
    """One runner under memcheck for the cell's operations; its XML read into cell.parsed."""
    if info["kind"] != "aead":
        cell.problem = f"no taint test for {info['kind']} algorithms yet (AEAD)"
        return
    with tempfile.TemporaryDirectory(prefix="cryptobench-taint-") as tmp:
        xml_file = Path(tmp) / "memcheck.xml"
        proc = ServeProcess(
            cell.slot.exe,
            cell.slot.provider,
            cell.slot.variant,
            TIMEOUT_S,
            prefix=valgrind_args(xml_file),
            env=_environment(cell.slot),
        )
        start = time.monotonic()
        try:
            proc.start()
            _operations(proc, cell, info, seed)
        except RunnerFailure as e:
            cell.problem = e.message
        finally:
            proc.stop(wait=QUIT_WAIT_S)
        cell.seconds = time.monotonic() - start
        if cell.problem:
            return
        try:
            cell.parsed = parse_xml(xml_file.read_text(errors="replace"))
        except (OSError, ET.ParseError) as e:
            cell.problem = f"valgrind's XML could not be read: {e}"


def require_valgrind() -> None:
    from cryptobench.scenarios.packages import require

    require("leaks", ["valgrind"])


def group_sites(sites: list[Site]) -> list[dict[str, Any]]:
    """Sites with the same kind and top frame, counted together, in order of first report."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for s in sites:
        key = (s.kind, s.top())
        g = groups.setdefault(
            key,
            {
                "kind": s.kind,
                "frame": s.top(),
                "operation": s.operation,
                "sites": 0,
                "stack": [f.label() for f in s.frames[:8]],
                "suppression": s.suppression,
            },
        )
        g["sites"] += 1
    return list(groups.values())


def figure(cell: Cell) -> Figure:
    key = {"provider": cell.slot.label, "algorithm": cell.algorithm, "method": "taint"}
    if cell.problem:
        return failed(key, METRIC, "sites", cell.problem)
    secret = [s for s in cell.parsed.sites if s.secret_origin]
    other = [s for s in cell.parsed.sites if not s.secret_origin]
    overused = {
        name: count
        for name, count in cell.parsed.suppressed.items()
        if name.startswith(VERDICT_PREFIX) and count > VERDICT_USES
    }
    n = len(secret) + len(overused)
    return Figure(
        key,
        METRIC,
        "sites",
        (n,),
        better="lower",
        extra={
            "verdict": "taint-clean" if n == 0 else "secret-dependent",
            "detail": "" if n == 0 else f"{n} secret-dependent sites",
            "branches": sum(s.kind == "branch" for s in secret),
            "memory_indexes": sum(s.kind == "memory index" for s in secret),
            "groups": group_sites(secret),
            "uninitialised_not_secret": len(other),
            "suppressed": cell.parsed.suppressed,
            "verdict_suppressions_overused": overused,
            "outside_operations": cell.parsed.outside,
            "operations": cell.outcomes,
            "seconds": round(cell.seconds, 1),
        },
    )
