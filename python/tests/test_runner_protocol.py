"""What every runner of another language owes the coordinator through the protocol
(docs/protocol.md), checked the same way for the Go, Python, Rust and JVM runners: its catalogue
entries are the native ones, a tiny gated case measures on each provider, the gate refuses a
corrupted known answer, references between steps are resolved by the coordinator, agreement
artifacts equal an independent implementation's (hashlib and pyca/cryptography in this process),
cross_check blames a bad peer, malformed requests and command lines get one-line errors, and a
served variant measures while another is refused. Each parameter is skipped (with the reason)
where its runner is not built. What only one runner has (its
runtime's record, its variants' switches, its providers' quirks) is in test_runner_<name>.py."""

import functools
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from runner_harness import (
    MATERIAL,
    REPLY_TIMEOUT_S,
    Served,
    capabilities,
    corrupted_vectors,
    key_part,
    measure_tiny,
    native_catalogue,
    run,
    runner_exe,
    tiny_case,
)

from cryptobench import gate
from cryptobench.capabilities import Capabilities
from cryptobench.commands import check
from cryptobench.gate.steps import CASE_INPUT, Ref, Results, StepError, Steps
from cryptobench.runner import ServeProcess

KEY, IV, DATA = (bytes.fromhex(MATERIAL[k]) for k in ("key", "iv", "input"))
ARGON_COST = {"cost": {"t": 1, "m": 64, "p": 1}}
SLOW_TO_GATE = {
    f"slh-dsa-{h}-{n}{v}"
    for h in ("sha2", "shake")
    for n in (128, 192, 256)
    for v in "sf"
    if (n, v) != (128, "f")
}


def _signed() -> bytes:
    return ed25519.Ed25519PrivateKey.from_private_bytes(key_part("ed25519", "priv")).sign(DATA)


def _shared_secret() -> bytes:
    own = x25519.X25519PrivateKey.from_private_bytes(key_part("x25519", "priv"))
    return own.exchange(x25519.X25519PublicKey.from_public_bytes(key_part("x25519-peer", "pub")))


# The independent implementation: algorithm -> (artifact, its expected bytes for MATERIAL).
INDEPENDENT: dict[str, tuple[str, Callable[[], bytes]]] = {
    "aes-256-gcm": ("ciphertext", lambda: AESGCM(KEY).encrypt(IV, DATA, None)),
    "chacha20-poly1305": ("ciphertext", lambda: ChaCha20Poly1305(KEY).encrypt(IV, DATA, None)),
    "sha256": ("digest", lambda: hashlib.sha256(DATA).digest()),
    "sha3-256": ("digest", lambda: hashlib.sha3_256(DATA).digest()),
    "hmac-sha256": ("mac", lambda: hmac.new(KEY, DATA, "sha256").digest()),
    "ed25519": ("signature", _signed),
    "x25519": ("secret", _shared_secret),
}
# The artifact a cross_check peer sends for the case's algorithm, and one that must be blamed.
PEER_ARTIFACT = {
    "aes-256-gcm": ("decrypt", "ciphertext", lambda: AESGCM(KEY).encrypt(IV, DATA, None)),
    "ed25519": ("verify", "signature", _signed),
}


def _jvm_record(result: dict, caps: dict) -> None:
    """Every JVM result carries the JDK that ran it, its warm-up and its GC figures."""
    jvm = result["jvm"]
    assert jvm["jdk"] == caps["machine"]["java_version"]
    assert jvm["warmup_iterations"] > 0 and jvm["warmup_ns"] > 0
    assert jvm["gc_count"] >= 0 and jvm["gc_ms"] >= 0


