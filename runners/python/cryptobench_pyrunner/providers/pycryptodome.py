"""Provider `pycryptodome`: PyCryptodome (the `Crypto` package) through its normal API: a new
cipher object per message, as its ciphers are single-use."""

from types import SimpleNamespace

import Crypto
from Crypto.Cipher import (
    AES,
    DES3,
    PKCS1_OAEP,
    ChaCha20,
    ChaCha20_Poly1305,
    PKCS1_v1_5,
    Salsa20,
)
from Crypto.Hash import (
    CMAC,
    HMAC,
    MD5,
    RIPEMD160,
    SHA1,
    SHA3_256,
    SHA3_512,
    SHA224,
    SHA256,
    SHA384,
    SHA512,
    BLAKE2b,
)
from Crypto.Protocol import DH
from Crypto.Protocol.KDF import HKDF, PBKDF2, scrypt
from Crypto.PublicKey import ECC, RSA
from Crypto.Signature import DSS, eddsa, pkcs1_15, pss

from .. import catalogue, variants
from ..errors import Rejected, Unsupported
from . import Provider
from ._keys import field_bytes, to_bytes, to_int

HASHES = {
    "md5": MD5,
    "sha1": SHA1,
    "sha224": SHA224,
    "sha256": SHA256,
    "sha384": SHA384,
    "sha512": SHA512,
    "sha512-256": SimpleNamespace(new=lambda data: SHA512.new(data, truncate="256")),
    "sha3-256": SHA3_256,
    "sha3-512": SHA3_512,
    "ripemd160": RIPEMD160,
}
CURVES = {"p256": "P-256", "p384": "P-384", "p521": "P-521"}
MODES = {"cbc": AES.MODE_CBC, "cfb": AES.MODE_CFB, "ofb": AES.MODE_OFB}

ALGORITHMS = [
    *(f"aes-{b}-{m}" for b in (128, 192, 256) for m in ("cbc", "cfb", "ofb", "ctr", "gcm")),
    "des-ede3-cbc",
    "chacha20",
    "xchacha20",
    "salsa20",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    *HASHES,
    "blake2b-512",
    "hmac-sha256",
    "hmac-sha512",
    "cmac-aes128",
    "cmac-aes256",
    *(
        f"rsa-{b}{s}"
        for b in (1024, 2048, 3072, 4096)
        for s in ("", "-pkcs1-sha256", "-pss-sha256", "-oaep-sha256")
    ),
    "rsa-2048-pkcs1v15-enc",
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "ed25519",
    "ed448",
    "x25519",
    "x448",
    "ecdh-p256",
    "ecdh-p384",
    "pbkdf2-sha1",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "scrypt",
    "hkdf-sha256",
]


def _identity(z: bytes) -> bytes:
    return z


