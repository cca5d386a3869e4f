#!/usr/bin/env python3
"""Re-verifies keys.json and the public-key / KDF vector files without the library adapters.

Every vector is recomputed twice where that is cheap: once with Python `cryptography` (OpenSSL)
and/or hashlib, and once with the plain integer arithmetic in this file (RFC 8032 Edwards curves,
the RFC 7748 Montgomery ladder, short-Weierstrass ECDSA/ECDH, textbook RSA with the RFC 8017
encodings, Python's pow for FFDH). The curve constants below were taken from
`openssl ecparam -param_enc explicit -text` and RFC 7748 / RFC 8032; the RFC 7919 primes are
rebuilt from the RFC's formula, so no group constant is trusted from a library.

Usage: check_pk_vectors.py [--negative] [file ...]
  With no files: keys.json and every public-key/KDF family file present in vectors/.
  --negative: also corrupt one byte of every expected output (and, for verify vectors, flip the
  expected verdict) and require the check to fail: a checker that accepts those is broken.
Only the standard library and `cryptography` are used.
"""

import hashlib
import hmac
import json
import os
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import (ec, ed448, ed25519, padding, rsa, utils,
                                                       x448, x25519)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

try:
    from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
except ImportError:  # cryptography < 44
    Argon2id = None

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.dirname(HERE)
PK_FAMILIES = ["rsa-pkcs1", "rsa-pss", "rsa-oaep", "ecdsa", "ed25519", "ed448", "x25519", "x448",
               "ecdh", "ffdhe", "pbkdf2", "scrypt", "argon2", "hkdf"]


class Mismatch(Exception):
    pass


def need(cond, what):
    if not cond:
        raise Mismatch(what)


def b(h):
    return bytes.fromhex(h)


def i(h):
    return int(h, 16)


# ---------------------------------------------------------------- short Weierstrass curves
class Curve:
    def __init__(self, name, p, b_, gx, gy, n, size, hash_):
        self.name, self.p, self.a, self.b, self.n, self.size = name, p, p - 3, b_, n, size
        self.g, self.hash = (gx, gy), hash_

    def on_curve(self, pt):
        x, y = pt
        return 0 <= x < self.p and 0 <= y < self.p and \
            (y * y - x * x * x - self.a * x - self.b) % self.p == 0

    def add(self, p1, p2):
        if p1 is None:
            return p2
        if p2 is None:
            return p1
        p = self.p
        if p1[0] == p2[0]:
            if (p1[1] + p2[1]) % p == 0:
                return None
            lam = (3 * p1[0] * p1[0] + self.a) * pow(2 * p1[1], -1, p) % p
        else:
            lam = (p2[1] - p1[1]) * pow(p2[0] - p1[0], -1, p) % p
        x3 = (lam * lam - p1[0] - p2[0]) % p
        return x3, (lam * (p1[0] - x3) - p1[1]) % p

    def mul(self, k, pt):
        r = None
        while k:
            if k & 1:
                r = self.add(r, pt)
            pt = self.add(pt, pt)
            k >>= 1
        return r

    def ecdsa_verify(self, q, msg, r, s):
        if not (0 < r < self.n and 0 < s < self.n):
            return False
        digest = hashlib.new(self.hash, msg).digest()
        e = int.from_bytes(digest, "big")
        nbits = self.n.bit_length()
        if len(digest) * 8 > nbits:
            e >>= len(digest) * 8 - nbits
        w = pow(s, -1, self.n)
        pt = self.add(self.mul(e * w % self.n, self.g), self.mul(r * w % self.n, q))
        return pt is not None and pt[0] % self.n == r


P256 = Curve(
    "P-256", 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff,
    0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b,
    0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
    0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5,
    0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551, 32, "sha256")
P384 = Curve(
    "P-384", 2**384 - 2**128 - 2**96 + 2**32 - 1,
    0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef,
    0xaa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7,
    0x3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f,
    0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973,
    48, "sha384")
P521 = Curve(
    "P-521", 2**521 - 1,
    0x51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00,
    0xc6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66,
    0x11839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650,
    0x1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409,
    66, "sha512")