@dataclass(frozen=True)
class Runner:
    """One runner as these tests drive it."""

    name: str
    providers: tuple[str, ...]
    # algorithms a provider must offer (none named: it is still checked for what it offers)
    core: dict[str, set[str]]
    # (provider, algorithm, operation, size, extra case fields) measured by a tiny gated case
    tiny_cases: tuple[tuple[str, str, str, int, dict], ...]
    # what a result of this runner carries besides the common fields
    heap_fields: set[str]
    reads_tsc: bool = False
    timed_check: str = ""  # how gate.timed starts ("" where the runner does not say)
    heap_grows: bool = False  # heap.bytes_per_op > 0 for every case
    runtime_record: Callable[[dict, dict], None] | None = None
    # (vectors family, field corrupted, algorithm whose gate must fail, providers checked)
    kat: tuple[str, str, str, tuple[str, ...]] = ("aes-gcm", "tag", "aes-128-gcm", ())
    # provider -> (algorithm, operation, size) whose agreement artifacts are compared
    agreement: dict[str, tuple[tuple[str, str, int], ...]] = field(default_factory=dict)
    # (algorithm of PEER_ARTIFACT, providers that judge peers)
    cross_check: tuple[str, tuple[str, ...]] = ("aes-256-gcm", ())
    xts_provider: str = ""  # a provider that does not offer aes-256-xts
    # (provider, a variant it does not have, the variants it lists) or None
    unknown_variant: tuple[str, str, str] | None = None
    # served with --variant PROVIDER=VARIANT: (switch, hello's variants, case measured in that
    # variant, (provider, variant) of a case that must be refused) or None
    served_variant: tuple[str, dict, tuple[str, str, str, int], tuple[str, str]] | None = None

    @property
    def exe(self) -> str:
        return f"cryptobench-runner-{self.name}"


