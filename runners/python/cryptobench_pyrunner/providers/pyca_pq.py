"""pyca's post-quantum algorithms: ML-KEM-768/1024 and ML-DSA-44/65/87 of the OpenSSL that
cryptography bundles (no ML-KEM-512, SLH-DSA or hybrid in its API). Keys are the FIPS 203/204
seeds, the only private form pyca imports (docs/post-quantum.md); signing is hedged and pure with
an empty context (pyca's `sign(data)`), and pyca has no derandomised encapsulation."""

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import mldsa, mlkem

from ..errors import Rejected, Unsupported

KEMS = {"ml-kem-768": mlkem.MLKEM768PrivateKey, "ml-kem-1024": mlkem.MLKEM1024PrivateKey}
KEM_PUBLIC = {"ml-kem-768": mlkem.MLKEM768PublicKey, "ml-kem-1024": mlkem.MLKEM1024PublicKey}
DSAS = {
    "ml-dsa-44": mldsa.MLDSA44PrivateKey,
    "ml-dsa-65": mldsa.MLDSA65PrivateKey,
    "ml-dsa-87": mldsa.MLDSA87PrivateKey,
}
DSA_PUBLIC = {
    "ml-dsa-44": mldsa.MLDSA44PublicKey,
    "ml-dsa-65": mldsa.MLDSA65PublicKey,
    "ml-dsa-87": mldsa.MLDSA87PublicKey,
}
ALGORITHMS = [*KEMS, *DSAS]


def _private(alg: str, key: dict):
    seed = key.get("seed", b"")
    if not seed and key.get("priv"):
        raise Unsupported("pyca imports only the FIPS 203/204 seed, not an expanded private key")
    return (KEMS.get(alg) or DSAS[alg]).from_seed_bytes(seed)


def key_from_seed(alg: str, seed: bytes) -> dict:
    key = _private(alg, {"seed": seed})
    return {"seed": key.private_bytes_raw(), "pub": key.public_key().public_bytes_raw()}


def generate_key(alg: str) -> dict:
    key = (KEMS.get(alg) or DSAS[alg]).generate()
    return {"seed": key.private_bytes_raw(), "pub": key.public_key().public_bytes_raw()}


def prepare(alg: str, op: str, p):
    if op == "keygen":
        seed = p.keypair.get("seed")
        return (lambda _d: key_from_seed(alg, seed)) if seed else (lambda _d: generate_key(alg))
    if op == "encaps":
        if p.randomness:
            raise Unsupported("pyca has no derandomised ML-KEM encapsulation")
        pub = KEM_PUBLIC[alg].from_public_bytes(p.keypair.get("pub", b""))

        def encaps(_data):
            secret, ciphertext = pub.encapsulate()
            return ciphertext + secret

        return encaps
    if op == "decaps":
        return _private(alg, p.keypair).decapsulate
    if op == "sign":
        return _private(alg, p.keypair).sign
    pub = DSA_PUBLIC[alg].from_public_bytes(p.keypair.get("pub", b""))
    sig = p.signature

    def verify(data):
        try:
            pub.verify(sig, data)
        except InvalidSignature as e:
            raise Rejected("ML-DSA signature does not verify") from e
        return b""

    return verify
