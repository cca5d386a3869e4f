"""What a runner can do: its `capabilities` message (docs/protocol.md) as typed objects.

The planner uses the support matrix here to skip combinations a provider does not offer before
anything is sent to a runner.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError

SCHEMA = 1  # the protocol schema this package speaks


SYMMETRIC_KINDS = ("cipher", "aead", "hash", "mac")
PUBLIC_KEY_KINDS = ("keypair", "signature", "pk-encryption", "key-agreement", "kem")
# keyload: decoding an encoded private key or certificate (vectors/encoded-keys.json) into the
# library's key object; its input is that encoding, not a message of the case's size.
# handshake: one full TLS handshake, client and server in one process over memory buffers (the
# server's certificate and key from vectors/tls13.json); no input.
KINDS = (*SYMMETRIC_KINDS, *PUBLIC_KEY_KINDS, "kdf", "keyload", "handshake")

# Output bytes of the digests the catalogue names (`digest`), for the OAEP message limit.
_DIGEST_BYTES = {"sha1": 20, "sha256": 32, "sha384": 48, "sha512": 64}


@dataclass(frozen=True)
class Algorithm:
    name: str
    kind: str  # one of KINDS
    operations: tuple[str, ...]
    block_bytes: int = 1
    min_size: int = 0
    family: str = ""
    description: str = ""
    key_type: str = ""  # public-key algorithms: whose keys it uses (rsa-2048, x25519, ...)
    bits: int = 0  # public-key algorithms: modulus, field or group size
    digest: str = ""  # hash inside the algorithm (RSA, ECDSA, OAEP, PBKDF2, HKDF)
    key_bytes: int = 0  # symmetric key length (cipher, AEAD, MAC)
    iv_bytes: int = 0  # IV or nonce length

    def size_problem(self, size: int) -> str | None:
        """Why `size` cannot be used with this algorithm, or None when it can."""
        if size < self.min_size:
            return f"{self.name} needs at least {self.min_size} bytes"
        if self.block_bytes > 1 and size % self.block_bytes:
            return f"{self.name} takes multiples of {self.block_bytes} bytes"
        limit = self.max_size()
        if limit is not None and size > limit:
            return f"{self.name} takes at most {limit} bytes"
        return None

    def max_size(self) -> int | None:
        """RSAES-OAEP encrypts at most k − 2·hLen − 2 bytes (RFC 8017, 7.1.1), RSAES-PKCS1-v1_5
        at most k − 11 (7.2.1)."""
        if self.kind == "pk-encryption" and self.bits and self.family == "rsa-pkcs1v15-enc":
            return self.bits // 8 - 11
        if self.kind == "pk-encryption" and self.bits and self.digest in _DIGEST_BYTES:
            return self.bits // 8 - 2 * _DIGEST_BYTES[self.digest] - 2
        return None

    def sizeless(self, operation: str) -> bool:
        """Key generation, key agreement, key encapsulation and handshakes take no input, keyload
        decodes its own encoded key: size 0."""
        return operation == "keygen" or self.kind in (
            "key-agreement",
            "kem",
            "keyload",
            "handshake",
        )


def wire_bytes(entry: dict[str, Any]) -> dict[str, int]:
    """What a public-key algorithm puts on the wire, from its catalogue entry
    (catalogue/README.md): the public key, a KEM's ciphertext or a key agreement's public share,
    a signature, the shared secret; {} for other kinds. Stored with every case (gate.wire)."""
    kind = entry.get("kind")
    if kind not in PUBLIC_KEY_KINDS or kind == "keypair":
        return {}
    out = {"public_key": int(entry.get("public_key_bytes", 0))}
    if kind == "signature":
        out["signature"] = int(entry.get("output_bytes", 0))
    elif kind == "pk-encryption":
        out["ciphertext"] = int(entry.get("ciphertext_bytes", 0))
    else:  # a KEM's ciphertext; a key agreement's reply is the peer's public share
        out["ciphertext"] = int(entry.get("ciphertext_bytes", 0))
        out["secret"] = int(entry.get("output_bytes", 0))
    return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class Variant:
    name: str
    description: str = ""
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Provider:
    name: str
    version: str
    variant: str  # the variant the listing process ran
    variants: tuple[Variant, ...]
    algorithms: dict[str, tuple[str, ...]]  # algorithm -> operations offered
    code_path: dict[str, Any]
    # What a variant that runs another runtime offers (runner.discovery lists it on its own: the
    # JVM's jdk25); a variant absent here (one that only sets `env`) offers what `variant` does.
    variant_algorithms: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # algorithm -> the runner's reason it is not offered (the `list`'s not_offered), where given
    not_offered: dict[str, str] = field(default_factory=dict)

    def offered(self, variant: str | None = None) -> dict[str, tuple[str, ...]]:
        """algorithm -> operations, in one variant (default: the listing process's)."""
        return self.variant_algorithms.get(variant or self.variant, self.algorithms)

    def offers(self, algorithm: str, operation: str, variant: str | None = None) -> bool:
        return operation in self.offered(variant).get(algorithm, ())

    def why_not(self, algorithm: str, operation: str) -> str:
        """Why this provider does not offer an operation: the runner's own reason where its
        `list` gives one, else that its listing (of this version) does not name it."""
        reason = self.not_offered.get(algorithm)
        if reason:
            return reason
        if algorithm in self.algorithms:
            return f"{self.name} ({self.version}) offers {algorithm} without {operation}"
        return f"{self.name} ({self.version}) does not list {algorithm}"

    def variant_for(self, algorithm: str, operation: str) -> str | None:
        """The listing's variant when it offers the operation, else the first other variant
        that does (a runtime that has it: the JVM's jdk25 for ML-KEM); None when none does."""
        for v in [self.variant, *(n for n in self.variant_names() if n != self.variant)]:
            if self.offers(algorithm, operation, v):
                return v
        return None

    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]