CURVES = {"p256": P256, "p384": P384, "p521": P521}
CRYPTO_CURVES = {"p256": ec.SECP256R1(), "p384": ec.SECP384R1(), "p521": ec.SECP521R1()}
CRYPTO_HASH = {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha512": hashes.SHA512()}


# ---------------------------------------------------------------- Edwards curves (RFC 8032)
class Edwards:
    def __init__(self, name, p, a, d, base, enc_len, l_, hash_fn, clamp):
        self.name, self.p, self.a, self.d, self.base = name, p, a % p, d % p, base
        self.enc_len, self.l, self.hash_fn, self.clamp = enc_len, l_, hash_fn, clamp

    def add(self, p1, p2):
        (x1, y1), (x2, y2), p = p1, p2, self.p
        t = self.d * x1 * x2 * y1 * y2 % p
        x3 = (x1 * y2 + y1 * x2) * pow(1 + t, -1, p) % p
        y3 = (y1 * y2 - self.a * x1 * x2) * pow(1 - t, -1, p) % p
        return x3, y3

    def mul(self, k, pt):
        r = (0, 1)
        while k:
            if k & 1:
                r = self.add(r, pt)
            pt = self.add(pt, pt)
            k >>= 1
        return r

    def encode(self, pt):
        x, y = pt
        return (y | ((x & 1) << (8 * self.enc_len - 1))).to_bytes(self.enc_len, "little")

    def decode(self, data):
        need(len(data) == self.enc_len, self.name + ": encoding length")
        v = int.from_bytes(data, "little")
        sign, y = v >> (8 * self.enc_len - 1), v & ((1 << (8 * self.enc_len - 1)) - 1)
        need(y < self.p, self.name + ": y out of range")
        p = self.p
        # x^2 = (1 - y^2) / (a - d y^2)
        x2 = (1 - y * y) * pow(self.a - self.d * y * y, -1, p) % p
        x = self.sqrt(x2)
        need(x is not None, self.name + ": not on curve")
        if x == 0 and sign:
            raise Mismatch(self.name + ": bad sign of x = 0")
        if x & 1 != sign:
            x = p - x
        return x, y

    def sqrt(self, v):
        p = self.p
        if p % 4 == 3:
            x = pow(v, (p + 1) // 4, p)
        else:  # p = 5 mod 8 (2^255 - 19)
            x = pow(v, (p + 3) // 8, p)
            if x * x % p != v % p:
                x = x * pow(2, (p - 1) // 4, p) % p
        return x if x * x % p == v % p else None

    def secret_scalar(self, priv):
        h = self.hash_fn(priv)
        return self.clamp(h[:self.enc_len]), h[self.enc_len:]

    def public(self, priv):
        return self.encode(self.mul(self.secret_scalar(priv)[0], self.base))

    def sign(self, priv, msg):
        a, prefix = self.secret_scalar(priv)
        pub = self.encode(self.mul(a, self.base))
        r = int.from_bytes(self.hash_fn(prefix + msg), "little") % self.l
        big_r = self.encode(self.mul(r, self.base))
        k = int.from_bytes(self.hash_fn(big_r + pub + msg), "little") % self.l
        return big_r + ((r + k * a) % self.l).to_bytes(self.enc_len, "little")

    def verify(self, pub, msg, sig):
        # Cofactorless check [S]B = R + [k]A, as RFC 8032 5.1.7 / 5.2.7 permit.
        try:
            if len(sig) != 2 * self.enc_len:
                return False
            a_pt, r_pt = self.decode(pub), self.decode(sig[:self.enc_len])
            s = int.from_bytes(sig[self.enc_len:], "little")
            if s >= self.l:
                return False
            k = int.from_bytes(self.hash_fn(sig[:self.enc_len] + pub + msg), "little") % self.l
            return self.mul(s, self.base) == self.add(r_pt, self.mul(k, a_pt))
        except (Mismatch, ValueError):
            return False


def _clamp25519(h):
    a = int.from_bytes(h, "little")
    return (a & ((1 << 254) - 8)) | (1 << 254)


def _clamp448(h):
    a = int.from_bytes(h[:56], "little")  # the 57th octet is cleared
    return (a & ~3) | (1 << 447)


_P25519 = 2**255 - 19
_D25519 = -121665 * pow(121666, -1, _P25519) % _P25519
_BY25519 = 4 * pow(5, -1, _P25519) % _P25519
ED25519 = Edwards("Ed25519", _P25519, -1, _D25519, None, 32,
                  2**252 + 27742317777372353535851937790883648493,
                  lambda m: hashlib.sha512(m).digest(), _clamp25519)
ED25519.base = ED25519.decode(_BY25519.to_bytes(32, "little"))  # x even: sign bit 0
_P448 = 2**448 - 2**224 - 1
ED448 = Edwards(
    "Ed448", _P448, 1, -39081,
    (224580040295924300187604334099896036246789641632564134246125461686950415467406032909029192869357953282578032075146446173674602635247710,
     298819210078481492676017930443930673437544040154080242095928241372331506189835876003536878655418784733982303233503462500531545062832660),
    57, 2**446 - 13818066809895115352007386748515426880336692474882178609894547503885,
    # dom4(0, "") = "SigEd448" || 0 || 0 for pure Ed448 without context.
    lambda m: hashlib.shake_256(b"SigEd448\x00\x00" + m).digest(114), _clamp448)
need(ED448.add(ED448.base, (0, 1)) == ED448.base, "Ed448 base")
need(ED448.encode(ED448.decode(ED448.encode(ED448.base))) == ED448.encode(ED448.base), "Ed448 base")
need(ED448.mul(ED448.l, ED448.base) == (0, 1), "Ed448 base order")
need(ED25519.mul(ED25519.l, ED25519.base) == (0, 1), "Ed25519 base order")


def ed_public(curve, priv):
    # The public key derivation hashes the private key without dom4: undo the wrapper for Ed448.
    if curve is ED448:
        h = hashlib.shake_256(priv).digest(114)
        return curve.encode(curve.mul(_clamp448(h[:57]), curve.base))
    return curve.public(priv)


def ed_sign(curve, priv, msg):
    if curve is ED448:
        h = hashlib.shake_256(priv).digest(114)
        a, prefix = _clamp448(h[:57]), h[57:]
        pub = curve.encode(curve.mul(a, curve.base))
        r = int.from_bytes(curve.hash_fn(prefix + msg), "little") % curve.l
        big_r = curve.encode(curve.mul(r, curve.base))
        k = int.from_bytes(curve.hash_fn(big_r + pub + msg), "little") % curve.l
        return big_r + ((r + k * a) % curve.l).to_bytes(57, "little")
    return curve.sign(priv, msg)


# ---------------------------------------------------------------- X25519 / X448 (RFC 7748)
def x_ladder(k_bytes, u_bytes, bits):
    if bits == 255:
        p, a24, n = _P25519, 121665, 32
        k = int.from_bytes(k_bytes, "little")
        k = (k & ((1 << 254) - 8)) | (1 << 254)
        u = int.from_bytes(u_bytes, "little") & ((1 << 255) - 1)
    else:
        p, a24, n = _P448, 39081, 56
        k = int.from_bytes(k_bytes, "little")
        k = (k & ~3) | (1 << 447)
        u = int.from_bytes(u_bytes, "little")
    u %= p
    x1, x2, z2, x3, z3, swap = u, 1, 0, u, 1, 0
    for t in reversed(range(bits)):
        kt = (k >> t) & 1
        swap ^= kt
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = kt
        a_, b_ = (x2 + z2) % p, (x2 - z2) % p
        aa, bb = a_ * a_ % p, b_ * b_ % p
        e = (aa - bb) % p
        c, d = (x3 + z3) % p, (x3 - z3) % p
        da, cb = d * a_ % p, c * b_ % p
        x3, z3 = (da + cb) ** 2 % p, x1 * (da - cb) ** 2 % p
        x2, z2 = aa * bb % p, e * (aa + a24 * e) % p
    if swap:
        x2, z2 = x3, z3
    return (x2 * pow(z2, p - 2, p) % p).to_bytes(n, "little")


X_BASE = {255: (9).to_bytes(32, "little"), 448: (5).to_bytes(56, "little")}


# ---------------------------------------------------------------- RFC 7919 groups
def rfc7919_prime(bits):
    # p = 2^b - 2^{b-64} + {[2^{b-130} e] + X} * 2^64 - 1 (RFC 7919 Appendix A).
    x_const = {2048: 560316, 3072: 2625351, 4096: 5736041}[bits]
    prec = bits + 64
    e_fixed, term, k = 0, 1 << prec, 0
    while term:
        e_fixed += term
        k += 1
        term //= k
    floor_e = (e_fixed >> 130) >> (prec - bits)  # [2^{b-130} e]; the guard bits absorb the error
    return 2**bits - 2**(bits - 64) + (floor_e + x_const) * 2**64 - 1


FFDHE = {bits: rfc7919_prime(bits) for bits in (2048, 3072, 4096)}


# ---------------------------------------------------------------- RSA (RFC 8017) in integers
def rsa_check_key(k, what, bits=None):
    n, e = i(k["n"]), i(k["e"])
    if bits:
        need(n.bit_length() == bits, what + ": modulus size")
    if "d" not in k:
        return
    d, p, q = i(k["d"]), i(k["p"]), i(k["q"])
    need(p * q == n, what + ": n != p*q")
    need(pow(2, p - 1, p) == 1 and pow(3, q - 1, q) == 1, what + ": p or q not prime (Fermat)")
    lam = (p - 1) * (q - 1) // _gcd(p - 1, q - 1)
    need(e * d % lam == 1, what + ": e*d != 1 mod lcm(p-1, q-1)")
    need(i(k["dp"]) == d % (p - 1), what + ": dp")
    need(i(k["dq"]) == d % (q - 1), what + ": dq")
    need(i(k["qinv"]) * q % p == 1 and i(k["qinv"]) < p, what + ": qinv")


def _gcd(a, b_):
    while b_:
        a, b_ = b_, a % b_
    return a


def rsa_crypto_private(k):
    pub = rsa.RSAPublicNumbers(i(k["e"]), i(k["n"]))
    return rsa.RSAPrivateNumbers(i(k["p"]), i(k["q"]), i(k["d"]), i(k["dp"]), i(k["dq"]),
                                 i(k["qinv"]), pub).private_key()


def rsa_crypto_public(k):
    return rsa.RSAPublicNumbers(i(k["e"]), i(k["n"])).public_key()


SHA256_DIGESTINFO = bytes.fromhex("3031300d060960864801650304020105000420")


def emsa_pkcs1(msg, k_len):
    t = SHA256_DIGESTINFO + hashlib.sha256(msg).digest()
    return b"\x00\x01" + b"\xff" * (k_len - len(t) - 3) + b"\x00" + t


def mgf1(seed, length):
    out, c = b"", 0
    while len(out) < length:
        out += hashlib.sha256(seed + c.to_bytes(4, "big")).digest()
        c += 1
    return out[:length]


def emsa_pss_verify(msg, em, em_bits, s_len):
    h_len, em_len = 32, (em_bits + 7) // 8
    m_hash = hashlib.sha256(msg).digest()
    if em_len < h_len + s_len + 2 or em[-1] != 0xbc:
        return False
    masked, h = em[:em_len - h_len - 1], em[em_len - h_len - 1:-1]
    top = 8 * em_len - em_bits
    if masked[0] >> (8 - top) if top else 0:
        return False
    db = bytearray(x ^ y for x, y in zip(masked, mgf1(h, len(masked))))
    if top:
        db[0] &= 0xff >> top
    ps_len = em_len - h_len - s_len - 2
    if any(db[:ps_len]) or db[ps_len] != 1:
        return False
    salt = bytes(db[-s_len:]) if s_len else b""
    return hashlib.sha256(b"\x00" * 8 + m_hash + salt).digest() == h


def rsa_pss_verify_int(k, msg, sig, s_len=32):
    n, e = i(k["n"]), i(k["e"])
    k_len = (n.bit_length() + 7) // 8
    if len(sig) != k_len or int.from_bytes(sig, "big") >= n:
        return False
    em_bits = n.bit_length() - 1
    m = pow(int.from_bytes(sig, "big"), e, n)
    em_len = (em_bits + 7) // 8
    if m >> (8 * em_len):
        return False
    return emsa_pss_verify(msg, m.to_bytes(em_len, "big"), em_bits, s_len)


def rsa_oaep_decrypt_int(k, ct):
    n, d = i(k["n"]), i(k["d"])
    k_len = (n.bit_length() + 7) // 8
    need(len(ct) == k_len, "OAEP: ciphertext length")
    em = pow(int.from_bytes(ct, "big"), d, n).to_bytes(k_len, "big")
    l_hash = hashlib.sha256(b"").digest()
    y, mseed, mdb = em[0], em[1:33], em[33:]
    seed = bytes(a ^ c for a, c in zip(mseed, mgf1(mdb, 32)))
    db = bytes(a ^ c for a, c in zip(mdb, mgf1(seed, len(mdb))))
    need(y == 0 and db[:32] == l_hash, "OAEP: decoding error")
    rest = db[32:].lstrip(b"\x00")
    need(rest[:1] == b"\x01", "OAEP: decoding error")
    return rest[1:]


# ---------------------------------------------------------------- keys.json
def check_keys(doc):
    keys = doc["keys"]
    expected = ["rsa-1024", "rsa-2048", "rsa-3072", "rsa-4096", "ecdsa-p256", "ecdsa-p384",
                "ecdsa-p521", "ed25519", "ed448"]
    for t in ("x25519", "x448", "ecdh-p256", "ecdh-p384", "ffdhe2048", "ffdhe3072", "ffdhe4096"):
        expected += [t, t + "-peer"]
    need(sorted(keys) == sorted(expected), "keys.json: key set %s" % sorted(keys))
    for name, k in keys.items():
        for part, v in k.items():
            need(v == v.lower() and len(v) % 2 == 0, name + ": hex " + part)
        kind = name.replace("-peer", "")
        if kind.startswith("rsa-"):
            bits = int(kind[4:])
            need(sorted(k) == sorted(["n", "e", "d", "p", "q", "dp", "dq", "qinv"]),
                 name + " parts")
            need(i(k["e"]) == 65537, name + ": e")
            rsa_check_key(k, name, bits)
            key = rsa_crypto_private(k)  # OpenSSL's own consistency checks on import
            sig = key.sign(b"x", padding.PKCS1v15(), hashes.SHA256())
            need(pow(int.from_bytes(sig, "big"), 65537, i(k["n"])).to_bytes(bits // 8, "big") ==
                 emsa_pkcs1(b"x", bits // 8), name + ": signature")
        elif kind.startswith(("ecdsa-", "ecdh-")):
            c = CURVES[kind.split("-")[1]]
            need(sorted(k) == ["d", "x", "y"], name + " parts")
            need(all(len(k[p]) == 2 * c.size for p in "dxy"), name + ": padding")
            q = (i(k["x"]), i(k["y"]))
            need(c.on_curve(q), name + ": not on curve")
            need(0 < i(k["d"]) < c.n and c.mul(i(k["d"]), c.g) == q, name + ": d*G != Q")
        elif kind in ("ed25519", "ed448"):
            curve = ED25519 if kind == "ed25519" else ED448
            need(sorted(k) == ["priv", "pub"], name + " parts")
            need(len(b(k["priv"])) == curve.enc_len, name + ": priv length")
            need(ed_public(curve, b(k["priv"])) == b(k["pub"]), name + ": pub != derived")
            cls = ed25519.Ed25519PrivateKey if kind == "ed25519" else ed448.Ed448PrivateKey
            raw = cls.from_private_bytes(b(k["priv"])).public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            need(raw == b(k["pub"]), name + ": pub != cryptography's")
        elif kind in ("x25519", "x448"):
            bits = 255 if kind == "x25519" else 448
            need(sorted(k) == ["priv", "pub"], name + " parts")
            need(len(b(k["priv"])) == (32 if bits == 255 else 56), name + ": priv length")
            need(x_ladder(b(k["priv"]), X_BASE[bits], bits) == b(k["pub"]), name + ": pub")
        elif kind.startswith("ffdhe"):
            bits = int(kind[5:])
            p = FFDHE[bits]
            need(sorted(k) == ["x", "y"], name + " parts")
            x = i(k["x"])
            need(1 < x < p - 1, name + ": x range")
            need(len(b(k["y"])) == bits // 8, name + ": y padding")
            need(pow(2, x, p) == i(k["y"]), name + ": y != 2^x mod p")
        else:
            raise Mismatch("unknown key type " + name)
    for t in ("x25519", "x448"):
        bits = 255 if t == "x25519" else 448
        a, c = keys[t], keys[t + "-peer"]
        s1 = x_ladder(b(a["priv"]), b(c["pub"]), bits)
        need(s1 == x_ladder(b(c["priv"]), b(a["pub"]), bits) and any(s1), t + ": agreement")
    return len(keys)


# ---------------------------------------------------------------- vector families
def _sig_parts(v, n):
    need(len(b(v["signature"])) == 2 * n, v["source"] + ": signature length")
    sig = b(v["signature"])
    return int.from_bytes(sig[:n], "big"), int.from_bytes(sig[n:], "big")


def check_ecdsa(v):
    cname = v["algorithm"].split("-")[1]
    c = CURVES[cname]
    k = v["key"]
    need(all(len(k[p]) == 2 * c.size for p in k), "key padding")
    q = (i(k["x"]), i(k["y"]))
    msg = b(v["message"])
    r, s = _sig_parts(v, c.size)
    pure = c.on_curve(q) and c.ecdsa_verify(q, msg, r, s)
    try:
        pub = ec.EllipticCurvePublicNumbers(q[0], q[1], CRYPTO_CURVES[cname]).public_key()
        pub.verify(utils.encode_dss_signature(r, s), msg, ec.ECDSA(CRYPTO_HASH[c.hash]))
        lib = True
    except (InvalidSignature, ValueError):
        lib = False
    need(pure == lib, "pure-Python and cryptography disagree")
    need(pure == v["valid"], "verdict %s, expected %s" % (pure, v["valid"]))
    if "d" in k:
        need(c.mul(i(k["d"]), c.g) == q, "d*G != Q")


def check_eddsa(v):
    curve = ED25519 if v["algorithm"] == "ed25519" else ED448
    k, msg, sig = v["key"], b(v["message"]), b(v["signature"])
    need(len(sig) == 2 * curve.enc_len, "signature length")
    pure = curve.verify(b(k["pub"]), msg, sig)
    pub_cls = ed25519.Ed25519PublicKey if curve is ED25519 else ed448.Ed448PublicKey
    try:
        pub_cls.from_public_bytes(b(k["pub"])).verify(sig, msg)
        lib = True
    except (InvalidSignature, ValueError):
        lib = False
    need(pure == lib, "pure-Python and cryptography disagree")
    need(pure == v["valid"], "verdict %s, expected %s" % (pure, v["valid"]))
    if "priv" in k:
        need(ed_public(curve, b(k["priv"])) == b(k["pub"]), "pub != derived from priv")
        if v["valid"]:
            need(ed_sign(curve, b(k["priv"]), msg) == sig, "pure-Python signature differs")
            cls = ed25519.Ed25519PrivateKey if curve is ED25519 else ed448.Ed448PrivateKey
            need(cls.from_private_bytes(b(k["priv"])).sign(msg) == sig, "cryptography differs")


def check_rsa_pkcs1(v):
    k, msg, sig = v["key"], b(v["message"]), b(v["signature"])
    bits = int(v["algorithm"].split("-")[1])
    rsa_check_key(k, "key", bits)
    k_len = bits // 8
    need(len(sig) == k_len, "signature length")
    s = int.from_bytes(sig, "big")
    pure = s < i(k["n"]) and pow(s, i(k["e"]), i(k["n"])).to_bytes(k_len, "big") == \
        emsa_pkcs1(msg, k_len)
    try:
        rsa_crypto_public(k).verify(sig, msg, padding.PKCS1v15(), hashes.SHA256())
        lib = True
    except InvalidSignature:
        lib = False
    need(pure == lib, "pure-Python and cryptography disagree")
    need(pure == v["valid"], "verdict %s, expected %s" % (pure, v["valid"]))
    if "d" in k and v["valid"]:
        m = int.from_bytes(emsa_pkcs1(msg, k_len), "big")
        need(pow(m, i(k["d"]), i(k["n"])) == s, "m^d != signature")
        need(rsa_crypto_private(k).sign(msg, padding.PKCS1v15(), hashes.SHA256()) == sig,
             "cryptography's signature differs")


def check_rsa_pss(v):
    k, msg, sig = v["key"], b(v["message"]), b(v["signature"])
    bits = int(v["algorithm"].split("-")[1])
    rsa_check_key(k, "key", bits)
    need(len(sig) == bits // 8, "signature length")
    pure = rsa_pss_verify_int(k, msg, sig, 32)
    try:
        rsa_crypto_public(k).verify(sig, msg, padding.PSS(padding.MGF1(hashes.SHA256()), 32),
                                    hashes.SHA256())
        lib = True
    except InvalidSignature:
        lib = False
    need(pure == lib, "pure-Python and cryptography disagree")
    need(pure == v["valid"], "verdict %s, expected %s" % (pure, v["valid"]))


def check_rsa_oaep(v):
    k, ct, pt = v["key"], b(v["ciphertext"]), b(v["plaintext"])
    bits = int(v["algorithm"].split("-")[1])
    rsa_check_key(k, "key", bits)
    need(rsa_oaep_decrypt_int(k, ct) == pt, "pure-Python decryption differs")
    oaep = padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None)
    need(rsa_crypto_private(k).decrypt(ct, oaep) == pt, "cryptography decryption differs")


def check_x(v):
    bits = 255 if v["algorithm"] == "x25519" else 448
    n = 32 if bits == 255 else 56
    k, peer, shared = v["key"], v["peer"], b(v["shared"])
    need(len(b(k["priv"])) == n and len(b(peer["pub"])) == n and len(shared) == n, "lengths")
    need(x_ladder(b(k["priv"]), X_BASE[bits], bits) == b(k["pub"]), "pub != derived from priv")
    need(x_ladder(b(k["priv"]), b(peer["pub"]), bits) == shared, "pure-Python ladder differs")
    priv_cls = x25519.X25519PrivateKey if bits == 255 else x448.X448PrivateKey
    pub_cls = x25519.X25519PublicKey if bits == 255 else x448.X448PublicKey
    got = priv_cls.from_private_bytes(b(k["priv"])).exchange(pub_cls.from_public_bytes(
        b(peer["pub"])))
    need(got == shared, "cryptography differs")


def check_ecdh(v):
    cname = v["algorithm"].split("-")[1]
    c = CURVES[cname]
    k, peer, shared = v["key"], v["peer"], b(v["shared"])
    need(all(len(k[p]) == 2 * c.size for p in "dxy"), "key padding")
    need(all(len(peer[p]) == 2 * c.size for p in "xy") and "d" not in peer, "peer parts")
    need(len(shared) == c.size, "shared length")
    q = (i(k["x"]), i(k["y"]))
    qp = (i(peer["x"]), i(peer["y"]))
    need(c.on_curve(q) and c.on_curve(qp), "point not on curve")
    need(c.mul(i(k["d"]), c.g) == q, "d*G != Q")
    z = c.mul(i(k["d"]), qp)
    need(z is not None and z[0].to_bytes(c.size, "big") == shared, "pure-Python shared differs")
    priv = ec.EllipticCurvePrivateNumbers(
        i(k["d"]), ec.EllipticCurvePublicNumbers(q[0], q[1], CRYPTO_CURVES[cname])).private_key()
    pub = ec.EllipticCurvePublicNumbers(qp[0], qp[1], CRYPTO_CURVES[cname]).public_key()
    need(priv.exchange(ec.ECDH(), pub) == shared, "cryptography differs")


def check_ffdhe(v):
    bits = int(v["algorithm"][5:])
    p, size = FFDHE[bits], bits // 8
    k, peer, shared = v["key"], v["peer"], b(v["shared"])
    need(len(b(k["y"])) == size and len(b(peer["y"])) == size and len(shared) == size, "padding")
    x, y, yp = i(k["x"]), i(k["y"]), i(peer["y"])
    need(pow(2, x, p) == y, "y != 2^x mod p")
    need(1 < yp < p - 1 and pow(yp, (p - 1) // 2, p) == 1, "peer y not in the q-order subgroup")
    need(pow(yp, x, p).to_bytes(size, "big") == shared, "y_peer^x mod p differs")
    from cryptography.hazmat.primitives.asymmetric import dh
    params = dh.DHParameterNumbers(p, 2)
    priv = dh.DHPrivateNumbers(x, dh.DHPublicNumbers(y, params)).private_key()
    got = priv.exchange(dh.DHPublicNumbers(yp, params).public_key())
    need(got.rjust(size, b"\x00") == shared, "cryptography differs")


def _pbkdf2_pure(name, pw, salt, iters, out_len):
    h_len = hashlib.new(name).digest_size
    out = b""
    for block in range(1, -(-out_len // h_len) + 1):
        u = hmac.new(pw, salt + block.to_bytes(4, "big"), name).digest()
        acc = int.from_bytes(u, "big")
        for _ in range(iters - 1):
            u = hmac.new(pw, u, name).digest()
            acc ^= int.from_bytes(u, "big")
        out += acc.to_bytes(h_len, "big")
    return out[:out_len]


def check_kdf(v):
    alg, pw, salt, out = v["algorithm"], b(v["input"]), b(v["salt"]), b(v["output"])
    cost = v["cost"]
    if alg != "hkdf-sha256":
        need(v["info"] == "", "info must be empty for " + alg)
    if alg.startswith("pbkdf2-"):
        name = alg.split("-")[1]
        it = cost["iterations"]
        need(hashlib.pbkdf2_hmac(name, pw, salt, it, len(out)) == out, "hashlib differs")
        if it <= 5000:
            need(_pbkdf2_pure(name, pw, salt, it, len(out)) == out, "pure-Python differs")
        got = PBKDF2HMAC(CRYPTO_HASH.get(name, hashes.SHA1()), len(out), salt, it).derive(pw)
        need(got == out, "cryptography differs")
    elif alg == "scrypt":
        n_, r, p = cost["N"], cost["r"], cost["p"]
        got = hashlib.scrypt(pw, salt=salt, n=n_, r=r, p=p, maxmem=2**31 - 1, dklen=len(out))
        need(got == out, "hashlib differs")
        need(Scrypt(salt, len(out), n_, r, p).derive(pw) == out, "cryptography differs")
    elif alg == "argon2id":
        need(Argon2id is not None, "this cryptography has no Argon2id")
        kdf = Argon2id(salt=salt, length=len(out), iterations=cost["t"], lanes=cost["p"],
                       memory_cost=cost["m"], ad=b(v["ad"]) or None,
                       secret=b(v["secret"]) or None)
        need(kdf.derive(pw) == out, "cryptography differs")
    elif alg == "hkdf-sha256":
        info = b(v["info"])
        prk = hmac.new(salt if salt else b"\x00" * 32, pw, "sha256").digest()
        okm, t, c = b"", b"", 1
        while len(okm) < len(out):
            t = hmac.new(prk, t + info + bytes([c]), "sha256").digest()
            okm, c = okm + t, c + 1
        need(okm[:len(out)] == out, "pure-Python (hmac) differs")
        need(HKDF(hashes.SHA256(), len(out), salt or None, info).derive(pw) == out,
             "cryptography differs")
    else:
        raise Mismatch("unknown KDF " + alg)


CHECKERS = {"rsa-pkcs1": check_rsa_pkcs1, "rsa-pss": check_rsa_pss, "rsa-oaep": check_rsa_oaep,
            "ecdsa": check_ecdsa, "ed25519": check_eddsa, "ed448": check_eddsa,
            "x25519": check_x, "x448": check_x, "ecdh": check_ecdh, "ffdhe": check_ffdhe,
            "pbkdf2": check_kdf, "scrypt": check_kdf, "argon2": check_kdf, "hkdf": check_kdf}
# The expected value that the negative control corrupts, per family.
OUTPUT_FIELD = {"rsa-oaep": "plaintext", "x25519": "shared", "x448": "shared", "ecdh": "shared",
                "ffdhe": "shared"}
KDF_FIELDS = {"pbkdf2": set(), "scrypt": set(), "argon2": {"secret", "ad"}, "hkdf": set()}


def check_fields(family, v):
    base = {"algorithm", "source"}
    if family in ("rsa-pkcs1", "rsa-pss", "ecdsa", "ed25519", "ed448"):
        fields = base | {"key", "message", "signature", "valid"}
    elif family == "rsa-oaep":
        fields = base | {"key", "plaintext", "ciphertext"}
    elif family in ("x25519", "x448", "ecdh", "ffdhe"):
        fields = base | {"key", "peer", "shared"}
    else:
        fields = base | {"input", "salt", "info", "cost", "output"} | KDF_FIELDS[family]
    need(set(v) == fields, "fields %s, expected %s" % (sorted(v), sorted(fields)))
    for f, val in v.items():
        if f in ("key", "peer"):
            for part, h in val.items():
                need(h == h.lower() and len(h) % 2 == 0 and h != "", f + "." + part + " hex")
                bytes.fromhex(h)
        elif f not in ("algorithm", "source", "valid", "cost"):
            need(val == val.lower() and len(val) % 2 == 0, f + " hex")
            bytes.fromhex(val)


def check_file(path, negative):
    doc = json.load(open(path))
    if os.path.basename(path) == "keys.json":
        n = check_keys(doc)
        print("%-16s %3d keys ok" % ("keys.json", n))
        if negative:
            keys = doc["keys"]
            caught = 0
            for name in keys:
                part = "pub" if "pub" in keys[name] else ("y" if "y" in keys[name] else "d")
                bad = json.loads(json.dumps(doc))
                h = bytearray(b(bad["keys"][name][part]))
                h[len(h) // 2] ^= 0x01
                bad["keys"][name][part] = h.hex()
                try:
                    check_keys(bad)
                except Mismatch:
                    caught += 1
            need(caught == len(keys), "keys.json negative control: %d/%d caught" % (caught,
                                                                                   len(keys)))
            print("%-16s negative control: %d/%d corrupted keys rejected" % ("", caught, len(keys)))
        return n
    family = doc["family"]
    need(os.path.basename(path) == family + ".json", "file name != family")
    need(doc["title"] and doc["sources"] and doc["vectors"], "title/sources/vectors")
    check = CHECKERS[family]
    counts = {}
    for v in doc["vectors"]:
        try:
            check_fields(family, v)
            check(v)
        except Mismatch as e:
            raise Mismatch("%s: %s: %s" % (path, v.get("source"), e))
        counts[v["algorithm"]] = counts.get(v["algorithm"], 0) + 1
    print("%-16s %3d vectors ok  %s" % (family + ".json", len(doc["vectors"]),
                                        ", ".join("%s %d" % kv for kv in counts.items())))
    if negative:
        caught = 0
        for v in doc["vectors"]:
            bad = dict(v)
            if "valid" in v and not v["valid"]:
                bad["valid"] = True  # an invalid signature claimed valid must be caught
            else:
                field = OUTPUT_FIELD.get(family, "output" if "output" in v else "signature")
                h = bytearray(b(v[field]))
                if h:
                    h[len(h) // 2] ^= 0x01
                else:
                    h = bytearray(1)  # an empty expected output: claim one zero byte instead
                bad[field] = h.hex()
            try:
                check(bad)
            except (Mismatch, ValueError):
                caught += 1
        need(caught == len(doc["vectors"]), "%s negative control: %d/%d caught" %
             (path, caught, len(doc["vectors"])))
        print("%-16s negative control: %d/%d corrupted vectors rejected" % ("", caught, caught))
    return len(doc["vectors"])


def main(argv):
    negative = "--negative" in argv
    files = [a for a in argv if not a.startswith("--")]
    if not files:
        files = [os.path.join(VECTORS, "keys.json")] + [
            os.path.join(VECTORS, f + ".json") for f in PK_FAMILIES
            if os.path.exists(os.path.join(VECTORS, f + ".json"))]
    total = 0
    try:
        for f in files:
            total += check_file(f, negative)
    except Mismatch as e:
        print("FAIL:", e)
        return 1
    print("all %d entries verified%s" % (total, " (with negative controls)" if negative else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
