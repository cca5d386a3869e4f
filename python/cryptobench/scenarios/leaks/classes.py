"""The input classes of each leak test: inputs of one operation that differ only in something
secret, and which pairs of them are compared (docs/leaks.md, "Classes").

A test names its classes and its comparisons; the A/A control is the base class against an
identical copy of itself (`base` and `base'`). The classes' bytes are made here, once, and sent
to every provider alike: the runner only times them (docs/protocol.md, "`leak`").
"""

import hashlib
from dataclasses import dataclass, field

from cryptobench.gate.material import ByteStream

CONTROL_SUFFIX = "'"  # the A/A copy of the base class


@dataclass(frozen=True)
class LeakTest:
    """One operation and its classes. `make(valid)` turns the valid input into every class's
    bytes; `expect[name]` is "out" (the operation must succeed) or "error" (it must refuse)."""

    name: str
    algorithm: str
    operation: str
    size: int
    base: str
    others: tuple[str, ...]
    expect: dict[str, str] = field(default_factory=dict)
    # Classes measured and checked but not compared with the base: their outcome differs from
    # the base's, so a difference would include the runner's refusal path (docs/leaks.md).
    shown: tuple[str, ...] = ()

    @property
    def class_names(self) -> list[str]:
        return [self.base, self.base + CONTROL_SUFFIX, *self.others, *self.shown]

    @property
    def comparisons(self) -> list[tuple[str, str, bool]]:
        """(base, other, is the A/A control), the control first."""
        return [(self.base, self.base + CONTROL_SUFFIX, True)] + [
            (self.base, o, False) for o in self.others
        ]


def flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    out = bytearray(data)
    out[index] ^= mask
    return bytes(out)


# ---- AEAD decryption: where the tag comparison stops ---------------------------------------------

AEAD_SIZE = 64


def aead_test(algorithm: str) -> LeakTest:
    """A tag wrong in its first byte against one wrong in its last byte: both are refused, so
    only an early-exit comparison tells them apart. The valid tag is measured and shown."""
    return LeakTest(
        name=f"{algorithm} decrypt: tag wrong in first vs last byte",
        algorithm=algorithm,
        operation="decrypt",
        size=AEAD_SIZE,
        base="tag-first",
        others=("tag-last",),
        expect={"tag-first": "error", "tag-first'": "error", "tag-last": "error", "valid": "out"},
        shown=("valid",),
    )


def aead_classes(ciphertext: bytes, tag_bytes: int) -> dict[str, bytes]:
    """Every class from a valid ciphertext‖tag."""
    first = len(ciphertext) - tag_bytes
    wrong_first = flip(ciphertext, first)
    return {
        "tag-first": wrong_first,
        "tag-first'": wrong_first,
        "tag-last": flip(ciphertext, len(ciphertext) - 1),
        "valid": ciphertext,
    }


# ---- RSA-OAEP decryption with Marvin's and Manger's classes --------------------------------------

OAEP_MESSAGE = 32
OAEP_HASH = hashlib.sha256


def oaep_test(algorithm: str) -> LeakTest:
    """Invalid ciphertexts that fail at different steps of EME-OAEP decoding (RFC 8017 7.1.2):
    "no structure" (a random plaintext, Marvin's), the first byte non-zero (Manger's oracle), a
    wrong label hash, no 0x01 separator. All are refused; the valid one is measured and shown."""
    return LeakTest(
        name=f"{algorithm} decrypt: Marvin/Manger ciphertext classes",
        algorithm=algorithm,
        operation="decrypt",
        size=OAEP_MESSAGE,
        base="no-structure",
        others=("first-byte-nonzero", "wrong-label-hash", "no-separator"),
        expect={
            "no-structure": "error",
            "no-structure'": "error",
            "first-byte-nonzero": "error",
            "wrong-label-hash": "error",
            "no-separator": "error",
            "valid": "out",
        },
        shown=("valid",),
    )


def _mgf1(seed: bytes, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += OAEP_HASH(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def oaep_encode(
    message: bytes,
    k: int,
    seed: bytes,
    *,
    label_hash: bytes | None = None,
    separator: int = 0x01,
    first: int = 0x00,
) -> bytes:
    """EME-OAEP encoding (RFC 8017 7.1.1 step 2, empty label), with the parts a class breaks
    given explicitly."""
    h = OAEP_HASH(b"").digest() if label_hash is None else label_hash
    hlen = len(h)
    ps = bytes(k - len(message) - 2 * hlen - 2)
    db = h + ps + bytes([separator]) + message
    masked_db = _xor(db, _mgf1(seed, k - hlen - 1))
    masked_seed = _xor(seed, _mgf1(masked_db, hlen))
    return bytes([first]) + masked_seed + masked_db


def oaep_classes(public: dict[str, bytes], seed: int) -> tuple[dict[str, bytes], bytes]:
    """Every class's ciphertext under the public key (n, e), and the valid one's message."""
    n = int.from_bytes(public["n"], "big")
    e = int.from_bytes(public["e"], "big")
    k = (n.bit_length() + 7) // 8
    stream = ByteStream(seed ^ 0x6D617276)
    message = stream.bytes(OAEP_MESSAGE)
    oaep_seed = stream.bytes(OAEP_HASH().digest_size)
    wrong_hash = flip(OAEP_HASH(b"").digest(), 0)
    # Message starting with 0x02 so that without the separator the decoder meets a byte that is
    # neither 0x00 nor 0x01 at once.
    no_sep_msg = b"\x02" + message[1:]
    encoded = {
        "valid": oaep_encode(message, k, oaep_seed),
        "first-byte-nonzero": oaep_encode(message, k, oaep_seed, first=0x01),
        "wrong-label-hash": oaep_encode(message, k, oaep_seed, label_hash=wrong_hash),
        "no-separator": oaep_encode(no_sep_msg, k, oaep_seed, separator=0x00),
    }
    random_int = int.from_bytes(stream.bytes(k), "big") % n
    plain = {name: int.from_bytes(em, "big") for name, em in encoded.items()}
    plain["no-structure"] = random_int
    out = {name: pow(m, e, n).to_bytes(k, "big") for name, m in plain.items()}
    out["no-structure'"] = out["no-structure"]
    return out, message
