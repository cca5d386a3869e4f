"""The gate's post-quantum checks as steps (docs/post-quantum.md): key generation from a FIPS
203/204/205 seed, a KEM's known answers (decapsulation, implicit rejection, encapsulation with
given randomness), its round trip, and its agreement artifacts and cross-checks. ML-DSA and
SLH-DSA are signatures: their verification vectors and round trip are publickey.py's; only key
generation from the seed is added here."""

from cryptobench.gate.material import Params
from cryptobench.gate.steps import NotApplicable, Ref, Results, StepError, Steps
from cryptobench.gate.symmetric import Judge, clip
from cryptobench.gate.vectors import PkVector, Vectors, has_private, is_post_quantum

__all__ = ["is_post_quantum"]


def seed_keygen_judges(steps: Steps, info: dict, vectors: Vectors) -> list[tuple[str, Judge]]:
    """One `keygen` step from each distinct published seed: the public key must be the vector's.
    A provider that takes no seed (expanded keys only) answers unsupported: not applicable."""
    judges, seen = [], set()
    for v in vectors.public_key(info):
        seed, pub = v.key.get("seed"), v.key.get("pub")
        if not (v.valid and seed and pub) or seed in seen:
            continue
        seen.add(seed)
        judges.append(("key generation from the seed of " + v.source, _from_seed(steps, seed, pub)))
    return judges


def _from_seed(steps: Steps, seed: bytes, pub: bytes) -> Judge:
    g = steps.add("keygen", [b""], keypair={"seed": seed})

    def judge(r: Results) -> str:
        got = r.key(g).get("pub", b"")
        return "" if got == pub else f"public key {clip(got)}, expected {clip(pub)}"

    return judge


def kem_judges(steps: Steps, info: dict, vectors: Vectors) -> list[tuple[str, Judge]]:
    """Every KEM known answer, whichever operation the case measures: key generation from the
    seed, decapsulation (implicit rejection included), encapsulation with given randomness."""
    judges = seed_keygen_judges(steps, info, vectors)
    for v in vectors.public_key(info):
        judges.append((v.source, _decaps_vector(steps, v)))
        if v.randomness:
            judges.append((v.source + " (encapsulation)", _encaps_vector(steps, v)))
    return judges


def _decaps_vector(steps: Steps, v: PkVector) -> Judge:
    i = steps.add("decaps", [v.ciphertext, v.ciphertext], keypair=v.key)
    what = "implicit-rejection secret" if v.implicit_rejection else "shared secret"

    def judge(r: Results) -> str:
        for run in (0, 1):
            try:
                got = r.out(i, run)
            except StepError as e:
                if v.implicit_rejection:
                    return f"refused an invalid ciphertext instead of implicit rejection: {e}"
                raise
            if got != v.shared:
                return f"{what} {clip(got)}, expected {clip(v.shared)}"
        return ""

    return judge


def _encaps_vector(steps: Steps, v: PkVector) -> Judge:
    i = steps.add("encaps", [b"", b""], keypair={"pub": v.key["pub"]}, randomness=v.randomness)
    want = v.ciphertext + v.shared

    def judge(r: Results) -> str:
        for run in (0, 1):
            if (got := r.out(i, run)) != want:
                return f"ciphertext || secret {clip(got)}, expected {clip(want)}"
        return ""

    return judge


