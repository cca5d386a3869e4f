"""Cross-provider agreement, decided by the coordinator (docs/protocol.md, "Agreement").

Every provider computes its agreement artifacts in its own runner process (`agreement`), and
checks the others' randomised artifacts (`cross_check`); a crash or a wrong answer in one library
therefore only touches that library. This module makes the material the providers get and decides
who is wrong:

* Two providers *agree* when their artifacts are equal where equality is defined (ciphertexts,
  digests, MACs, KDF outputs, shared secrets, deterministic signatures) and neither rejects the
  other's artifacts in a cross-check (randomised signatures, OAEP ciphertexts, generated keys,
  symmetric ciphertexts of a decrypt case).
* The *reference* for a provider is every other provider that passed its own known-answer tests
  (for every operation of the algorithm); only when no provider passed them, every other
  provider. A provider that failed its known-answer tests is never the reference that fails
  another.
* A provider fails agreement when it disagrees with more of its reference providers than it agrees
  with (so a lone provider against a KAT-passing majority loses; two KAT-passing providers that
  disagree with each other both fail, since nothing says which is right).
"""

import random
from dataclasses import dataclass, field
from typing import Any

from cryptobench.capabilities import Algorithm

INPUT_BYTES = 4096
SALT_BYTES = 16
# Signature schemes whose signature is a function of key and message (RFC 8017 PKCS#1 v1.5,
# RFC 8032 EdDSA): compared by equality as well as by cross-verification.
_DETERMINISTIC_SIGNATURE_FAMILIES = ("rsa-pkcs1", "ed25519", "ed448")


def material(alg: Algorithm, seed: int) -> dict[str, str]:
    """Key, IV, input and salt for one agreement check, as lowercase hex, from `seed`."""
    rng = random.Random(seed)

    def hexbytes(n: int) -> str:
        return rng.randbytes(n).hex()

    return {
        "key": hexbytes(alg.key_bytes),
        "iv": hexbytes(alg.iv_bytes),
        "aad": "",
        "input": hexbytes(INPUT_BYTES),
        "salt": hexbytes(SALT_BYTES),
    }


# A KEM's ciphertext and secret are randomised; its implicit-rejection secret for one invalid
# ciphertext is a function of key and ciphertext (FIPS 203: J(z || c)), so it is compared.
_KEM_EQUAL_ARTIFACTS = ("rejection",)


def compared_by_equality(alg: Algorithm, operation: str) -> bool:
    if operation == "keygen":
        return False
    if alg.kind == "signature":
        return alg.family in _DETERMINISTIC_SIGNATURE_FAMILIES
    return alg.kind != "pk-encryption"


def needs_cross_check(alg: Algorithm, operation: str) -> bool:
    """Whether equality alone cannot decide (or, for decryption, does not cover the case)."""
    if operation == "keygen" or alg.kind in ("signature", "pk-encryption", "kem"):
        return True
    return alg.kind in ("cipher", "aead") and operation == "decrypt"


def _compared(alg: Algorithm, artifacts: dict[str, Any]) -> dict[str, Any]:
    """The artifacts equality decides on (a KEM: its implicit-rejection secret only)."""
    if alg.kind == "kem":
        return {k: v for k, v in artifacts.items() if k in _KEM_EQUAL_ARTIFACTS}
    return artifacts


@dataclass
class Reply:
    """One provider's `agreement` reply (status ok, failed or unsupported)."""

    status: str
    reason: str = ""
    kat_ok: bool = False
    kat_detail: str = ""
    artifacts: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_message(cls, m: dict[str, Any]) -> "Reply":
        kat = m.get("kat") or {}
        status = m.get("status")
        return cls(
            status=status if status in ("ok", "unsupported") else "failed",
            reason=str(m.get("reason", "")),
            kat_ok=bool(kat.get("ok")),
            kat_detail=str(kat.get("detail", "")),
            artifacts=m.get("artifacts") or {},
        )


@dataclass
class Verdict:
    """What agreement says about one provider."""

    ok: bool
    summary: str  # "agrees with botan, openssl" / "output differs from botan's, openssl's ..."
    agrees: list[str] = field(default_factory=list)
    disagrees: dict[str, str] = field(default_factory=dict)  # peer -> how
    not_compared: dict[str, str] = field(default_factory=dict)  # peer -> why

    def detail(self) -> dict[str, Any]:
        """For the stored gate record."""
        return {
            "ok": self.ok,
            "agrees": self.agrees,
            "disagrees": self.disagrees,
            "not_compared": self.not_compared,
        }


def decide(
    alg: Algorithm,
    operation: str,
    replies: dict[str, Reply],
    cross: dict[str, dict[str, dict[str, Any]]] | None = None,
) -> dict[str, Verdict]:
    """Verdicts for every provider with an ok reply. `cross[checker][subject]` is the checker's
    cross_check verdict ({"ok": true/false/null, "reason"}) on the subject's artifacts."""
    cross = cross or {}
    ok = {p: r for p, r in replies.items() if r.status == "ok"}
    equality = compared_by_equality(alg, operation)

    def disagreement(a: str, b: str) -> str:
        """'' when a and b agree, else how they differ (from a's point of view)."""
        if equality and _compared(alg, ok[a].artifacts) != _compared(alg, ok[b].artifacts):
            if alg.kind == "kem":
                return f"implicit-rejection secret differs from {b}'s"
            return f"output differs from {b}'s"
        for checker, subject, how in (
            (b, a, f"{b} rejects its output"),
            (a, b, f"it rejects {b}'s output"),
        ):
            v = cross.get(checker, {}).get(subject)
            if v and v.get("ok") is False:
                return how + (f" ({v.get('reason')})" if v.get("reason") else "")
        return ""

    anyone_passed_kat = any(r.kat_ok for r in ok.values())
    verdicts: dict[str, Verdict] = {}
    for p in ok:
        others = [q for q in ok if q != p]
        reference = [q for q in others if ok[q].kat_ok] if anyone_passed_kat else others
        agrees, disagrees = [], {}
        for q in reference:
            how = disagreement(p, q)
            if how:
                disagrees[q] = how
            else:
                agrees.append(q)
        not_compared = {
            q: (r.reason or r.status) for q, r in replies.items() if q != p and r.status != "ok"
        }
        not_compared.update(
            {q: "failed its own known-answer tests" for q in others if q not in reference}
        )
        failed = len(disagrees) > len(agrees)
        if failed:
            summary = "; ".join(disagrees.values())
            if agrees:
                summary += f" (agrees with {', '.join(agrees)})"
            if not ok[p].kat_ok:
                summary += f"; its own known-answer tests failed: {ok[p].kat_detail}"
        elif agrees:
            summary = f"agrees with {', '.join(agrees)}"
            if disagrees:
                summary += "; " + "; ".join(disagrees.values())
        else:
            summary = "no other provider to compare with"
        verdicts[p] = Verdict(not failed, summary, agrees, disagrees, not_compared)
    return verdicts
