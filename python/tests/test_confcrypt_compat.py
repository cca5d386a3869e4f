"""confcrypt's compatibility mode against the thesis's format computed here, independently:
PBKDF2-HMAC-SHA512 from Python's hashlib and AES-256-CBC from the `cryptography` package, with the
layout of CONFCRYPT.md ("The thesis's per-value format, exactly"). Every provider must read what
this test wrote, and this test must read what every provider wrote."""

import base64
import hashlib
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

CONFCRYPT = shutil.which("confcrypt", path=str(Path(__file__).resolve().parents[2] / ".venv/bin"))
pytestmark = pytest.mark.skipif(CONFCRYPT is None, reason="run `make setup` to build confcrypt")

ITERATIONS = 15000


def derive(master: str, salt: bytes) -> tuple[bytes, bytes]:
    # The thesis's library kept strings with their terminating NUL and fed it to PBKDF2. (For a
    # password shorter than SHA-512's 128-byte block the NUL changes nothing: HMAC zero-pads its
    # key. It matters only for passwords of 128 bytes and more.)
    material = hashlib.pbkdf2_hmac("sha512", master.encode() + b"\0", salt, ITERATIONS, 48)
    return material[:32], material[32:]


def thesis_encrypt(master: str, value: str, salt: bytes) -> str:
    content = value.encode() + b"\0"  # a string's content includes its NUL
    header = bytes([1]) + struct.pack("<I", len(content)) + bytes(11)  # type 1 = string
    body = content + bytes(-len(content) % 16)  # zero padding, no PKCS#7
    key, iv = derive(master, salt)
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ct = enc.update(header + body) + enc.finalize()
    stored = b"#!crypto00" + struct.pack("<I", len(salt)) + salt + ct
    return "@BASE64" + base64.b64encode(stored).decode()


def thesis_decrypt(master: str, token: str) -> str:
    assert token.startswith("@BASE64")
    stored = base64.b64decode(token[len("@BASE64") :])
    assert stored[:10] == b"#!crypto00"
    (salt_len,) = struct.unpack("<I", stored[10:14])
    salt, ct = stored[14 : 14 + salt_len], stored[14 + salt_len :]
    key, iv = derive(master, salt)
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    plain = dec.update(ct) + dec.finalize()
    assert plain[0] == 1, "type flag: string"
    (length,) = struct.unpack("<I", plain[1:5])
    content = plain[16 : 16 + length]
    assert content.endswith(b"\0")
    return content[:-1].decode()


def compat_providers() -> list[str]:
    """Providers with what the thesis's scheme needs (pbkdf2-sha512 and aes-256-cbc), from the
    runner's capabilities."""
    runner = Path(CONFCRYPT).with_name("cryptobench-native") if CONFCRYPT else None
    if runner is None or not runner.exists():
        return []
    out = subprocess.run([str(runner), "list"], capture_output=True, text=True, check=True)
    caps = json.loads(out.stdout.splitlines()[0])
    names = []
    for p in caps["providers"]:
        offered = {a["name"] for a in p["algorithms"]}
        if {"pbkdf2-sha512", "aes-256-cbc"} <= offered:
            names.append(p["name"])
    return names


@pytest.fixture
def master(tmp_path: Path) -> tuple[str, Path]:
    password = base64.b32encode(os.urandom(20)).decode()[:30]  # 30 characters, like the thesis
    path = tmp_path / "master"
    path.write_text(password)
    return password, path


def test_providers_are_found() -> None:
    assert "openssl" in compat_providers()


@pytest.mark.parametrize("provider", compat_providers())
def test_every_provider_reads_the_independent_vector(provider, master, tmp_path) -> None:
    password, master_file = master
    salt = os.urandom(17)
    token = thesis_encrypt(password, "db-secret-Ünïcode", salt)
    config = tmp_path / "app.ini"
    config.write_text(
        f"; written by the test\n[database]\n#@META crypto/encrypt = 1\npassword = {token}\n"
    )
    got = subprocess.run(
        [CONFCRYPT, "--provider", provider, "--compat", "--master-password-file", str(master_file),
         "get", str(config), "database/password"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert got.stdout.rstrip("\n") == "db-secret-Ünïcode"


@pytest.mark.parametrize("provider", compat_providers())
def test_the_independent_code_reads_what_every_provider_wrote(provider, master, tmp_path) -> None:
    password, master_file = master
    config = tmp_path / "app.ini"
    config.write_text("[database]\nuser = app\n")
    setter = subprocess.run(
        [CONFCRYPT, "--provider", provider, "--compat", "--master-password-file", str(master_file),
         "set", str(config), "database/password", "s3cr3t value", "--encrypt"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert setter.returncode == 0, setter.stderr
    lines = config.read_text().splitlines()
    assert "#@META crypto/encrypt = 1" in lines
    stored = next(line.split("=", 1)[1].strip() for line in lines if line.startswith("password"))
    assert thesis_decrypt(password, stored) == "s3cr3t value"
    # A wrong master password fails with the compatibility-mode error, not garbage.
    bad = tmp_path / "wrong"
    bad.write_text(password + "x")
    wrong = subprocess.run(
        [CONFCRYPT, "--provider", provider, "--compat", "--master-password-file", str(bad),
         "get", str(config), "database/password"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert wrong.returncode != 0
    assert "s3cr3t" not in wrong.stdout