GCM_CHACHA_SHA_ED = (
    ("aes-256-gcm", "encrypt", 4096),
    ("chacha20-poly1305", "decrypt", 4096),
    ("sha256", "hash", 4096),
    ("ed25519", "sign", 4096),
)
PY_AGREEMENT = (
    ("sha3-256", "hash", 4096),
    ("hmac-sha256", "mac", 4096),
    ("ed25519", "sign", 4096),
    ("x25519", "derive", 0),
    ("x25519", "keygen", 0),
)
RUNNERS = (
    Runner(
        name="go",
        providers=("go", "go-x", "circl"),
        core={
            "go": {"aes-256-gcm", "sha256", "ed25519", "x25519", "ml-kem-768"},
            "go-x": {"chacha20-poly1305", "argon2id"},
            "circl": {"ml-kem-768", "x25519mlkem768", "ml-dsa-65", "slh-dsa-sha2-128f"},
        },
        tiny_cases=(
            ("go", "aes-256-gcm", "decrypt", 1024, {}),
            ("go-x", "chacha20-poly1305", "encrypt", 1024, {}),
            ("go", "ed25519", "verify", 64, {}),
            ("go-x", "argon2id", "derive", 16, ARGON_COST),
        ),
        heap_fields={"allocs_per_op", "bytes_per_op"},
        reads_tsc=True,
        kat=("aes-gcm", "tag", "aes-128-gcm", ("go",)),
        agreement={
            "go": (
                ("aes-256-gcm", "encrypt", 4096),
                ("sha256", "hash", 4096),
                ("ed25519", "sign", 4096),
            ),
            "go-x": (("chacha20-poly1305", "decrypt", 4096),),
        },
        cross_check=("aes-256-gcm", ("go",)),
        xts_provider="go",
        unknown_variant=("go", "fast", "default, soft, noaesni"),
        served_variant=(
            "go-x=noaesni",
            {"go": "noaesni", "go-x": "noaesni", "circl": "noaesni"},
            ("go", "aes-256-gcm", "encrypt", 1024),
            ("go", "default"),
        ),
    ),
    Runner(
        name="rust",
        providers=("ring", "aws-lc-rs", "rustcrypto"),
        core={
            p: {"aes-256-gcm", "chacha20-poly1305", "sha256", "ed25519"}
            for p in ("ring", "aws-lc-rs", "rustcrypto")
        },
        tiny_cases=(
            ("ring", "aes-256-gcm", "decrypt", 1024, {}),
            ("ring", "sha256", "hash", 1024, {}),
            ("aws-lc-rs", "aes-256-gcm", "encrypt", 1024, {}),
            ("aws-lc-rs", "x25519", "derive", 0, {}),
            ("rustcrypto", "chacha20-poly1305", "encrypt", 1024, {}),
            ("rustcrypto", "ed25519", "verify", 64, {}),
        ),
        heap_fields={"allocs_per_op", "frees_per_op", "bytes_per_op", "peak_live_bytes"},
        reads_tsc=True,
        timed_check="output equals the gated instance's",
        kat=("aes-gcm", "tag", "aes-128-gcm", ("ring", "aws-lc-rs", "rustcrypto")),
        agreement={
            "ring": GCM_CHACHA_SHA_ED,
            "aws-lc-rs": (*GCM_CHACHA_SHA_ED, ("x25519", "derive", 0)),
            "rustcrypto": (*GCM_CHACHA_SHA_ED, ("x25519", "derive", 0)),
        },
        cross_check=("aes-256-gcm", ("ring", "aws-lc-rs", "rustcrypto")),
        xts_provider="ring",
        unknown_variant=("ring", "fast", "default"),
        served_variant=(
            "aws-lc-rs=noaesni",
            {"ring": "default", "aws-lc-rs": "noaesni", "rustcrypto": "default"},
            ("aws-lc-rs", "aes-256-gcm", "encrypt", 1024),
            ("aws-lc-rs", "soft"),
        ),
    ),
    Runner(
        name="python",
        providers=("pyca", "pycryptodome"),
        core={
            p: {"aes-256-gcm", "chacha20-poly1305", "sha256", "ed25519", "x25519"}
            for p in ("pyca", "pycryptodome")
        },
        tiny_cases=tuple(
            (p, *case, {})
            for case in (
                ("aes-256-gcm", "decrypt", 1024),
                ("sha256", "hash", 16),
                ("x25519", "derive", 0),
                ("ed25519", "sign", 64),
            )
            for p in ("pyca", "pycryptodome")
        ),
        heap_fields={"bytes_per_op"},
        heap_grows=True,  # tracemalloc sees at least the result object
        kat=("sha2", "digest", "sha224", ("pyca", "pycryptodome")),
        agreement={"pyca": PY_AGREEMENT, "pycryptodome": PY_AGREEMENT},
        cross_check=("ed25519", ("pyca", "pycryptodome")),
        xts_provider="pycryptodome",
        unknown_variant=("pyca", "noaesni", "default, soft"),
        served_variant=(
            "pycryptodome=noaesni",
            {"pyca": "default", "pycryptodome": "noaesni"},
            ("pycryptodome", "aes-256-gcm", "decrypt", 1024),
            ("pyca", "soft"),
        ),
    ),
    Runner(
        name="jvm",
        providers=("sunjce", "bouncycastle", "accp", "conscrypt", "nss"),
        core={
            "sunjce": {"aes-256-gcm", "chacha20-poly1305", "sha256", "sha3-256", "md5", "ed25519"},
            "bouncycastle": {
                "aes-256-gcm",
                "chacha20-poly1305",
                "sha256",
                "hmac-sha256",
                "ed25519",
            },
        },
        tiny_cases=(
            ("sunjce", "aes-256-gcm", "decrypt", 1024, {}),
            ("bouncycastle", "chacha20-poly1305", "encrypt", 1024, {}),
            ("accp", "sha256", "hash", 1024, {}),
            ("conscrypt", "aes-128-ctr", "encrypt", 1024, {}),
            ("nss", "hmac-sha256", "mac", 1024, {}),
            ("sunjce", "ed25519", "verify", 64, {}),
        ),
        heap_fields={"bytes_per_op"},
        timed_check="output equals the gated instance's; canaries intact",
        runtime_record=_jvm_record,
        kat=("aes-gcm", "tag", "aes-128-gcm", ("sunjce", "bouncycastle")),
        agreement={
            "sunjce": (
                ("aes-256-gcm", "encrypt", 4096),
                ("chacha20-poly1305", "encrypt", 4096),
                ("sha256", "hash", 4096),
                ("hmac-sha256", "mac", 4096),
            ),
            "bouncycastle": (
                ("aes-256-gcm", "decrypt", 4096),
                ("chacha20-poly1305", "encrypt", 4096),
                ("sha3-256", "hash", 4096),
                ("ed25519", "sign", 4096),
            ),
        },
        cross_check=("aes-256-gcm", ("bouncycastle",)),
        xts_provider="sunjce",
        # the JVM's variants are JDKs, offered only where installed: test_runner_jvm.py
    ),
)


