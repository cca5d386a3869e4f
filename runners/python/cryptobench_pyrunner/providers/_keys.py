"""Key parts (docs/protocol.md, "Keys") as integers and fixed-size byte strings."""

FIELD_BYTES = {"p256": 32, "p384": 48, "p521": 66}


def to_int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def to_bytes(x: int, n: int | None = None) -> bytes:
    return x.to_bytes(n if n is not None else max(1, (x.bit_length() + 7) // 8), "big")


def field_bytes(key_type: str) -> int:
    return FIELD_BYTES[key_type.rsplit("-", 1)[1]]


def rfc7919_prime(bits: int) -> int:
    """p = 2^b - 2^{b-64} + {[2^{b-130} e] + X} * 2^64 - 1 (RFC 7919 Appendix A), as in
    vectors/tools/check_pk_vectors.py."""
    x_const = {2048: 560316, 3072: 2625351, 4096: 5736041}[bits]
    prec = bits + 64
    e_fixed, term, k = 0, 1 << prec, 0
    while term:
        e_fixed += term
        k += 1
        term //= k
    floor_e = (e_fixed >> 130) >> (prec - bits)
    return 2**bits - 2 ** (bits - 64) + (floor_e + x_const) * 2**64 - 1