@dataclass(frozen=True)
class Capabilities:
    runner: str
    runner_version: str
    machine: dict[str, Any]
    algorithms: dict[str, Algorithm]  # the whole catalogue, in the runner's order
    providers: dict[str, Provider]  # compiled-in providers, in the runner's order
    raw: dict[str, Any]
    # Merged from several runners (runner.discover): provider -> the runner executable serving it,
    # and runner -> why it is absent (its `list` failed, or its providers collide).
    runner_of: dict[str, str] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)

    def runner_name(self, provider: str) -> str:
        """The short name of the runner serving a provider: `native` for cryptobench-native,
        `go` for cryptobench-runner-go, …"""
        exe = Path(self.runner_of.get(provider, self.runner)).name
        return exe.removeprefix("cryptobench-runner-") if exe != "cryptobench-native" else "native"

    @classmethod
    def from_message(cls, msg: dict[str, Any]) -> "Capabilities":
        try:
            if msg.get("type") != "capabilities":
                raise ValueError(f"expected a capabilities message, got {msg.get('type')!r}")
            if msg.get("schema") != SCHEMA:
                raise ValueError(
                    f"runner speaks protocol schema {msg.get('schema')}, this cryptobench {SCHEMA}"
                )
            algorithms = {
                a["name"]: Algorithm(
                    name=a["name"],
                    kind=a["kind"],
                    operations=tuple(a["operations"]),
                    block_bytes=int(a.get("block_bytes", 1)),
                    min_size=int(a.get("min_size", 0)),
                    family=a.get("family", ""),
                    description=a.get("description", ""),
                    key_type=a.get("key_type", "") or "",
                    bits=int(a.get("bits", 0) or 0),
                    digest=a.get("digest", "") or "",
                    key_bytes=int(a.get("key_bytes", 0) or 0),
                    iv_bytes=int(a.get("iv_bytes", 0) or 0),
                )
                for a in msg["algorithms"]
            }
            providers = {
                p["name"]: Provider(
                    name=p["name"],
                    version=p.get("version", ""),
                    variant=p.get("variant", "default"),
                    variants=tuple(
                        Variant(v["name"], v.get("description", ""), dict(v.get("env", {})))
                        for v in p.get("variants", [{"name": "default"}])
                    ),
                    algorithms={a["name"]: tuple(a["operations"]) for a in p["algorithms"]},
                    code_path=dict(p.get("code_path", {})),
                    not_offered={str(k): str(v) for k, v in p.get("not_offered", {}).items()},
                )
                for p in msg["providers"]
            }
            return cls(
                runner=msg.get("runner", "?"),
                runner_version=msg.get("runner_version", "?"),
                machine=dict(msg.get("machine", {})),
                algorithms=algorithms,
                providers=providers,
                raw=msg,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise UserError(f"the runner's capabilities message is not understood: {e}") from e

    def provider(self, name: str) -> Provider:
        try:
            return self.providers[name]
        except KeyError:
            raise UserError(
                f"unknown provider '{name}' (this runner has: {', '.join(self.providers)})"
            ) from None

    def algorithm(self, name: str) -> Algorithm:
        try:
            return self.algorithms[name]
        except KeyError:
            raise UserError(
                f"unknown algorithm '{name}' (see `cryptobench list` for the catalogue)"
            ) from None


def merge(first: Capabilities, others: list[tuple[str, Capabilities]]) -> Capabilities:
    """One capability set from the native runner's (`first`) and other runners' listings.

    The catalogue is the native one plus algorithms only another runner has; a provider name
    belongs to one runner, so a second runner naming it again is reported in `absent` and that
    provider of it is ignored. The machine record is the native runner's, with each other
    runner's runtime facts under machine["runners"][runner].
    """
    algorithms = dict(first.algorithms)
    providers = dict(first.providers)
    runner_of = dict(first.runner_of) or dict.fromkeys(first.providers, first.runner)
    absent = dict(first.absent)
    machine = dict(first.machine)
    raw_algorithms = list(first.raw.get("algorithms", []))
    raw_providers = list(first.raw.get("providers", []))
    runners_record = dict(machine.get("runners") or {})
    for exe, caps in others:
        runners_record[caps.runner] = {"version": caps.runner_version, "machine": caps.machine}
        for name, alg in caps.algorithms.items():
            if name not in algorithms:
                algorithms[name] = alg
                raw_algorithms += [a for a in caps.raw.get("algorithms", []) if a["name"] == name]
        for name, provider in caps.providers.items():
            if name in providers:
                absent[f"{caps.runner} ({name})"] = (
                    f"provider name '{name}' is already served by {runner_of[name]}"
                )
                continue
            providers[name] = provider
            runner_of[name] = exe
            raw_providers += [p for p in caps.raw.get("providers", []) if p["name"] == name]
    if runners_record:
        machine["runners"] = runners_record
    raw = {**first.raw, "algorithms": raw_algorithms, "providers": raw_providers}
    raw["machine"] = machine
    if absent:
        raw["absent_runners"] = absent
    return Capabilities(
        runner=first.runner,
        runner_version=first.runner_version,
        machine=machine,
        algorithms=algorithms,
        providers=providers,
        raw=raw,
        runner_of=runner_of,
        absent=absent,
    )