def per_runner(select: Callable[[Runner], bool] = lambda r: True) -> list:
    return [pytest.param(r, id=r.name) for r in RUNNERS if select(r)]


def per_provider(providers_of: Callable[[Runner], object]) -> list:
    return [pytest.param(r, p, id=f"{r.name}-{p}") for r in RUNNERS for p in providers_of(r)]


@functools.cache
def _listed(exe: str) -> dict:
    return capabilities(runner_exe(exe))


def listed(r: Runner, provider: str | None = None) -> dict:
    """The runner's `list` (skipped where it is not built); with a provider, skipped also where
    that provider cannot load here (the JVM's reports a loading error)."""
    caps = _listed(r.exe)
    if provider is not None:
        entry = next(p for p in caps["providers"] if p["name"] == provider)
        if entry.get("loading_error"):
            pytest.skip(f"{provider} cannot load here: {entry['loading_error']}")
    return caps


@pytest.mark.parametrize("r", per_runner())
def test_list_names_the_runner_its_providers_and_the_native_catalogue_entries(r, native_runner):
    caps = listed(r)
    native = native_catalogue(native_runner)
    assert caps["runner"] == r.exe
    assert {p["name"] for p in caps["providers"]} == set(r.providers)
    for alg in caps["algorithms"]:
        assert alg == native[alg["name"]], alg["name"]


@pytest.mark.parametrize(("r", "provider"), per_provider(lambda r: r.providers))
def test_a_provider_offers_its_core_algorithms_with_the_native_operations(
    r, provider, native_runner
):
    entry = next(p for p in listed(r, provider)["providers"] if p["name"] == provider)
    native = native_catalogue(native_runner)
    offered = {a["name"] for a in entry["algorithms"]}
    assert r.core.get(provider, set()) <= offered
    # what a provider lacks is not offered (with the reason): never offered and refused both
    not_offered = entry.get("not_offered", {})
    assert not set(not_offered) & offered
    assert set(not_offered) <= set(native), "not_offered names only catalogue algorithms"
    assert all(isinstance(why, str) and why for why in not_offered.values()), not_offered
    for a in entry["algorithms"]:
        assert a["operations"] == native[a["name"]]["operations"], a["name"]


@pytest.mark.parametrize(
    ("r", "case"),
    [
        pytest.param(r, c, id=f"{r.name}-{c[0]}-{c[1]}-{c[2]}-{c[3]}")
        for r in RUNNERS
        for c in r.tiny_cases
    ],
)
def test_a_tiny_gated_case_measures(r, case):
    provider, algorithm, operation, size, extra = case
    caps = listed(r, provider)
    with Served(runner_exe(r.exe)) as served:
        assert served.hello["runner"] == r.exe
        result = measure_tiny(served, tiny_case(provider, algorithm, operation, size, **extra))
        assert set(served.close()) == {"type", "max_rss_kb"}  # the coordinator counts outcomes
    assert result["gate"]["kat"].startswith("passed")
    assert result["gate"]["roundtrip"] == "passed"
    assert result["gate"].get("timed", "").startswith(r.timed_check)
    # the samples, which the coordinator summarises (stats.py); a runner it gates sends no summary
    assert len(result["samples"]) == 3 and all(s["ns"] > 0 for s in result["samples"])
    assert "summary" not in result
    if r.reads_tsc:
        assert result["samples"][0]["ticks"] > 0  # the TSC is read on x86-64
    assert r.heap_fields <= set(result["heap"])
    assert result["heap"]["bytes_per_op"] >= 0
    # The resident set across the heap pass, as the native runner reports it (on this Linux the
    # high-water mark can be reset, so both are measured).
    assert result["heap"]["rss_before_kb"] > 0 and result["heap"]["rss_peak_kb"] > 0
    if r.heap_grows:
        assert result["heap"]["bytes_per_op"] > 0
    if r.runtime_record:
        r.runtime_record(result, caps)


