"""Provider `pyca`: pyca/cryptography (its OpenSSL-backed hazmat API, the library's normal API for
these primitives). Its version names the OpenSSL it bundles."""

import os
import warnings

import cryptography
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.backends.openssl.backend import backend
from cryptography.hazmat.decrepit.ciphers import modes as decrepit_modes
from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.primitives import cmac, hashes, hmac
from cryptography.hazmat.primitives.asymmetric import (
    dh,
    ec,
    ed448,
    ed25519,
    padding,
    rsa,
    x448,
    x25519,
)
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from cryptography.utils import CryptographyDeprecationWarning

from .. import catalogue
from ..errors import Rejected, Unsupported
from . import Provider, pyca_pq
from ._keys import field_bytes, rfc7919_prime, to_bytes, to_int

HASHES = {
    "md5": hashes.MD5,
    "sha1": hashes.SHA1,
    "sha224": hashes.SHA224,
    "sha256": hashes.SHA256,
    "sha384": hashes.SHA384,
    "sha512": hashes.SHA512,
    "sha512-256": hashes.SHA512_256,
    "sha3-256": hashes.SHA3_256,
    "sha3-512": hashes.SHA3_512,
    "blake2b-512": lambda: hashes.BLAKE2b(64),
}
# CFB and OFB live in cryptography's "decrepit" module, where it keeps legacy modes.
MODES = {
    "cbc": modes.CBC,
    "cfb": decrepit_modes.CFB,
    "ofb": decrepit_modes.OFB,
    "ctr": modes.CTR,
    "xts": modes.XTS,
}
CURVES = {"p256": ec.SECP256R1, "p384": ec.SECP384R1, "p521": ec.SECP521R1}
EDWARDS = {"ed25519": ed25519.Ed25519PrivateKey, "ed448": ed448.Ed448PrivateKey}
EDWARDS_PUB = {"ed25519": ed25519.Ed25519PublicKey, "ed448": ed448.Ed448PublicKey}
MONTGOMERY = {"x25519": x25519.X25519PrivateKey, "x448": x448.X448PrivateKey}
MONTGOMERY_PUB = {"x25519": x25519.X25519PublicKey, "x448": x448.X448PublicKey}

ALGORITHMS = [
    *(f"aes-{b}-{m}" for b in (128, 192, 256) for m in ("cbc", "cfb", "ofb", "ctr", "gcm")),
    "aes-128-xts",
    "aes-256-xts",
    "des-ede3-cbc",
    "chacha20",
    "chacha20-poly1305",
    *HASHES,
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
    "ffdhe2048",
    "ffdhe3072",
    "ffdhe4096",
    "pbkdf2-sha1",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "scrypt",
    "argon2id",
    "hkdf-sha256",
    *pyca_pq.ALGORITHMS,
]

PSS = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
_dh_params: dict = {}
# cryptography 50 deprecates finite-field DH; it still offers it, and the catalogue measures it.
warnings.filterwarnings(
    "ignore", "Diffie-Hellman over finite fields", CryptographyDeprecationWarning
)


def _ffdhe(bits: int):
    if bits not in _dh_params:
        _dh_params[bits] = dh.DHParameterNumbers(rfc7919_prime(bits), 2).parameters()
    return _dh_params[bits]


