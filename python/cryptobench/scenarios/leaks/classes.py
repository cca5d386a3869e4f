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
    # Pairs of shown classes that take the same path (both answered), compared as well.
    pairs: tuple[tuple[str, str], ...] = ()
    # Whether an implicit rejection (every invalid class answered with a synthetic message
    # instead of refused) is a correct outcome: RSAES-PKCS1-v1_5 (RFC 8017 errata, OpenSSL 3.2).
    implicit_rejection: bool = False
    # The catalogue operation a provider must offer for the test: the one timed, except for
    # MAC verification, which is no catalogue operation (a provider offering `mac` is asked).
    offered: str = "decrypt"
    # Whether a ciphertext's validity is itself the secret (RSA decryption: Marvin's question),
    # so the valid class is compared with the base where both take the same path. Whether an
    # AEAD tag or a MAC is valid is public in every protocol: there it is measured and shown.
    valid_secret: bool = False

    @property
    def class_names(self) -> list[str]:
        return [self.base, self.base + CONTROL_SUFFIX, *self.others, *self.shown]

    @property
    def comparisons(self) -> list[tuple[str, str, bool]]:
        """(base, other, is the A/A control), the control first."""
        return (
            [(self.base, self.base + CONTROL_SUFFIX, True)]
            + [(self.base, o, False) for o in self.others]
            + [(a, b, False) for a, b in self.pairs]
        )


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


# ---- MAC verification: where the tag comparison stops -------------------------------------------

MAC_SIZE = 64


def mac_test(algorithm: str) -> LeakTest:
    """A MAC verification (the `leak` request's `verify` of a MAC: the library's own verification
    or its tag and its constant-time comparison; docs/protocol.md) of a message whose tag is
    wrong in its first byte against one wrong in its last byte, as for AEAD decryption. A valid
    tag gives no output; it is measured and shown."""
    return LeakTest(
        name=f"{algorithm} verify: tag wrong in first vs last byte",
        algorithm=algorithm,
        operation="verify",
        size=MAC_SIZE,
        base="tag-first",
        others=("tag-last",),
        expect={"tag-first": "error", "tag-first'": "error", "tag-last": "error", "valid": "out"},
        shown=("valid",),
        offered="mac",
    )


def mac_classes(message: bytes, tag: bytes) -> dict[str, bytes]:
    """Every class: the message followed by its tag, or by the tag with one byte flipped."""
    return aead_classes(message + tag, len(tag))


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
        valid_secret=True,
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


# ---- RSAES-PKCS1-v1_5 decryption with Marvin's classes ------------------------------------------

PKCS1_MESSAGE = 48  # Marvin's default message length (marvin-toolkit step2.py: valid_48)
PKCS1_SHORT_PADDING = 4  # a zero byte after 4 padding bytes: the padding under 8 bytes


def pkcs1v15_test(algorithm: str) -> LeakTest:
    """Marvin's classes (Kario, "Everlasting ROBOT: the Marvin Attack", ESORICS 2023, and its
    marvin-toolkit): ciphertexts whose EME-PKCS1-v1_5 decoding (RFC 8017 7.2.2) fails at
    different steps -- no structure at all, no zero byte after the padding, padding shorter than 8
    bytes, block type 1 (signature padding), a wrong first byte -- and valid ones with a short, a
    48-byte and the longest message. The refused classes are compared with "no structure"; the
    valid ones with each other. A provider with implicit rejection answers every invalid one with
    a synthetic message, which is then the correct outcome (docs/leaks.md)."""
    invalid = (
        "no-structure",
        "no-structure'",
        "no-separator",
        "short-padding",
        "signature-padding",
        "wrong-first-byte",
    )
    return LeakTest(
        name=f"{algorithm} decrypt: Marvin's ciphertext classes",
        algorithm=algorithm,
        operation="decrypt",
        size=PKCS1_MESSAGE,
        base="no-structure",
        others=invalid[2:],
        expect={**dict.fromkeys(invalid, "error"), **dict.fromkeys(PKCS1_VALID, "out")},
        shown=PKCS1_VALID,
        pairs=(("valid", "valid-short"), ("valid", "valid-longest")),
        implicit_rejection=True,
        valid_secret=True,
    )


# Marvin's valid_0 is an empty message; wolfSSL 5.5 cannot decrypt to one (wolfssl.cpp), so the
# short class carries one byte.
PKCS1_VALID = ("valid", "valid-short", "valid-longest")


def pkcs1v15_encode(message: bytes, k: int, padding: bytes, *, block_type: int = 2) -> bytes:
    """00 || BT || PS || 00 || M (RFC 8017 7.2.1 step 2), PS given: `padding` is cut or used
    whole; a class breaks the parts it names."""
    return bytes([0x00, block_type]) + padding + b"\x00" + message


def _nonzero(stream: ByteStream, n: int) -> bytes:
    return bytes(b or 0x5A for b in stream.bytes(n))


def pkcs1v15_classes(
    public: dict[str, bytes], seed: int
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """Every class's ciphertext under the public key (n, e), made by raw RSA, and the message
    each valid class decrypts to."""
    n = int.from_bytes(public["n"], "big")
    e = int.from_bytes(public["e"], "big")
    k = (n.bit_length() + 7) // 8
    stream = ByteStream(seed ^ 0x706B6331)
    message = stream.bytes(PKCS1_MESSAGE)
    messages = {
        "valid": message,
        "valid-short": message[:1],
        "valid-longest": stream.bytes(k - 11),
    }
    encoded = {
        name: pkcs1v15_encode(m, k, _nonzero(stream, k - 3 - len(m)))
        for name, m in messages.items()
    }
    pad = _nonzero(stream, k - 3 - PKCS1_MESSAGE)
    encoded["no-separator"] = bytes([0x00, 0x02]) + _nonzero(stream, k - 2)
    short = _nonzero(stream, PKCS1_SHORT_PADDING)
    encoded["short-padding"] = pkcs1v15_encode(
        _nonzero(stream, k - 3 - PKCS1_SHORT_PADDING), k, short
    )
    encoded["signature-padding"] = pkcs1v15_encode(message, k, b"\xff" * len(pad), block_type=1)
    encoded["wrong-first-byte"] = b"\x01" + pkcs1v15_encode(message, k, pad)[1:]
    plain = {name: int.from_bytes(em, "big") for name, em in encoded.items()}
    plain["no-structure"] = int.from_bytes(stream.bytes(k), "big") % n
    out = {name: pow(m, e, n).to_bytes(k, "big") for name, m in plain.items()}
    out["no-structure'"] = out["no-structure"]
    return out, messages