def kem_roundtrip(steps: Steps, info: dict, op: str, params: Params) -> Judge:
    """Encapsulation to the case's key has the catalogue's lengths, is randomised and
    decapsulates to its secret; a ciphertext with a bit flipped decapsulates to another secret,
    without an error (implicit rejection). Two generated keys differ and work."""
    n_ct, n_ss = info["ciphertext_bytes"], info["output_bytes"]
    if op == "keygen":
        g = steps.add("keygen", [b"", b""])
        e = steps.add("encaps", [b""], keypair=Ref(g, 0, parts=("pub",)))
        own = steps.add("decaps", [Ref(e, prefix=n_ct)], keypair=Ref(g, 0))
        other = steps.add("decaps", [Ref(e, prefix=n_ct)], keypair=Ref(g, 1))

        def keys_work(r: Results) -> str:
            a, b = r.key(g, 0), r.key(g, 1)
            if a == b:
                return "two generated keys are identical"
            if not has_private(info, a):
                return "generated key has neither a seed nor a private key"
            n_pub = len(a.get("pub", b""))
            if n_pub != info["public_key_bytes"]:
                return f"public key is {n_pub} bytes, expected {info['public_key_bytes']}"
            secret = r.out(e)[n_ct:]
            if r.out(own) != secret:
                return "a generated key does not decapsulate its own encapsulation"
            if r.accepted(other) and r.out(other) == secret:
                return "another generated key decapsulates to the same secret"
            return ""

        return keys_work
    e = steps.add("encaps", [b"", b""], keypair=params.public)
    d = steps.add("decaps", [Ref(e, prefix=n_ct)], keypair=params.keypair)
    bad = steps.add("decaps", [Ref(e, prefix=n_ct, flip=(0, 1))], keypair=params.keypair)

    def roundtrip(r: Results) -> str:
        c1, c2 = r.out(e, 0), r.out(e, 1)
        if len(c1) != n_ct + n_ss:
            return f"encapsulation gave {len(c1)} bytes, expected {n_ct} + {n_ss}"
        if c1 == c2:
            return "two encapsulations are identical (no randomness)"
        if (got := r.out(d)) != c1[n_ct:]:
            return (
                f"decapsulation gave {clip(got)}, the encapsulation's secret is {clip(c1[n_ct:])}"
            )
        try:
            rejected = r.out(bad)
        except StepError as err:
            return f"refused a ciphertext with one bit flipped instead of implicit rejection: {err}"
        if len(rejected) != n_ss or rejected == c1[n_ct:]:
            return "a ciphertext with one bit flipped decapsulates to the same secret"
        return ""

    return roundtrip


def plan_kem_artifacts(steps: Steps, info: dict, m: dict, key: dict) -> tuple[int, int]:
    """One encapsulation to the test key, and the decapsulation of input[:ciphertext_bytes]."""
    pub = {"pub": key["pub"]}
    e = steps.add("encaps", [b""], keypair=pub)
    rej = steps.add("decaps", [m["input"][: info["ciphertext_bytes"]]], keypair=key)
    return e, rej


def kem_artifacts(info: dict, r: Results, e: int, rej: int) -> dict[str, str]:
    out = r.out(e)
    n = info["ciphertext_bytes"]
    return {"ciphertext": out[:n].hex(), "secret": out[n:].hex(), "rejection": r.out(rej).hex()}


def plan_kem_check(steps: Steps, info: dict, arts: dict, key: dict) -> Judge:
    """Decapsulate a peer's ciphertext with the test key: its secret must come out."""
    if isinstance(arts.get("generated"), dict):
        peer = {k: bytes.fromhex(v) for k, v in arts["generated"].items()}
        e = steps.add("encaps", [b""], keypair={"pub": peer.get("pub", b"")})
        d = steps.add("decaps", [Ref(e, prefix=info["ciphertext_bytes"])], keypair=peer)

        def uses_key(r: Results) -> str:
            try:
                secret = r.out(e)[info["ciphertext_bytes"] :]
            except StepError as err:
                return f"we cannot encapsulate to its generated key: {err}"
            try:
                return "" if r.out(d) == secret else "its generated key decapsulates wrongly"
            except NotApplicable as err:
                raise NotApplicable(f"we cannot use its generated private key: {err}") from None

        return uses_key
    if "ciphertext" not in arts:
        raise NotApplicable("no ciphertext to decapsulate")
    ct, want = bytes.fromhex(arts["ciphertext"]), bytes.fromhex(arts.get("secret", ""))
    d = steps.add("decaps", [ct], keypair=key)

    def decapsulates(r: Results) -> str:
        try:
            got = r.out(d)
        except StepError as err:
            return f"cannot decapsulate its ciphertext: {err}"
        return "" if got == want else "its ciphertext decapsulates to another secret here"

    return decapsulates
