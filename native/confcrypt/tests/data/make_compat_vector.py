#!/usr/bin/env python3
"""Computes compat_vector.json: known answers for confcrypt's compatibility mode (the thesis's
per-value format, docs/confcrypt.md "Compatibility mode"), independently of the C++ code, with
Python's hashlib (PBKDF2-HMAC) and the `cryptography` package (AES-256-CBC).

The thesis's three library variants differ only in PBKDF2's hash (Elektra at the thesis's commit
dfa9bb8, src/plugins/crypto/*_operations.c): libgcrypt SHA-512, OpenSSL SHA-1, Botan SHA-256.
Each vector names its hash ("kdf").

Run from anywhere: python3 make_compat_vector.py > compat_vector.json
"""
import base64
import hashlib
import json
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

MAGIC = b"#!crypto00"
ITERATIONS = 15000
# A 30-character master password, as the thesis's plugin generated them.
MASTER_PASSWORD = "Zq3vN8rT1xLm0pWc6yHb2kJd9sFg4a"
TYPE_BINARY, TYPE_STRING, TYPE_NULL = 0, 1, 2


def stored_value(password: str, salt: bytes, type_flag: int, content: bytes, kdf: str) -> bytes:
    # The library hashes the password string together with its terminating NUL.
    dk = hashlib.pbkdf2_hmac(kdf, password.encode() + b"\0", salt, ITERATIONS, 48)
    key, iv = dk[:32], dk[32:]
    header = bytes([type_flag]) + struct.pack("<I", len(content)) + bytes(11)
    padded = content + bytes(-len(content) % 16)
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ct = enc.update(header + padded) + enc.finalize()
    return MAGIC + struct.pack("<I", len(salt)) + salt + ct


def vector(name, type_flag, plaintext: bytes, salt: bytes, kdf: str = "sha512"):
    # Strings are stored with their terminating NUL ("secret" has content length 7).
    content = plaintext + b"\0" if type_flag == TYPE_STRING else plaintext
    stored = stored_value(MASTER_PASSWORD, salt, type_flag, content, kdf)
    return {
        "name": name,
        "kdf": kdf,
        "type": type_flag,
        "plaintext": plaintext.hex(),
        "salt": salt.hex(),
        "stored": stored.hex(),
        "token": "@BASE64" + base64.b64encode(stored).decode(),
    }


def main():
    salt17 = bytes.fromhex("a1b2c3d4e5f60718293a4b5c6d7e8f9001")
    vectors = [
        vector("string 'secret' (content length 7)", TYPE_STRING, b"secret", salt17),
        # 15 characters + NUL = 16 bytes: the content fills its block exactly, no padding block.
        vector("string of 15 characters (one full block)", TYPE_STRING, b"db-password-123",
               bytes.fromhex("00112233445566778899aabbccddeeff10")),
        vector("binary value", TYPE_BINARY, bytes(range(0, 256, 7)),
               bytes.fromhex("fedcba98765432100123456789abcdef42")),
        vector("null value", TYPE_NULL, b"", salt17),
        vector("string with an 8-byte salt", TYPE_STRING, b"p@ss w\xc3\xb6rd",
               bytes.fromhex("0102030405060708")),
        # The OpenSSL variant (PKCS5_PBKDF2_HMAC_SHA1) and the Botan variant (HMAC(SHA_256)).
        vector("OpenSSL variant: string 'secret'", TYPE_STRING, b"secret", salt17, "sha1"),
        vector("OpenSSL variant: binary value", TYPE_BINARY, bytes(range(0, 256, 7)),
               bytes.fromhex("fedcba98765432100123456789abcdef42"), "sha1"),
        vector("Botan variant: string 'secret'", TYPE_STRING, b"secret", salt17, "sha256"),
        vector("Botan variant: string of 15 characters", TYPE_STRING, b"db-password-123",
               bytes.fromhex("00112233445566778899aabbccddeeff10"), "sha256"),
    ]
    doc = {
        "description": "Known answers for the thesis's per-value format, computed by "
                       "make_compat_vector.py with hashlib.pbkdf2_hmac and the cryptography "
                       "package (AES-256-CBC).",
        "master_password": MASTER_PASSWORD,
        "iterations": ITERATIONS,
        "vectors": vectors,
    }
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
