//! The facts of this build and process: rustc, the target, its CPU features, the crates'
//! versions and the TSC rate.

use crate::clock::{mono_ns, ticks};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// TSC ticks per second over a 50 ms window against CLOCK_MONOTONIC (machine.cpp).
pub fn tsc_hz() -> f64 {
    static HZ: OnceLock<f64> = OnceLock::new();
    *HZ.get_or_init(|| {
        if ticks() == 0 {
            return 0.0;
        }
        let (t0, k0) = (mono_ns(), ticks());
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (t1, k1) = (mono_ns(), ticks());
        (k1 - k0) as f64 * 1e9 / (t1 - t0) as f64
    })
}

/// Versions of the crates in Cargo.lock (recorded by build.rs).
pub fn locked_version(krate: &str) -> String {
    env!("CB_LOCKED")
        .split(',')
        .find_map(|kv| kv.strip_prefix(&format!("{krate}=")).map(String::from))
        .unwrap_or_default()
}

/// Which build this is: the main one, `make demo`'s (the main one without what its suite does not
/// use; build.sh, RUST_FULL=0) or the soft one.
fn build_name() -> String {
    if cfg!(cryptobench_soft) {
        return "soft: rustcrypto only, its portable backends forced at compile time".into();
    }
    let left_out: Vec<&str> = [(cfg!(feature = "bench"), "the fidelity bench"), (cfg!(feature = "slh-dsa"), "SLH-DSA")]
        .into_iter()
        .filter_map(|(built, what)| (!built).then_some(what))
        .collect();
    if left_out.is_empty() {
        return "main".into();
    }
    format!("main without {} (make demo's; make runner-rust builds the full one)", left_out.join(" and "))
}

/// What the binary was compiled for: target, profile and the CPU features the compiler could
/// assume everywhere (run-time detection picks faster code in every provider on top of these).
pub fn build_record() -> Value {
    json!({
        "rustc": env!("CB_RUSTC_VERSION"), "target": env!("CB_TARGET"), "profile": env!("CB_PROFILE"),
        "opt_level": env!("CB_OPT_LEVEL"), "target_cpu": "the target's baseline (no -C target-cpu)",
        "build": build_name(),
        // `bench` (the fidelity bench) is in `make setup`'s build, not in `make demo`'s
        "commands": if cfg!(feature = "bench") { vec!["list", "serve", "bench"] } else { vec!["list", "serve"] },
        "target_features": env!("CB_TARGET_FEATURES").split(',').filter(|s| !s.is_empty()).collect::<Vec<_>>(),
    })
}

/// What only this process knows: its build and its clock; the machine itself (CPU, kernel, OS)
/// is the native runner's record (docs/protocol.md, "capabilities").
pub fn machine_record() -> Value {
    let hz = tsc_hz();
    let tsc_note = if hz > 0.0 {
        "TSC ticks count reference cycles at a constant rate, not core clock cycles"
    } else {
        "no TSC read on this architecture: ticks are 0"
    };
    json!({"compiler": env!("CB_RUSTC_VERSION"), "rust": build_record(), "tsc_note": tsc_note,
           "tsc_hz": (hz > 0.0).then(|| hz.round())})
}

/// The x86 features the providers' run-time dispatch looks at, as this CPU reports them.
pub fn cpu_features() -> Map<String, Value> {
    let mut m = Map::new();
    #[cfg(target_arch = "x86_64")]
    {
        let yes = |b: bool| json!(if b { "yes" } else { "no" });
        m.insert("aes".into(), yes(std::arch::is_x86_feature_detected!("aes")));
        m.insert("pclmulqdq".into(), yes(std::arch::is_x86_feature_detected!("pclmulqdq")));
        m.insert("avx2".into(), yes(std::arch::is_x86_feature_detected!("avx2")));
        m.insert("sha".into(), yes(std::arch::is_x86_feature_detected!("sha")));
        m.insert("vaes".into(), yes(std::arch::is_x86_feature_detected!("vaes")));
        m.insert("avx512f".into(), yes(std::arch::is_x86_feature_detected!("avx512f")));
    }
    m
}
