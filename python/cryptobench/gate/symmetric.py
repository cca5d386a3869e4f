"""The gate's checks of ciphers, AEADs, hashes and MACs as steps (native/src/core/gate.cpp is
the same gate inside the native runner): every known-answer vector twice on one prepared
operation, an AEAD decryption must reject an altered tag and still work after it, and the round
trip of the case's own input."""

from collections.abc import Callable

from cryptobench.gate.material import Params
from cryptobench.gate.steps import CASE_INPUT, Ref, Results, Steps
from cryptobench.gate.vectors import Vector

STREAM_BLOCK = 64  # what a vector's initial_counter counts (ChaCha20 / Salsa20 blocks)

Judge = Callable[[Results], str]


def clip(b: bytes) -> str:
    h = b[:24].hex() + ("..." if len(b) > 24 else "")
    return f"{h} ({len(b)} bytes)"


def mismatch(what: str, got: bytes, want: bytes) -> str:
    return f"{what}: got {clip(got)}, expected {clip(want)}"


def forward(info: dict) -> str:
    """The operation a round trip or an agreement artifact starts from."""
    return {"hash": "hash", "mac": "mac"}.get(info["kind"], "encrypt")


def kat_vector(steps: Steps, info: dict, op: str, v: Vector) -> Judge:
    # A stream cipher's vector may start at block N: N blocks of zeros go first, and the
    # output's first N blocks are not compared.
    prefix = bytes(v.initial_counter * STREAM_BLOCK)
    data, want = (v.expected, v.input) if op == "decrypt" else (v.input, v.expected)
    data = prefix + data
    forgery = info["kind"] == "aead" and op == "decrypt"
    inputs = [data, data]
    if forgery:
        inputs += [data[:-1] + bytes([data[-1] ^ 1]), data]
    i = steps.add(op, inputs, key=v.key, iv=v.iv, aad=v.aad)

    def judge(r: Results) -> str:
        for run in (0, 1):
            got = r.out(i, run)
            if len(got) < len(prefix):
                return mismatch("output too short", got, want)
            got = got[len(prefix) :]
            if info["kind"] == "mac" and len(want) < len(got):
                got = got[: len(want)]  # a truncated MAC's vector (RFC 4231 test 5)
            if got != want:
                what = "wrong output" if run == 0 else "wrong output on the second run"
                return mismatch(what, got, want)
        if forgery:
            if r.accepted(i, 2):
                return "accepted a ciphertext whose tag was altered"
            if r.out(i, 3)[len(prefix) :] != want:
                return "wrong output after rejecting a forgery"
        return ""

    return judge


def roundtrip(steps: Steps, info: dict, params: Params) -> Judge:
    if info["kind"] in ("hash", "mac"):
        i = steps.add(forward(info), [CASE_INPUT, CASE_INPUT], digest=True, **params.symmetric())

        def same_twice(r: Results) -> str:
            a, b = r.digest(i, 0), r.digest(i, 1)
            if a.len != info["output_bytes"]:
                return f"output is {a.len} bytes, expected {info['output_bytes']}"
            if a != b:
                return "two runs on the same input gave different outputs"
            return ""

        return same_twice
    enc = steps.add("encrypt", [CASE_INPUT], digest=True, **params.symmetric())
    dec = steps.add("decrypt", [Ref(enc)], digest=True, **params.symmetric())

    def there_and_back(r: Results) -> str:
        ct, data = r.digest(enc), r.input
        if ct.len != data.len + info["tag_bytes"]:
            return f"ciphertext is {ct.len} bytes for {data.len} bytes of input"
        if data.len >= 16 and ct.head[:16] == data.head[:16]:
            return "ciphertext starts with the plaintext"
        pt = r.digest(dec)
        if (pt.len, pt.sha256) != (data.len, data.sha256):
            return "decrypt(encrypt(input)) differs from the input"
        return ""

    return there_and_back
