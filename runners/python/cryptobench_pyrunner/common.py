"""Parameters of one prepared operation, and the deterministic byte stream for inputs."""

from dataclasses import dataclass, field

from .errors import SpecError


@dataclass
class Params:
    key: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    keypair: dict = field(default_factory=dict)
    public: dict = field(default_factory=dict)
    peer: dict = field(default_factory=dict)
    signature: bytes = b""
    salt: bytes = b""
    info: bytes = b""
    secret: bytes = b""
    ad: bytes = b""
    out_len: int = 0
    cost: dict = field(default_factory=dict)
    randomness: bytes = b""  # a KEM encapsulation's m, for known answers (docs/post-quantum.md)


def parse_bytes(value, where: str) -> bytes:
    if not isinstance(value, str):
        raise SpecError(f"{where}: must be a hex string")
    try:
        return bytes.fromhex(value)
    except ValueError as e:
        raise SpecError(f"{where}: {e}") from None


class ByteStream:
    """splitmix64, byte for byte the native ByteStream (hexutil.cpp)."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = seed & self.MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def bytes(self, n: int) -> bytes:
        words = (n + 7) // 8
        return b"".join(self.next().to_bytes(8, "little") for _ in range(words))[:n]
