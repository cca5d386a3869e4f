"""The gate's checks of public-key algorithms and KDFs as steps (native/src/core/gate_pk.cpp is
the same gate inside the native runner). Randomised operations (ECDSA and PSS signatures, OAEP,
key generation) cannot equal a published answer: they are checked by round trip here and by the
other providers in the agreement's cross-check. The family quirks live here and nowhere else."""

from collections.abc import Callable

from cryptobench.gate.material import ByteStream, Params
from cryptobench.gate.steps import CASE_INPUT, NotApplicable, Ref, Results, StepError, Steps
from cryptobench.gate.symmetric import Judge, clip
from cryptobench.gate.vectors import PkVector, has_private, public_names, public_parts

# Signature schemes whose signature is a function of key and message (RFC 8017 PKCS#1 v1.5,
# RFC 8032 EdDSA): a known answer is compared; other signatures are verified.
DETERMINISTIC_SIGNATURE_FAMILIES = ("rsa-pkcs1", "ed25519", "ed448")
ED448_LAST_BYTE = (
    "accepts a signature whose last byte (zero in every valid Ed448 signature) was altered"
)


class LaxAccept(Exception):
    """A verifier accepted a vector only a strict verifier rejects: noted, not failed."""


def fixed_message(seed: int = 7) -> bytes:
    """The gate's fixed 32-byte message (the native gate's ByteStream(7).bytes(32))."""
    return ByteStream(seed).bytes(32)


def not_applicable(why: str) -> Judge:
    def judge(_r: Results) -> str:
        raise NotApplicable(why)

    return judge


def signature_for_key(info: dict, offered: set[str]) -> str:
    """The signature algorithm that exercises a key of this algorithm (an rsa-N key: PKCS#1 v1.5
    or PSS, whichever the provider offers), or "" when there is none."""
    if info["kind"] == "signature":
        return info["name"]
    for scheme in ("-pkcs1-sha256", "-pss-sha256"):
        if info["name"] + scheme in offered:
            return info["name"] + scheme
    return ""


def _pub(info: dict, step: int, run: int) -> Ref:
    return Ref(step, run, parts=tuple(public_names(info)))


