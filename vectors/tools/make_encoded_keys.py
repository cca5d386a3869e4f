"""Writes vectors/encoded-keys.json: the fixed test keys of vectors/keys.json (rsa-2048,
ecdsa-p256, ed25519) encoded as PKCS#8 PEM and DER, and a self-signed X.509 certificate of the
rsa-2048 key in PEM and DER: the inputs the `keyload` operation decodes (catalogue kind
`keyload`). Made once with pyca/cryptography from the parts in keys.json; rerunning it gives the
same file (RSA PKCS#1 v1.5 signatures and fixed validity dates are deterministic).

    .venv/bin/python vectors/tools/make_encoded_keys.py
"""

import datetime
import json
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

VECTORS = Path(__file__).resolve().parent.parent


def _int(parts: dict, name: str) -> int:
    return int(parts[name], 16)


def _private_key(name: str, parts: dict):
    if name.startswith("rsa-"):
        public = rsa.RSAPublicNumbers(_int(parts, "e"), _int(parts, "n"))
        return rsa.RSAPrivateNumbers(
            _int(parts, "p"),
            _int(parts, "q"),
            _int(parts, "d"),
            _int(parts, "dp"),
            _int(parts, "dq"),
            _int(parts, "qinv"),
            public,
        ).private_key()
    if name == "ecdsa-p256":
        public = ec.EllipticCurvePublicNumbers(_int(parts, "x"), _int(parts, "y"), ec.SECP256R1())
        return ec.EllipticCurvePrivateNumbers(_int(parts, "d"), public).private_key()
    return ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(parts["priv"]))


def _certificate(key) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cryptobench keyload test")])
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
        .not_valid_after(datetime.datetime(2036, 1, 1, tzinfo=datetime.UTC))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )


def main() -> None:
    keys = json.loads((VECTORS / "keys.json").read_text())["keys"]
    vectors = []
    pkcs8 = serialization.PrivateFormat.PKCS8
    none = serialization.NoEncryption()
    source = "computed for this project from keys.json by vectors/tools/make_encoded_keys.py"

    def add(name: str, data: bytes, parts: dict, what: str) -> None:
        vectors.append(
            {"algorithm": name, "source": f"{what}; {source}", "encoded": data.hex(), "key": parts}
        )

    for name in ("rsa-2048", "ecdsa-p256", "ed25519"):
        key = _private_key(name, keys[name])
        pem = key.private_bytes(serialization.Encoding.PEM, pkcs8, none)
        der = key.private_bytes(serialization.Encoding.DER, pkcs8, none)
        add(f"{name}-pem", pem, keys[name], f"keys.json {name} as PKCS#8 PEM")
        add(f"{name}-der", der, keys[name], f"keys.json {name} as PKCS#8 DER")
    rsa_key = _private_key("rsa-2048", keys["rsa-2048"])
    cert = _certificate(rsa_key)
    public = {k: keys["rsa-2048"][k] for k in ("n", "e")}
    what = "self-signed X.509 v3 certificate of keys.json rsa-2048"
    add("x509-rsa-2048-pem", cert.public_bytes(serialization.Encoding.PEM), public, what + ", PEM")
    add("x509-rsa-2048-der", cert.public_bytes(serialization.Encoding.DER), public, what + ", DER")
    doc = {
        "family": "encoded-keys",
        "title": "Encoded test keys and a certificate: the inputs of the keyload operation",
        "sources": [
            "RFC 5958 (PKCS#8 OneAsymmetricKey), RFC 7468 (PEM), RFC 5280 (X.509 v3)",
            "Not known answers from a standard: the fixed test keys of keys.json (rsa-2048, "
            "ecdsa-p256, ed25519) encoded as unencrypted PKCS#8 PEM and DER, and a self-signed "
            "certificate of the rsa-2048 key (RSA PKCS#1 v1.5 SHA-256, valid 2026-2036), made "
            "with pyca/cryptography by vectors/tools/make_encoded_keys.py; rerunning it gives "
            "the same file. `key`: the parts decoding `encoded` must give (a certificate: its "
            "public key).",
        ],
        "vectors": vectors,
    }
    (VECTORS / "encoded-keys.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
