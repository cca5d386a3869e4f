//! Unit tests of the Rust runner (the protocol tests are python/tests/test_runner_rust.py).

use crate::engine::*;
use crate::protocol::command_serve;
use crate::providers::{EXTRA, providers, rustcrypto::RustCrypto};
use crate::spec::{ByteStream, CaseSpec};
use crate::steps::{not_offered, run_steps};
use crate::types::*;
use serde_json::{Map, Value, json};

/// The splitmix64 reference: seed 0 gives 0xe220a8397b1dcdaf first (Vigna's splitmix64.c), so the
/// cases' keys and inputs are the native runner's bytes.
#[test]
fn byte_stream_is_splitmix64() {
    assert_eq!(ByteStream::new(0).next_u64(), 0xe220a8397b1dcdaf);
}

/// What the coordinator sends a symmetric case (gate/material.py): key and IV from ByteStream(seed).
fn symmetric_params(info: &AlgorithmInfo, seed: u64) -> Value {
    let mut s = ByteStream::new(seed);
    let (mut key, mut iv) = (vec![0; info.key_bytes], vec![0; info.iv_bytes]);
    s.fill(&mut key);
    s.fill(&mut iv);
    json!({"key": hex::encode(key), "iv": hex::encode(iv)})
}

fn hex_of(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap_or("")).unwrap()
}

/// `steps` on one provider, panicking on a malformed request.
fn steps(p: &dyn Provider, alg: &str, steps: Value, input: &[u8]) -> Vec<Value> {
    run_steps(p, alg, Some(&steps), input).unwrap_or_else(|e| panic!("{}", e.0))
}

/// steps runs what the coordinator asks on the prepared operations and reports every output,
/// refusal and unsupported step as it was; a later request carries an earlier output as hex (the
/// coordinator resolves references).
#[test]
fn steps_report_outputs_refusals_and_unsupported() {
    let sym = json!({"key": hex::encode([0u8; 32]), "iv": hex::encode([0u8; 12])});
    let pt = b"sixteen byte msg";
    let r = steps(
        &RustCrypto,
        "aes-256-gcm",
        json!([
            {"op": "encrypt", "params": sym, "inputs": [hex::encode(pt), {"case_input": true}]},
            {"op": "derive", "algorithm": "x448", "inputs": [""]},
            {"op": "keygen", "algorithm": "ed25519", "inputs": [""]},
            {"op": "hash", "algorithm": "sha256", "digest": true, "inputs": [{"case_input": true}]},
        ]),
        b"the case's input",
    );
    let ct = hex_of(&r[0]["runs"][0]["out"]);
    assert_eq!(ct.len(), pt.len() + 16, "{:?}", r[0]);
    assert_eq!(hex_of(&r[0]["runs"][1]["out"]).len(), 16 + 16, "{:?}", r[0]);
    assert!(r[1].get("unsupported").is_some(), "rustcrypto does not offer x448: {:?}", r[1]);
    assert_eq!(r[3]["runs"][0]["len"], 32, "a digest of the SHA-256 output: {:?}", r[3]);
    let key = &r[2]["runs"][0]["key"];
    let mut flipped = ct.clone();
    flipped[ct.len() - 1] ^= 1;
    let r = steps(
        &RustCrypto,
        "aes-256-gcm",
        json!([
            {"op": "decrypt", "params": sym, "inputs": [hex::encode(&ct), hex::encode(&flipped)]},
            {"op": "sign", "algorithm": "ed25519", "params": {"keypair": key}, "inputs": ["00"]},
        ]),
        b"",
    );
    assert_eq!(hex_of(&r[0]["runs"][0]["out"]), pt, "{:?}", r[0]);
    assert!(r[0]["runs"][1].get("error").is_some(), "a flipped tag was not refused: {:?}", r[0]);
    let verify = json!([{"op": "verify", "algorithm": "ed25519", "inputs": ["00", "01"],
        "params": {"keypair": {"pub": key["pub"]}, "signature": r[1]["runs"][0]["out"]}}]);
    let v = steps(&RustCrypto, "aes-256-gcm", verify, b"");
    assert_eq!(v[0]["runs"][0]["out"], "", "{:?}", v[0]);
    assert!(v[0]["runs"][1].get("error").is_some(), "verified another message: {:?}", v[0]);
    let bad = run_steps(&RustCrypto, "sha256", Some(&json!([{"op": "hash", "inputs": ["zz"]}])), b"");
    assert!(bad.is_err_and(|e| e.0.contains("not a hex string")));
}

