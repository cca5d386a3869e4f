#!/bin/sh
# Makes vectors/tls13.json: the server certificates of the in-memory TLS 1.3 handshake
# (catalogue kind `handshake`, docs/versions.md). Run once; the file is committed, and rerunning
# this gives new certificates (an ECDSA signature is randomised; the validity starts today).
#
# The keys are the fixed test keys of vectors/keys.json (rsa-2048, ecdsa-p256), taken as PKCS#8
# from vectors/encoded-keys.json; each certificate is self-signed by `openssl req -x509` for the
# host name cryptobench.test (subject CN and subjectAltName), valid 100 years, and is the only
# trust anchor of the handshake's client, which verifies the server's certificate against it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$here/encoded-keys.json" "$tmp" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for v in doc["vectors"]:
    if v["algorithm"] in ("rsa-2048-pem", "ecdsa-p256-pem"):
        open(f"{sys.argv[2]}/{v['algorithm'][:-4]}.pem", "wb").write(bytes.fromhex(v["encoded"]))
PY
for key in ecdsa-p256 rsa-2048; do
  openssl req -x509 -new -key "$tmp/$key.pem" -sha256 -days 36500 -subj /CN=cryptobench.test \
    -addext subjectAltName=DNS:cryptobench.test -outform DER -out "$tmp/$key.crt"
  openssl pkcs8 -topk8 -nocrypt -in "$tmp/$key.pem" -outform DER -out "$tmp/$key.p8"
done
python3 - "$tmp" "$(openssl version)" > "$here/tls13.json" <<'PY'
import json, sys
tmp, tool = sys.argv[1], sys.argv[2]
cases = (("tls13-x25519-ecdsa-p256", "ecdsa-p256", "x25519"),
         ("tls13-x25519-rsa-2048", "rsa-2048", "x25519"),
         ("tls13-x25519mlkem768-ecdsa-p256", "ecdsa-p256", "x25519mlkem768"))
doc = {
    "family": "tls13",
    "title": "Server certificates and the expected negotiation of the in-memory TLS 1.3 handshake",
    "sources": [
        "RFC 8446 (TLS 1.3): version TLSv1.3, cipher suite TLS_AES_128_GCM_SHA256 (B.4), "
        "key exchange group x25519 (4.2.7); RFC 5705/8446 7.5 exporters; the hybrid group "
        "X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem, code point 0x11EC)",
        "Not known answers from a standard: a handshake is randomised. Each vector is the "
        "server's certificate (self-signed X.509 v3 for cryptobench.test, the client's only "
        "trust anchor) and its PKCS#8 key (the test key of keys.json), made once by "
        f"vectors/tools/make_tls13.sh with `openssl req -x509` ({tool}), and what the "
        "handshake must negotiate.",
    ],
    "vectors": [],
}
for alg, key, group in cases:
    doc["vectors"].append({
        "algorithm": alg,
        "source": f"self-signed certificate of keys.json {key} for cryptobench.test "
                  "(vectors/tools/make_tls13.sh)",
        "certificate": open(f"{tmp}/{key}.crt", "rb").read().hex(),
        "private_key": open(f"{tmp}/{key}.p8", "rb").read().hex(),
        "server_name": "cryptobench.test",
        "version": "TLSv1.3",
        "suite": "TLS_AES_128_GCM_SHA256",
        "group": group,
    })
print(json.dumps(doc, indent=1))
PY
echo "wrote $here/tls13.json"