@pytest.mark.parametrize(("r", "provider"), per_provider(lambda r: r.kat[3]))
def test_the_gate_refuses_a_provider_that_fails_a_known_answer(r, provider, tmp_path):
    """The corrupted vectors reach the gate wherever it runs: the coordinator's for a runner it
    gates, the runner's own (--vectors) for one that gates itself."""
    family, corrupted_field, algorithm, _ = r.kat
    coordinator = listed(r, provider).get("gate") == "coordinator"
    vectors = corrupted_vectors(tmp_path, family, corrupted_field)
    args = () if coordinator else ("--vectors", str(vectors))
    with Served(runner_exe(r.exe), *args) as served:
        case = tiny_case(provider, algorithm, "hash" if family == "sha2" else "encrypt", 64)
        opened = served.open(case, vectors)
    assert opened["status"] == "failed", opened
    assert "known-answer test" in opened["reason"]
    assert f"failed for {provider}" in opened["reason"]


@pytest.mark.parametrize(("r", "provider"), per_provider(lambda r: r.providers))
def test_every_offered_algorithm_passes_the_coordinators_gate(r, provider):
    """What the runners' own `check` did: the gate of every offered algorithm and operation
    (cryptobench check), for a runner the coordinator gates."""
    caps = listed(r, provider)
    if not gate.gated_by_coordinator(caps):
        pytest.skip(f"{r.exe} gates itself (its own tests run its check)")
    proc = ServeProcess(runner_exe(r.exe), provider, "default", REPLY_TIMEOUT_S, ["--no-pin"])
    lines: list[dict] = []
    offered = next(p for p in caps["providers"] if p["name"] == provider)["algorithms"]
    # SLH-DSA's `s` sets and larger `f` sets sign for up to seconds: test_post_quantum.py gates
    # the 128f sets, and `cryptobench check` every one.
    quick = {a["name"] for a in offered if a["name"] not in SLOW_TO_GATE}
    try:
        proc.start()
        failed = check.check_provider(
            proc, Capabilities.from_message(caps), gate.Vectors(), lines.append, quick
        )
    finally:
        proc.stop()
    offered = [a for a in offered if a["name"] in quick]
    assert len(lines) == sum(len(a["operations"]) for a in offered)
    assert failed == 0, [m for m in lines if m["status"] != "ok"]
    assert all(m["status"] == "ok" for m in lines)


@pytest.mark.parametrize("r", per_runner())
def test_references_between_steps_are_resolved_by_the_coordinator(r):
    """A runner resolves no references (docs/protocol.md, "`steps`"): Steps.exchange sends the
    steps in waves; an output a later step uses comes back whole (though its step asked for a
    digest) and goes out again as hex, changed as the reference says; a step whose parameter
    refers to a refused run is an error and is never sent. The harness checks every request
    against the schema, which has no reference in it."""
    provider = r.cross_check[1][0]
    listed(r, provider)
    key, iv = bytes(range(32)), bytes(12)
    s = Steps()
    enc = s.add("encrypt", [CASE_INPUT], digest=True, key=key, iv=iv)
    dec = s.add("decrypt", [Ref(enc), Ref(enc, flip=(-1, 1))], digest=True, key=key, iv=iv)
    mac = s.add("mac", [b"x"], algorithm="hmac-sha256", key=Ref(dec, 1))
    sent: list[list[dict]] = []
    with Served(runner_exe(r.exe)) as served:
        runner_send = served._send_steps(tiny_case(provider, "aes-256-gcm", "encrypt", 64))

        def send(steps: list[dict]) -> dict:
            sent.append(steps)
            return runner_send(steps)

        results = Results(s.exchange(send))
        served.close()
    ct = results.out(enc)
    assert len(sent) == 2 and "digest" not in sent[0][0] and len(ct) == 64 + 16
    assert sent[1][0]["inputs"] == [ct.hex(), (ct[:-1] + bytes([ct[-1] ^ 1])).hex()]
    plain = results.digest(dec, 0)
    assert (plain.len, plain.sha256) == (results.input.len, results.input.sha256)
    assert not results.accepted(dec, 1)
    with pytest.raises(StepError, match="refers to run 1 of step 1, which gave no output"):
        results.step(mac)


