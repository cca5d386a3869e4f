"""Throw-away test PKI in the run's directory, made with the openssl command: a CA, server and
client certificates per key kind (rsa-1024/2048/4096, ecdsa-p256, ed25519), Diffie-Hellman
parameters (RFC 5114 1024-bit, ffdhe2048, ffdhe4096), and the confined legacy OpenSSL
configuration that lets the 1024-bit sizes through (security level 0). That configuration is
only ever given to the processes of this run, through OPENSSL_CONF in their environment."""

import subprocess
from dataclasses import dataclass
from pathlib import Path

KEY_ARGS = {
    "rsa-1024": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
    "rsa-2048": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    "rsa-4096": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:4096"],
    "ecdsa-p256": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "ed25519": ["-algorithm", "ED25519"],
}
DH_ARGS = {
    "rfc5114-1024": ["-pkeyopt", "dh_rfc5114:1"],
    "ffdhe2048": ["-pkeyopt", "dh_param:ffdhe2048"],
    "ffdhe4096": ["-pkeyopt", "dh_param:ffdhe4096"],
}
LEGACY_CONF = """openssl_conf = openssl_init
[openssl_init]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
CipherString = DEFAULT:@SECLEVEL=0
"""


class PkiError(Exception):
    pass


def _openssl(*argv: str) -> None:
    done = subprocess.run(
        ["openssl", *argv], capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise PkiError(f"openssl {argv[0]}: {done.stderr.strip()[-200:]}")


@dataclass(frozen=True)
class Identity:
    cert: Path
    key: Path


class Pki:
    def __init__(self, directory: Path):
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self._made: dict[str, Identity] = {}
        self.ca = self._ca()
        self.legacy_conf = self.dir / "legacy-openssl.cnf"
        self.legacy_conf.write_text(LEGACY_CONF)

    def _key(self, path: Path, kind: str) -> None:
        _openssl("genpkey", *KEY_ARGS[kind], "-out", str(path))

    def _ca(self) -> Identity:
        key, cert = self.dir / "ca.key", self.dir / "ca.pem"
        self._key(key, "rsa-2048")
        _openssl(
            "req",
            "-x509",
            "-new",
            "-key",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=cryptobench channel CA",
            "-sha256",
        )
        return Identity(cert, key)

    def identity(self, role: str, kind: str) -> Identity:
        """A certificate for "server" or "client" with a key of `kind`, signed by the CA."""
        name = f"{role}-{kind}"
        if name in self._made:
            return self._made[name]
        key, csr, cert = (self.dir / f"{name}.{ext}" for ext in ("key", "csr", "pem"))
        ext = self.dir / f"{role}.ext"
        usage = "serverAuth" if role == "server" else "clientAuth"
        ext.write_text(f"extendedKeyUsage={usage}\nkeyUsage=digitalSignature,keyAgreement\n")
        self._key(key, kind)
        _openssl("req", "-new", "-key", str(key), "-out", str(csr), "-subj", f"/CN={name}")
        _openssl(
            "x509",
            "-req",
            "-in",
            str(csr),
            "-CA",
            str(self.ca.cert),
            "-CAkey",
            str(self.ca.key),
            "-CAcreateserial",
            "-out",
            str(cert),
            "-days",
            "2",
            "-sha256",
            "-extfile",
            str(ext),
        )
        key.chmod(0o600)
        self._made[name] = Identity(cert, key)
        return self._made[name]

    def dh(self, group: str) -> Path:
        path = self.dir / f"dh-{group}.pem"
        if not path.exists():
            _openssl("genpkey", "-genparam", "-algorithm", "DH", *DH_ARGS[group], "-out", str(path))
        return path

    def needs_legacy(self, cert_kind: str, dh_group: str | None = None) -> bool:
        """1024-bit RSA keys and DH groups are below Debian's default security level 2."""
        return cert_kind == "rsa-1024" or dh_group == "rfc5114-1024"

    def env(self, cert_kind: str, dh_group: str | None = None, ia32cap: str = "") -> dict:
        env = {}
        if self.needs_legacy(cert_kind, dh_group):
            env["OPENSSL_CONF"] = str(self.legacy_conf)
        if ia32cap:
            env["OPENSSL_ia32cap"] = ia32cap
        return env