#[test]
fn what_is_offered_is_probed_through_the_adapter() {
    let why = |alg: &str| not_offered(&RustCrypto, find_algorithm(alg).unwrap());
    assert_eq!((why("aes-256-gcm"), why("rsa-2048")), (None, None));
    assert!(why("x448").is_some_and(|w| w.contains("does not offer")));
}

/// Wraps a real provider; `mode` decides how it misbehaves after `after` runs of one prepared
/// operation: flip a bit of its output, or write one byte past it.
struct Wrapper {
    inner: &'static dyn Provider,
    name: &'static str,
    after: usize,
    overrun: bool,
}

impl Provider for Wrapper {
    fn name(&self) -> &'static str {
        self.name
    }
    fn version(&self) -> String {
        "test".into()
    }
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
        let mut inner = self.inner.prepare(info, op, p)?;
        let (after, overrun) = (self.after, self.overrun);
        let mut runs = 0;
        Ok(Box::new(move |io: &mut Io| {
            let n = inner(io)?;
            runs += 1;
            if runs > after {
                if overrun {
                    io.out[n] ^= 0xff;
                } else if n > 0 {
                    io.out[n / 2] ^= 1;
                }
            }
            Ok(n)
        }))
    }
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts> {
        self.inner.generate_key(info)
    }
    fn code_path(&self) -> Map<String, Value> {
        Map::new()
    }
    fn variants(&self) -> &'static [Variant] {
        self.inner.variants()
    }
}

fn wrapper(inner: &'static dyn Provider, name: &'static str, after: usize, overrun: bool) -> &'static Wrapper {
    let w: &'static Wrapper = Box::leak(Box::new(Wrapper { inner, name, after, overrun }));
    EXTRA.with(|e| e.borrow_mut().push(w));
    w
}

#[test]
fn malformed_requests_get_errors_and_the_runner_carries_on() {
    let input = "junk\n{\"cmd\":\"open\",\"case\":{\"id\":\"x\"}}\n{\"cmd\":\"nope\"}\n";
    let mut out = Vec::new();
    assert_eq!(command_serve(input.as_bytes(), &mut out, None), 0);
    let types: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types.join(" "), "hello error error error done");
}

fn open_with(p: &'static dyn Provider, mut spec: CaseSpec) -> OpenCase {
    spec.id = "t".into();
    spec.provider = p.name().into();
    spec.input = "random".into();
    spec.seed = 1;
    spec.samples = 3;
    spec.target_sample_ms = 0.2;
    spec.warmup_ms = 1.0;
    spec.heap_iterations = 2;
    let info = find_algorithm(&spec.algorithm).unwrap();
    let mut params = symmetric_params(info, spec.seed);
    if info.kind == "kdf" {
        // what the coordinator sends a KDF case (gate/material.py): salt, output length, cost
        params = json!({"salt": hex::encode([7u8; 16]), "out_len": 32, "cost": spec.cost});
    }
    let mut c = open_case(spec, Some(&params));
    while c.status == STATUS_OK && (c.samples.len() as u64) < c.spec.samples {
        c.sample().unwrap();
    }
    c
}

fn case(op: &str, alg: &str, size: u64, inplace: bool) -> CaseSpec {
    CaseSpec { operation: op.into(), algorithm: alg.into(), size, inplace, ..Default::default() }
}

#[test]
fn the_timed_instance_is_checked_after_sampling() {
    // The gate (the coordinator's steps) and the reference use their own instances: a prepared
    // operation that goes wrong only after thousands of runs must fail the check of the timed
    // instance.
    let rc: &'static dyn Provider = &RustCrypto;
    for (w, spec, want) in [
        (
            wrapper(rc, "drift-gcm", 2000, false),
            case("encrypt", "aes-256-gcm", 64, true),
            "output differs from the gated instance's",
        ),
        (
            wrapper(rc, "drift-sha", 2000, false),
            case("hash", "sha256", 64, false),
            "output differs from the gated instance's",
        ),
        (wrapper(rc, "overrun", 2000, true), case("hash", "sha256", 64, false), "wrote past its 32-byte output"),
    ] {
        let c = open_with(w, spec);
        assert!(
            c.status == STATUS_FAILED
                && c.reason.contains("check of the timed instance after sampling: ")
                && c.reason.contains(want)
                && c.timed_check == "failed"
                && c.samples.is_empty(),
            "{}: {} {:?} {}",
            w.name,
            c.status,
            c.reason,
            c.timed_check
        );
    }
}