def kat_vector(steps: Steps, info: dict, op: str, v: PkVector) -> Judge:
    kind = info["kind"]
    if kind == "signature":
        return _sign_vector(steps, info, v) if op == "sign" else _verify_vector(steps, info, v)
    if kind == "pk-encryption":
        pub = public_parts(info, v.key)
        if op == "decrypt":
            # A provider that refuses to encrypt an empty message does not take empty messages
            # at all, so an empty-message vector does not apply to it.
            empty = steps.add("encrypt", [b""], keypair=pub) if not v.plaintext else None
            bad = bytearray(v.ciphertext)
            bad[len(bad) // 2] ^= 1
            i = steps.add("decrypt", [v.ciphertext, v.ciphertext, bytes(bad)], keypair=v.key)

            def decrypts(r: Results) -> str:
                if empty is not None:
                    r.out(empty)
                for run in (0, 1):
                    if (pt := r.out(i, run)) != v.plaintext:
                        return f"plaintext {clip(pt)}, expected {clip(v.plaintext)}"
                # PKCS#1 v1.5 with implicit rejection answers a broken ciphertext with a
                # synthetic message instead of an error: not an acceptance of this one.
                implicit = info["family"] == "rsa-pkcs1v15-enc"
                if r.accepted(i, 2) and (not implicit or r.out(i, 2) == v.plaintext):
                    return "accepted a ciphertext with one bit flipped"
                return ""

            return decrypts
        if not has_private(info, v.key):
            return not_applicable("vector has no private key")
        enc = steps.add("encrypt", [v.plaintext], keypair=pub)
        dec = steps.add("decrypt", [Ref(enc)], keypair=v.key)

        def own_ciphertext(r: Results) -> str:
            r.out(enc)
            if r.out(dec) != v.plaintext:
                return "its own ciphertext does not decrypt to the plaintext"
            return ""

        return own_ciphertext
    if kind == "key-agreement":
        i = steps.add("derive", [b"", b""], keypair=v.key, peer=v.peer)
        return _equals_twice(i, v.shared, "shared secret")
    if kind == "kdf":
        i = steps.add("derive", [v.input, v.input], **v.kdf)
        return _equals_twice(i, v.output, "output")
    return not_applicable(f"no vectors for {info['name']}")


def _equals_twice(i: int, want: bytes, what: str) -> Judge:
    def judge(r: Results) -> str:
        for run in (0, 1):
            if (got := r.out(i, run)) != want:
                return f"{what} {clip(got)}, expected {clip(want)}"
        return ""

    return judge


def _sign_vector(steps: Steps, info: dict, v: PkVector) -> Judge:
    if not v.valid or not has_private(info, v.key):
        return not_applicable("vector has no private key")
    s = steps.add("sign", [v.message, v.message], keypair=v.key)
    if info["family"] in DETERMINISTIC_SIGNATURE_FAMILIES:
        return _equals_twice(s, v.signature, "signature")
    pub = public_parts(info, v.key)
    checks = [
        steps.add("verify", [v.message], keypair=pub, signature=Ref(s, run)) for run in (0, 1)
    ]

    def own_signatures_verify(r: Results) -> str:
        for run in (0, 1):
            r.out(s, run)
            if not r.accepted(checks[run]):
                return "its own signature does not verify"
        return ""

    return own_signatures_verify


def _verify_vector(steps: Steps, info: dict, v: PkVector) -> Judge:
    pub = public_parts(info, v.key)
    i = steps.add("verify", [v.message, v.message], keypair=pub, signature=v.signature)
    flipped = other = -1
    if v.valid:
        bad = bytearray(v.signature)
        bad[len(bad) // 2] ^= 1
        flipped = steps.add("verify", [v.message], keypair=pub, signature=bytes(bad))
        other = steps.add("verify", [v.message + b"\0"], keypair=pub, signature=v.signature)

    def judge(r: Results) -> str:
        # A key or signature refused when the operation is prepared is a rejection of an invalid
        # vector, and the library's error for a valid one.
        try:
            r.step(i)
            prepared = True
        except StepError:
            if v.valid:
                raise
            prepared = False
        for run in (0, 1):
            ok = prepared and r.accepted(i, run)
            if ok and not v.valid and v.strict_only:
                raise LaxAccept()
            if ok != v.valid:
                return "rejected a valid signature" if v.valid else "accepted an invalid signature"
        if v.valid and r.accepted(flipped):
            return "accepted a signature with one bit flipped"
        if v.valid and r.accepted(other):
            return "accepted the signature for a different message"
        return ""

    return judge


def roundtrip(
    steps: Steps, info: dict, op: str, params: Params, offered: set[str], lax: Callable[[str], None]
) -> Judge:
    """On the case's own key and input: sign → verify (a flipped bit refused), encrypt twice →
    decrypt, both parties derive one secret, two derivations agree; two generated keys differ
    and work."""
    kind = info["kind"]
    if op == "keygen":
        g = steps.add("keygen", [b"", b""])
        return generated_key_works(steps, info, offered, g)
    if kind == "signature":
        return _sign_roundtrip(steps, info, params, lax)
    if kind == "pk-encryption":
        enc = steps.add("encrypt", [CASE_INPUT, CASE_INPUT], keypair=params.public)
        dec = steps.add("decrypt", [Ref(enc)], digest=True, keypair=params.keypair)

        def encrypts(r: Results) -> str:
            c1, c2 = r.out(enc, 0), r.out(enc, 1)
            if len(c1) != info["output_bytes"]:
                return "ciphertext is " + clip(c1)
            if c1 == c2:
                return "two encryptions of the same message are identical (no randomness)"
            pt = r.digest(dec)
            if (pt.len, pt.sha256) != (r.input.len, r.input.sha256):
                return "decrypt(encrypt(input)) differs from the input"
            return ""

        return encrypts
    if kind == "key-agreement":
        own_peer = public_parts(info, params.keypair)
        ab = steps.add("derive", [b""], keypair=params.keypair, peer=params.peer)
        ba = steps.add("derive", [b""], keypair=params.peer_key, peer=own_peer)

        def one_secret(r: Results) -> str:
            a, b = r.out(ab), r.out(ba)
            if len(a) != info["output_bytes"]:
                return f"shared secret is {len(a)} bytes, expected {info['output_bytes']}"
            if a != b:
                return "the two parties compute different shared secrets"
            return ""

        return one_secret
    if kind == "kdf":
        i = steps.add("derive", [CASE_INPUT, CASE_INPUT], digest=True, **params.kdf())

        def same_twice(r: Results) -> str:
            a, b = r.digest(i, 0), r.digest(i, 1)
            if a.len != params.out_len:
                return f"output is {a.len} bytes, expected {params.out_len}"
            if a != b:
                return "two derivations from the same input differ"
            return ""

        return same_twice
    return lambda _r: "not a public-key algorithm"


def _sign_roundtrip(steps: Steps, info: dict, params: Params, lax: Callable[[str], None]) -> Judge:
    n = info["output_bytes"]
    s = steps.add("sign", [CASE_INPUT], keypair=params.keypair)
    v = steps.add("verify", [CASE_INPUT], keypair=params.public, signature=Ref(s))
    # First, inner and last byte: EdDSA's last byte holds the top of S (Ed448: always 0), where
    # lax decoding hides.
    flips = {
        at: steps.add(
            "verify", [CASE_INPUT], keypair=params.public, signature=Ref(s, flip=(at, 0x80))
        )
        for at in dict.fromkeys((0, n // 3, n - 1))
    }

    def judge(r: Results) -> str:
        sig = r.out(s)
        if len(sig) != n:
            return f"signature is {len(sig)} bytes, expected {n}"
        if not r.accepted(v):
            return "its own signature does not verify"
        for at, i in flips.items():
            if not r.accepted(i):
                continue
            # Ed448's last byte must be zero (RFC 8032 5.2.2): a verifier that ignores it accepts
            # a second encoding of the same signature -- malleable, not forged.
            if info["name"] == "ed448" and at == n - 1:
                lax(ED448_LAST_BYTE)
                continue
            return f"accepted its signature with a bit of byte {at} flipped"
        return ""

    return judge


def generated_key_works(steps: Steps, info: dict, offered: set[str], g: int) -> Judge:
    """Two keys generated by step g (runs 0 and 1) differ, have a private part, and work: they
    derive one shared secret, or the first signs and verifies, and not under the second."""
    msg = fixed_message()
    if info["kind"] == "key-agreement":
        ab = steps.add("derive", [b""], keypair=Ref(g, 0), peer=_pub(info, g, 1))
        ba = steps.add("derive", [b""], keypair=Ref(g, 1), peer=_pub(info, g, 0))
    alg = signature_for_key(info, offered) if info["kind"] != "key-agreement" else ""
    if alg:
        s = steps.add("sign", [msg], algorithm=alg, keypair=Ref(g, 0))
        own = steps.add("verify", [msg], algorithm=alg, keypair=_pub(info, g, 0), signature=Ref(s))
        other = steps.add(
            "verify", [msg], algorithm=alg, keypair=_pub(info, g, 1), signature=Ref(s)
        )

    def judge(r: Results) -> str:
        a, b = r.key(g, 0), r.key(g, 1)
        if a == b:
            return "two generated keys are identical"
        if not has_private(info, a):
            return "generated key has no private part"
        if info["kind"] == "key-agreement":
            x, y = r.out(ab), r.out(ba)
            if x != y:
                return "two generated keys do not agree on a shared secret"
            if len(x) != info["output_bytes"]:
                return "shared secret is " + clip(x)
            return ""
        if not alg:
            return ""
        r.out(s)
        if not r.accepted(own):
            return "a signature made with a generated key does not verify"
        if r.accepted(other):
            return "a signature verifies under another generated key"
        return ""

    return judge