class PyCryptodome(Provider):
    name = "pycryptodome"

    def version(self) -> str:
        return f"pycryptodome {Crypto.__version__}"

    def code_path(self) -> dict:
        from Crypto.Util._cpu_features import have_aes_ni

        return {
            "aes_ni_in_cpu": "yes" if have_aes_ni() else "no",
            "aes_ni_used": "yes" if have_aes_ni() and _aesni() else "no",
        }

    def prepare(self, alg: str, op: str, params):
        if alg not in ALGORITHMS:
            raise Unsupported(f"pycryptodome does not offer {alg}")
        if op == "keygen":
            return lambda _data: self.generate_key(alg)
        info = catalogue.find(alg)
        kind = info["kind"]
        if kind in ("cipher", "aead"):
            return _symmetric(alg, op, params)
        if kind == "hash":
            if alg == "blake2b-512":
                return lambda data: BLAKE2b.new(digest_bits=512, data=data).digest()
            h = HASHES[alg]
            return lambda data: h.new(data).digest()
        if kind == "mac":
            key = params.key
            if op == "verify":  # the `leak` request's MAC verification (docs/protocol.md)
                return _mac_verify(alg, key, info["output_bytes"])
            if alg.startswith("hmac-"):
                h = HASHES[alg[5:]]
                return lambda data: HMAC.new(key, data, digestmod=h).digest()
            return lambda data: CMAC.new(key, data, ciphermod=AES).digest()
        if kind == "kdf":
            return _kdf(alg, params)
        return _public_key(info, op, params)

    def generate_key(self, alg: str) -> dict:
        info = catalogue.find(alg)
        if alg not in ALGORITHMS or "keygen" not in info["operations"]:
            raise Unsupported(f"pycryptodome does not generate {alg} keys")
        if alg.startswith("rsa-"):
            k = RSA.generate(info["bits"], e=65537)
            n, e, d, p, q = k.n, k.e, k.d, k.p, k.q
            return {
                "n": to_bytes(n),
                "e": to_bytes(e),
                "d": to_bytes(d),
                "p": to_bytes(p),
                "q": to_bytes(q),
                "dp": to_bytes(d % (p - 1)),
                "dq": to_bytes(d % (q - 1)),
                "qinv": to_bytes(pow(q, -1, p)),
            }
        if alg.startswith(("ecdsa-", "ecdh-")):
            size = field_bytes(alg)
            k = ECC.generate(curve=CURVES[alg.rsplit("-", 1)[1]])
            return {
                "d": to_bytes(int(k.d), size),
                "x": to_bytes(int(k.pointQ.x), size),
                "y": to_bytes(int(k.pointQ.y), size),
            }
        curve = {
            "ed25519": "Ed25519",
            "ed448": "Ed448",
            "x25519": "Curve25519",
            "x448": "Curve448",
        }[alg]
        k = ECC.generate(curve=curve)
        return {"priv": k.seed, "pub": k.public_key().export_key(format="raw")}


def _aesni() -> bool:
    """The variant `noaesni` is PyCryptodome's own switch (variants.py)."""
    return variants.CURRENT["pycryptodome"] != "noaesni"


def _symmetric(alg: str, op: str, params):
    key, iv, aad = params.key, params.iv, params.aad
    enc = op == "encrypt"
    if alg.endswith("gcm") or alg.endswith("chacha20-poly1305"):
        if alg.endswith("gcm"):

            def new():
                return AES.new(key, AES.MODE_GCM, nonce=iv, use_aesni=_aesni())
        else:

            def new():
                return ChaCha20_Poly1305.new(key=key, nonce=iv)

        if enc:

            def seal(data):
                c = new()
                c.update(aad)
                ct, tag = c.encrypt_and_digest(data)
                return ct + tag

            return seal

        def open_(data):
            c = new()
            c.update(aad)
            try:
                return c.decrypt_and_verify(data[:-16], data[-16:])
            except ValueError as e:
                raise Rejected("authentication tag does not verify") from e

        return open_
    if alg in ("chacha20", "xchacha20"):
        ChaCha20.new(key=key, nonce=iv)  # a bad key or nonce fails here, not in the timed loop
        return lambda data: ChaCha20.new(key=key, nonce=iv).encrypt(data)
    if alg == "salsa20":
        Salsa20.new(key=key, nonce=iv)
        return lambda data: Salsa20.new(key=key, nonce=iv).encrypt(data)
    if alg == "des-ede3-cbc":

        def new():
            return DES3.new(key, DES3.MODE_CBC, iv=iv)
    elif alg.endswith("ctr"):
        # The catalogue's IV is the whole 128-bit big-endian counter block.
        def new():
            return AES.new(key, AES.MODE_CTR, nonce=b"", initial_value=iv, use_aesni=_aesni())
    elif alg.endswith("cfb"):

        def new():
            return AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128, use_aesni=_aesni())
    else:
        mode = MODES[alg.rsplit("-", 1)[1]]

        def new():
            return AES.new(key, mode, iv=iv, use_aesni=_aesni())

    new()
    if enc:
        return lambda data: new().encrypt(data)
    return lambda data: new().decrypt(data)


def _kdf(alg: str, p):
    cost, n, salt = p.cost, p.out_len, p.salt
    if alg.startswith("pbkdf2-"):
        h, count = HASHES[alg[7:]], cost["iterations"]
        return lambda pw: PBKDF2(pw, salt, dkLen=n, count=count, hmac_hash_module=h)
    if alg == "scrypt":
        big_n, r, par = cost["N"], cost["r"], cost["p"]
        return lambda pw: scrypt(pw, salt, key_len=n, N=big_n, r=r, p=par)
    info = p.info
    return lambda ikm: HKDF(ikm, n, salt, SHA256, context=info)