@pytest.mark.parametrize(("r", "provider"), per_provider(lambda r: r.agreement))
def test_agreement_artifacts_equal_an_independent_implementation(r, provider):
    listed(r, provider)
    got = {}
    with Served(runner_exe(r.exe)) as served:
        for algorithm, operation, size in r.agreement[provider]:
            reply = served.agreement(tiny_case(provider, algorithm, operation, size), MATERIAL)
            assert reply["status"] == "ok", reply
            assert reply["kat"]["ok"] is True, reply["kat"]
            got[algorithm, operation] = reply["artifacts"]
    for (algorithm, operation), artifacts in got.items():
        if operation == "keygen":  # fresh keys: the pair must belong together
            generated = artifacts["generated"]
            fresh = x25519.X25519PrivateKey.from_private_bytes(bytes.fromhex(generated["priv"]))
            assert fresh.public_key().public_bytes_raw().hex() == generated["pub"]
            continue
        name, expected = INDEPENDENT[algorithm]
        assert artifacts[name] == expected().hex(), (algorithm, operation)


@pytest.mark.parametrize(("r", "provider"), per_provider(lambda r: r.cross_check[1]))
def test_cross_check_accepts_a_good_peer_and_blames_a_bad_one(r, provider):
    algorithm = r.cross_check[0]
    operation, name, make = PEER_ARTIFACT[algorithm]
    good = make()
    bad = bytearray(good)
    bad[10] ^= 1
    listed(r, provider)
    with Served(runner_exe(r.exe)) as served:
        peers = {"good/default": {name: good.hex()}, "bad/default": {name: bytes(bad).hex()}}
        reply = served.cross_check(tiny_case(provider, algorithm, operation, 4096), MATERIAL, peers)
    assert reply["type"] == "cross_check"
    assert reply["verdicts"]["good/default"] == {"ok": True, "reason": ""}
    assert reply["verdicts"]["bad/default"]["ok"] is False


@pytest.mark.parametrize("r", per_runner())
def test_unsupported_pairs_and_bad_requests(r):
    with Served(runner_exe(r.exe)) as served:
        xts = served.send(
            {"cmd": "open", "case": tiny_case(r.xts_provider, "aes-256-xts", "encrypt", 64)}
        )
        other = served.send({"cmd": "open", "case": tiny_case("openssl", "sha256", "hash", 64)})
        junk = served.send("not json")
        served.close()
    assert xts["status"] == "unsupported" and "does not offer" in xts["reason"]
    assert other["type"] == "error" and "unknown provider 'openssl'" in other["message"]
    assert junk["type"] == "error" and "not valid JSON" in junk["message"]