class Pyca(Provider):
    name = "pyca"

    def version(self) -> str:
        return f"cryptography {cryptography.__version__} ({backend.openssl_version_text()})"

    def code_path(self) -> dict:
        return {
            "openssl": backend.openssl_version_text(),
            "OPENSSL_ia32cap": os.environ.get("OPENSSL_ia32cap", ""),  # noqa: SIM112 (its name)
        }

    def prepare(self, alg: str, op: str, params):
        if alg not in ALGORITHMS:
            raise Unsupported(f"pyca does not offer {alg}")
        if alg in pyca_pq.ALGORITHMS:
            return pyca_pq.prepare(alg, op, params)
        if op == "keygen":
            return lambda _data: self.generate_key(alg)
        info = catalogue.find(alg)
        kind = info["kind"]
        if kind in ("cipher", "aead"):
            return _symmetric(alg, op, params)
        if kind == "hash":
            h = HASHES[alg]

            def digest(data):
                ctx = hashes.Hash(h())
                ctx.update(data)
                return ctx.finalize()

            return digest
        if kind == "mac":
            if op == "verify":  # the `leak` request's MAC verification (docs/protocol.md)
                return _mac_verify(alg, params.key, info["output_bytes"])
            return _mac(alg, params.key)
        if kind == "kdf":
            return _kdf(alg, params)
        return _public_key(info, op, params)

    def generate_key(self, alg: str) -> dict:
        info = catalogue.find(alg)
        if alg not in ALGORITHMS or "keygen" not in info["operations"]:
            raise Unsupported(f"pyca does not generate {alg} keys")
        if alg in pyca_pq.ALGORITHMS:
            return pyca_pq.generate_key(alg)
        if alg.startswith("rsa-"):
            n = rsa.generate_private_key(65537, info["bits"]).private_numbers()
            return _rsa_parts(n)
        if alg.startswith(("ecdsa-", "ecdh-")):
            size = field_bytes(alg)
            curve = CURVES[alg.rsplit("-", 1)[1]]()
            n = ec.generate_private_key(curve).private_numbers()
            pub = n.public_numbers
            return {
                "d": to_bytes(n.private_value, size),
                "x": to_bytes(pub.x, size),
                "y": to_bytes(pub.y, size),
            }
        if alg.startswith("ffdhe"):
            size = info["bits"] // 8
            n = _ffdhe(info["bits"]).generate_private_key().private_numbers()
            return {"x": to_bytes(n.x), "y": to_bytes(n.public_numbers.y, size)}
        key = (EDWARDS.get(alg) or MONTGOMERY[alg]).generate()
        return {"priv": key.private_bytes_raw(), "pub": key.public_key().public_bytes_raw()}


def _rsa_parts(n) -> dict:
    pub = n.public_numbers
    return {
        "n": to_bytes(pub.n),
        "e": to_bytes(pub.e),
        "d": to_bytes(n.d),
        "p": to_bytes(n.p),
        "q": to_bytes(n.q),
        "dp": to_bytes(n.dmp1),
        "dq": to_bytes(n.dmq1),
        "qinv": to_bytes(n.iqmp),
    }


def _symmetric(alg: str, op: str, params):
    key, iv, aad = params.key, params.iv, params.aad or None
    enc = op == "encrypt"
    if alg.endswith("gcm") or alg == "chacha20-poly1305":
        aead = AESGCM(key) if alg.endswith("gcm") else ChaCha20Poly1305(key)
        if enc:
            return lambda data: aead.encrypt(iv, data, aad)

        def open_(data):
            try:
                return aead.decrypt(iv, data, aad)
            except InvalidTag as e:
                raise Rejected("authentication tag does not verify") from e

        return open_
    if alg == "chacha20":
        # pyca's ChaCha20 takes the 32-bit block counter (little-endian) before the 96-bit nonce.
        cipher = Cipher(algorithms.ChaCha20(key, bytes(4) + iv), mode=None)
    elif alg == "des-ede3-cbc":
        cipher = Cipher(TripleDES(key), modes.CBC(iv))
    else:
        cipher = Cipher(algorithms.AES(key), MODES[alg.rsplit("-", 1)[1]](iv))

    def run(data):
        ctx = cipher.encryptor() if enc else cipher.decryptor()
        return ctx.update(data) + ctx.finalize()

    return run


def _mac(alg: str, key: bytes):
    if alg.startswith("hmac-"):
        h = HASHES[alg[5:]]

        def run(data):
            ctx = hmac.HMAC(key, h())
            ctx.update(data)
            return ctx.finalize()

        return run

    def run_cmac(data):
        ctx = cmac.CMAC(algorithms.AES(key))
        ctx.update(data)
        return ctx.finalize()

    return run_cmac


def _mac_verify(alg: str, key: bytes, tag_len: int):
    """cryptography's own verification of message || tag: verify() compares in constant time
    and raises InvalidSignature for a wrong tag."""

    def run(data):
        if len(data) < tag_len:
            raise Rejected("input shorter than its tag")
        message, tag = data[: len(data) - tag_len], data[len(data) - tag_len :]
        if alg.startswith("hmac-"):
            ctx = hmac.HMAC(key, HASHES[alg[5:]]())
        else:
            ctx = cmac.CMAC(algorithms.AES(key))
        ctx.update(message)
        try:
            ctx.verify(tag)
        except InvalidSignature as e:
            raise Rejected("MAC does not verify") from e
        return b""

    return run