#[test]
fn in_place_decryption_alternates_tags_and_passes_the_check() {
    for inner in providers() {
        for alg in ["aes-128-gcm", "chacha20-poly1305"] {
            let honest = wrapper(*inner, "honest", usize::MAX, false);
            let c = open_with(honest, case("decrypt", alg, 1024, true));
            assert!(
                c.status == STATUS_OK
                    && c.layout.inplace
                    && c.layout.distance == 0
                    && c.timed_check == "output equals the gated instance's; canaries intact",
                "{} {alg}: {} {:?} {:?} {}",
                inner.name(),
                c.status,
                c.reason,
                c.layout,
                c.timed_check
            );
        }
    }
    let mut spec = case("decrypt", "aes-128-gcm", 1024, false);
    spec.align_offset = 7;
    let c = open_with(wrapper(&RustCrypto, "honest-oop", usize::MAX, false), spec);
    assert!(c.status == STATUS_OK && !c.layout.inplace && c.layout.distance >= 1024 && c.layout.in_page_offset == 7);
}

#[test]
fn the_heap_counter_counts_allocations() {
    crate::heap::start();
    let v: Vec<u8> = std::hint::black_box(vec![1u8; 1000]);
    drop(v);
    let counts = crate::heap::stop();
    assert!(counts.allocs >= 1 && counts.frees >= 1 && counts.bytes >= 1000 && counts.peak_live >= 1000, "{counts:?}");
}

#[test]
fn the_heap_pass_reports_the_resident_peak_of_a_memory_hard_kdf() {
    // Argon2id with m = 32 MiB: its blocks are one allocation the process maps and unmaps per
    // derivation, so the resident peak across the heap pass rises by at least that much.
    let mut spec = case("derive", "argon2id", 16, false);
    spec.cost = [("t", 1), ("m", 32768), ("p", 1)].into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let c = open_with(&RustCrypto, spec);
    assert_eq!(c.status, STATUS_OK, "{}", c.reason);
    let (before, peak) = (c.heap["rss_before_kb"].as_i64(), c.heap["rss_peak_kb"].as_i64());
    let rise = peak.unwrap() - before.unwrap();
    assert!(rise >= 28 * 1024, "resident peak rose by {rise} KiB across the heap pass");
    assert!(c.heap["peak_live_bytes"].as_u64().unwrap() >= 32 << 20, "{}", c.heap);
}