def _rsa_key(k: dict):
    if k.get("d"):
        return RSA.construct(
            (to_int(k["n"]), to_int(k["e"]), to_int(k["d"]), to_int(k["p"]), to_int(k["q"]))
        )
    return RSA.construct((to_int(k["n"]), to_int(k["e"])))


def _ec_key(curve: str, k: dict):
    if k.get("d"):
        return ECC.construct(curve=curve, d=to_int(k["d"]))
    return ECC.construct(curve=curve, point_x=to_int(k["x"]), point_y=to_int(k["y"]))


def _verifying(verify):
    def run(data):
        try:
            verify(data)
        except ValueError as e:
            raise Rejected("signature does not verify") from e
        return b""

    return run


def _public_key(info: dict, op: str, p):
    alg, k, sig = info["name"], p.keypair, p.signature
    if alg.startswith("rsa-"):
        key = _rsa_key(k)
        scheme = alg.split("-")[2]
        if scheme == "oaep":
            cipher = PKCS1_OAEP.new(key, hashAlgo=SHA256)
            if op == "encrypt":
                return cipher.encrypt

            def dec(data):
                try:
                    return cipher.decrypt(data)
                except ValueError as e:
                    raise Rejected("OAEP decryption failed") from e

            return dec
        if scheme == "pkcs1v15":
            cipher = PKCS1_v1_5.new(key)
            if op == "encrypt":
                return cipher.encrypt
            # PyCryptodome returns the caller's sentinel for a bad padding instead of raising (its
            # answer to Bleichenbacher); the object's identity tells the two apart.
            failed = object()

            def dec_v15(data):
                pt = cipher.decrypt(data, failed)
                if pt is failed:
                    raise Rejected("PKCS#1 v1.5 decryption failed")
                return pt

            return dec_v15
        signer = pkcs1_15.new(key) if scheme == "pkcs1" else pss.new(key, salt_bytes=32)
        if op == "sign":
            return lambda data: signer.sign(SHA256.new(data))
        return _verifying(lambda data: signer.verify(SHA256.new(data), sig))
    if alg.startswith("ecdsa-"):
        h = HASHES[info["digest"]]
        signer = DSS.new(_ec_key(CURVES[alg[6:]], k), "fips-186-3")
        if op == "sign":
            return lambda data: signer.sign(h.new(data))
        return _verifying(lambda data: signer.verify(h.new(data), sig))
    if alg in ("ed25519", "ed448"):
        if op == "sign":
            signer = eddsa.new(eddsa.import_private_key(k["priv"]), "rfc8032")
            return signer.sign
        verifier = eddsa.new(eddsa.import_public_key(k["pub"]), "rfc8032")
        return _verifying(lambda data: verifier.verify(data, sig))
    # key agreement
    if alg in ("x25519", "x448"):
        imp_priv = getattr(DH, f"import_{alg}_private_key")
        imp_pub = getattr(DH, f"import_{alg}_public_key")
        own, peer = imp_priv(k["priv"]), imp_pub(p.peer["pub"])
    else:
        curve = CURVES[alg[5:]]
        own, peer = _ec_key(curve, k), _ec_key(curve, p.peer)
    return lambda _data: DH.key_agreement(static_priv=own, static_pub=peer, kdf=_identity)


PROVIDER = PyCryptodome()


def _mac_verify(alg: str, key: bytes, tag_len: int):
    """PyCryptodome's own verification of message || tag: verify() compares (through a keyed
    BLAKE2s of both tags, its defence against timing) and raises ValueError for a wrong tag."""

    def run(data):
        if len(data) < tag_len:
            raise Rejected("input shorter than its tag")
        message, tag = data[: len(data) - tag_len], data[len(data) - tag_len :]
        if alg.startswith("hmac-"):
            mac = HMAC.new(key, message, digestmod=HASHES[alg[5:]])
        else:
            mac = CMAC.new(key, message, ciphermod=AES)
        try:
            mac.verify(tag)
        except ValueError as e:
            raise Rejected("MAC does not verify") from e
        return b""

    return run