def _bad_counts_are_refused(served: Served, case: dict) -> None:
    """A `sample` whose count is no integer from 1 to 100,000 gets an `error` naming `count` (the
    native and Python runners as `request.count`), and the case stays open: the next good
    request is answered with its samples."""
    opened = served.open(case)
    assert opened["status"] == "ok", opened
    for bad in (0, 100_001, "3", 2.5, True, -1):
        reply = served.send({"cmd": "sample", "id": case["id"], "count": bad})
        assert reply["type"] == "error" and "count: must be" in reply["message"], (
            bad,
            reply,
        )
    reply = served.send({"cmd": "sample", "id": case["id"], "count": 2})
    assert reply["type"] == "samples" and len(reply["samples"]) == 2, reply
    assert served.send({"cmd": "close", "id": case["id"]})["type"] == "result"


@pytest.mark.parametrize("r", per_runner())
def test_a_sample_count_out_of_bounds_is_an_error_and_the_case_stays_open(r):
    with Served(runner_exe(r.exe)) as served:
        _bad_counts_are_refused(served, tiny_case(r.providers[0], "sha256", "hash", 64))


def test_the_native_runner_bounds_a_sample_count_alike(native_runner):
    with Served(native_runner) as served:
        _bad_counts_are_refused(served, tiny_case("openssl", "sha256", "hash", 64))


@pytest.mark.parametrize("r", per_runner())
def test_a_bad_command_line_is_one_line_and_status_2(r):
    done = run(runner_exe(r.exe), "serve", "--cpu", "many")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[0] == f"{r.exe}: --cpu takes a CPU number, got 'many'"


@pytest.mark.parametrize("r", per_runner(lambda r: r.unknown_variant))
def test_an_unknown_variant_is_refused_with_the_ones_there_are(r):
    provider, variant, there_are = r.unknown_variant
    done = run(runner_exe(r.exe), "list", "--variant", f"{provider}={variant}")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].endswith(
        f"{provider} has no variant '{variant}' ({there_are})"
    )


@pytest.mark.parametrize("r", per_runner(lambda r: r.served_variant))
def test_a_served_variant_measures_and_a_case_of_another_says_which_runner_to_start(r):
    switch, hello_variants, (provider, algorithm, operation, size), refused = r.served_variant
    variant = switch.split("=")[1]
    with Served(runner_exe(r.exe), "--variant", switch) as served:
        assert served.hello["variants"] == hello_variants
        case = tiny_case(provider, algorithm, operation, size, variant=variant)
        result = measure_tiny(served, case)
        other = served.send(
            {"cmd": "open", "case": tiny_case(refused[0], "sha256", "hash", 64, variant=refused[1])}
        )
        served.close()
    assert result["variant"] == variant and result["gate"]["roundtrip"] == "passed"
    assert other["status"] == "unsupported"
    assert f"--variant {refused[0]}={refused[1]}" in other["reason"]


# Argon2id at m = 64 MiB, per runner: (provider, where the runtime's own counter puts its memory:
# a heap figure that must show it, or None where the counter cannot see it).
MEMORY_HARD = {
    "go": ("go-x", "bytes_per_op"),  # the Go heap
    "rust": ("rustcrypto", "peak_live_bytes"),  # the counting global allocator
    "python": ("pyca", None),  # OpenSSL's malloc inside the extension: tracemalloc is blind
}


@pytest.mark.parametrize("r", per_runner(lambda r: r.name in MEMORY_HARD))
def test_a_memory_hard_kdf_shows_its_memory_in_the_resident_peak_whoever_allocates_it(r):
    """Argon2id with m = 64 MiB takes 64 MiB per derivation. The resident peak's rise across the
    heap pass sees it in every runner, beside native providers' >= 64 MiB, even where the
    runtime's heap counter cannot (pyca's reported 0.0 MiB before)."""
    provider, counted_in = MEMORY_HARD[r.name]
    listed(r, provider)
    case = tiny_case(
        provider, "argon2id", "derive", 16, cost={"t": 1, "m": 65536, "p": 1}, heap_iterations=1
    )
    with Served(runner_exe(r.exe)) as served:
        heap = measure_tiny(served, case)["heap"]
    assert heap["rss_peak_kb"] - heap["rss_before_kb"] >= 60 * 1024, heap
    if counted_in:
        assert heap[counted_in] >= 64 << 20, heap