/// ML-KEM through steps, as the coordinator's gate asks it (docs/post-quantum.md): a key from a
/// seed, encapsulation to it, decapsulation of the ciphertext (its first 768 bytes) to the secret,
/// implicit rejection of a flipped ciphertext (a different secret, no error), derandomised
/// encapsulation repeating. aws-lc-rs decapsulates rustcrypto's ciphertext with the expanded key
/// it derives from the seed, and refuses derandomised encapsulation and keygen from a seed.
#[test]
fn ml_kem_round_trips_and_rejects_implicitly_in_both_providers() {
    let seed = hex::encode([7u8; 64]);
    let r = steps(
        &RustCrypto,
        "ml-kem-512",
        json!([{"op": "keygen", "params": {"keypair": {"seed": seed}}, "inputs": [""]}]),
        b"",
    );
    let key = &r[0]["runs"][0]["key"];
    assert_eq!(hex_of(&key["pub"]).len(), 800, "{:?}", r[0]);
    let public = json!({"pub": key["pub"]});
    let r = steps(
        &RustCrypto,
        "ml-kem-512",
        json!([
            {"op": "encaps", "params": {"keypair": public}, "inputs": ["", ""]},
            {"op": "encaps", "params": {"keypair": public, "randomness": hex::encode([1u8; 32])}, "inputs": ["", ""]},
        ]),
        b"",
    );
    let (c0, c1) = (hex_of(&r[0]["runs"][0]["out"]), hex_of(&r[0]["runs"][1]["out"]));
    assert_eq!(c0.len(), 768 + 32);
    assert_ne!(c0, c1, "two encapsulations are identical");
    assert_eq!(r[1]["runs"][0], r[1]["runs"][1], "derandomised encapsulation differs: {:?}", r[1]);
    let mut flipped = c0[..768].to_vec();
    flipped[0] ^= 1;
    let inputs = json!([hex::encode(&c0[..768]), hex::encode(&flipped)]);
    let d =
        steps(&RustCrypto, "ml-kem-512", json!([{"op": "decaps", "params": {"keypair": key}, "inputs": inputs}]), b"");
    assert_eq!(hex_of(&d[0]["runs"][0]["out"]), c0[768..], "{:?}", d[0]);
    let rejected = hex_of(&d[0]["runs"][1]["out"]);
    assert!(rejected.len() == 32 && rejected != c0[768..], "{:?}", d[0]);
    #[cfg(feature = "c-providers")]
    {
        let aws = crate::providers::provider_by_name("aws-lc-rs").unwrap();
        let key = json!({"seed": seed});
        let steps = json!([
            {"op": "decaps", "params": {"keypair": key}, "inputs": [hex::encode(&c0[..768]), hex::encode(&c1[..768])]},
            {"op": "keygen", "params": {"keypair": key}, "inputs": [""]},
            {"op": "encaps", "params": {"keypair": public, "randomness": hex::encode([1u8; 32])},
             "inputs": [""]},
        ]);
        let a = run_steps(aws, "ml-kem-512", Some(&steps), b"").unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(hex_of(&a[0]["runs"][0]["out"]), c0[768..], "{:?}", a[0]);
        assert_eq!(hex_of(&a[0]["runs"][1]["out"]), c1[768..], "{:?}", a[0]);
        assert!(a[1]["runs"][0].get("unsupported").is_some(), "{:?}", a[1]);
        assert!(a[2].get("unsupported").is_some(), "{:?}", a[2]);
    }
}

/// ML-DSA and SLH-DSA sign hedged and verify across the providers; a signature of another
/// message is refused.
#[test]
fn pq_signatures_are_hedged_and_verify_across_providers() {
    let mut signers: Vec<(&dyn Provider, &str)> = vec![(&RustCrypto, "ml-dsa-44"), (&RustCrypto, "slh-dsa-sha2-128f")];
    #[cfg(feature = "c-providers")]
    signers.push((crate::providers::provider_by_name("aws-lc-rs").unwrap(), "ml-dsa-44"));
    for (p, alg) in signers {
        let key = steps(p, alg, json!([{"op": "keygen", "inputs": [""]}]), b"")[0]["runs"][0]["key"].clone();
        let pubkey = &key["pub"];
        let s = steps(p, alg, json!([{"op": "sign", "params": {"keypair": key}, "inputs": ["00", "00"]}]), b"");
        let info = find_algorithm(alg).unwrap();
        let sig = hex_of(&s[0]["runs"][0]["out"]);
        assert_eq!(sig.len(), info.output_bytes, "{} {alg}: {:?}", p.name(), s[0]);
        assert_ne!(s[0]["runs"][0], s[0]["runs"][1], "{} {alg} signs deterministically", p.name());
        let verify = json!([{"op": "verify", "params": {"keypair": {"pub": pubkey}, "signature": hex::encode(&sig)},
            "inputs": ["00", "01"]}]);
        let r = steps(p, alg, verify, b"");
        assert_eq!(r[0]["runs"][0]["out"], "", "{} {alg}: {:?}", p.name(), r[0]);
        assert!(r[0]["runs"][1].get("error").is_some(), "{} {alg}: {:?}", p.name(), r[0]);
        // the other provider verifies it
        let other: &dyn Provider = if p.name() == "rustcrypto" && alg == "ml-dsa-44" {
            #[cfg(feature = "c-providers")]
            {
                crate::providers::provider_by_name("aws-lc-rs").unwrap()
            }
            #[cfg(not(feature = "c-providers"))]
            {
                &RustCrypto
            }
        } else {
            &RustCrypto
        };
        let check = json!([{"op": "verify", "params": {"keypair": {"pub": pubkey}, "signature": hex::encode(&sig)}, "inputs": ["00"]}]);
        let v = run_steps(other, alg, Some(&check), b"").unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(v[0]["runs"][0]["out"], "", "{} does not verify {}'s {alg}: {:?}", other.name(), p.name(), v[0]);
    }
}