def _kdf(alg: str, p):
    cost, n = p.cost, p.out_len
    if alg.startswith("pbkdf2-"):
        h, it = HASHES[alg[7:]], cost["iterations"]
        return lambda pw: PBKDF2HMAC(algorithm=h(), length=n, salt=p.salt, iterations=it).derive(pw)
    if alg == "scrypt":
        return lambda pw: Scrypt(
            salt=p.salt, length=n, n=cost["N"], r=cost["r"], p=cost["p"]
        ).derive(pw)
    if alg == "argon2id":
        secret, ad = p.secret or None, p.ad or None
        t, m, lanes = cost["t"], cost["m"], cost["p"]
        return lambda pw: Argon2id(
            salt=p.salt, length=n, iterations=t, lanes=lanes, memory_cost=m, ad=ad, secret=secret
        ).derive(pw)
    return lambda ikm: HKDF(algorithm=hashes.SHA256(), length=n, salt=p.salt, info=p.info).derive(
        ikm
    )


def _rsa_public(k: dict):
    return rsa.RSAPublicNumbers(to_int(k["e"]), to_int(k["n"])).public_key()


def _rsa_private(k: dict):
    pub = rsa.RSAPublicNumbers(to_int(k["e"]), to_int(k["n"]))
    nums = rsa.RSAPrivateNumbers(
        to_int(k["p"]),
        to_int(k["q"]),
        to_int(k["d"]),
        to_int(k["dp"]),
        to_int(k["dq"]),
        to_int(k["qinv"]),
        pub,
    )
    return nums.private_key()


def _ec_public(curve, k: dict):
    return ec.EllipticCurvePublicNumbers(to_int(k["x"]), to_int(k["y"]), curve).public_key()


def _verifying(verify):
    def run(data):
        try:
            verify(data)
        except InvalidSignature as e:
            raise Rejected("signature does not verify") from e
        return b""

    return run


def _public_key(info: dict, op: str, p):
    alg, k, sig = info["name"], p.keypair, p.signature
    if alg.startswith("rsa-"):
        scheme = alg.split("-")[2]
        pad = {
            "pkcs1": padding.PKCS1v15(),
            "pkcs1v15": padding.PKCS1v15(),
            "pss": PSS,
            "oaep": OAEP,
        }[scheme]
        if op == "sign":
            key = _rsa_private(k)
            return lambda data: key.sign(data, pad, hashes.SHA256())
        if op == "decrypt":
            key = _rsa_private(k)

            def dec(data):
                try:
                    return key.decrypt(data, pad)
                except ValueError as e:
                    raise Rejected(f"{scheme.upper()} decryption failed") from e

            return dec
        pub = _rsa_public(k)
        if op == "encrypt":
            return lambda data: pub.encrypt(data, pad)
        return _verifying(lambda data: pub.verify(sig, data, pad, hashes.SHA256()))
    if alg.startswith("ecdsa-"):
        size, curve = field_bytes(alg), CURVES[alg[6:]]()
        scheme = ec.ECDSA(
            {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}[
                info["digest"]
            ]()
        )
        if op == "sign":
            key = ec.derive_private_key(to_int(k["d"]), curve)

            def sign(data):
                r, s = decode_dss_signature(key.sign(data, scheme))
                return to_bytes(r, size) + to_bytes(s, size)

            return sign
        pub = _ec_public(curve, k)
        if len(sig) != 2 * size:
            raise Rejected(f"ECDSA signature must be {2 * size} bytes")
        der = encode_dss_signature(to_int(sig[:size]), to_int(sig[size:]))
        return _verifying(lambda data: pub.verify(der, data, scheme))
    if alg in EDWARDS:
        if op == "sign":
            key = EDWARDS[alg].from_private_bytes(k["priv"])
            return key.sign
        pub = EDWARDS_PUB[alg].from_public_bytes(k["pub"])
        return _verifying(lambda data: pub.verify(sig, data))
    # key agreement
    if alg in MONTGOMERY:
        key = MONTGOMERY[alg].from_private_bytes(k["priv"])
        peer = MONTGOMERY_PUB[alg].from_public_bytes(p.peer["pub"])
        return lambda _data: key.exchange(peer)
    if alg.startswith("ecdh-"):
        curve = CURVES[alg[5:]]()
        key = ec.derive_private_key(to_int(k["d"]), curve)
        peer = _ec_public(curve, p.peer)
        return lambda _data: key.exchange(ec.ECDH(), peer)
    pn = _ffdhe(info["bits"]).parameter_numbers()
    x = to_int(k["x"])
    y = to_int(k["y"]) if k.get("y") else pow(2, x, pn.p)
    key = dh.DHPrivateNumbers(x, dh.DHPublicNumbers(y, pn)).private_key()
    peer = dh.DHPublicNumbers(to_int(p.peer["y"]), pn).public_key()
    return lambda _data: key.exchange(peer)


PROVIDER = Pyca()
