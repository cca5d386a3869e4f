//! The machine record and the facts of this build (machine.cpp's fields plus rustc, the target,
//! its CPU features and the crates' versions).

use crate::engine::{mono_ns, ticks};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

fn cpuinfo_field(key: &str) -> String {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for line in text.lines() {
        if let Some((k, v)) = line.split_once(':') {
            if k.trim() == key {
                return v.trim().to_string();
            }
        }
    }
    String::new()
}

fn os_name() -> String {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME=").map(|v| v.trim_matches('"').to_string()))
        .unwrap_or_else(|| "unknown".into())
}

fn uts() -> (String, String) {
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    unsafe { libc::uname(&mut u) };
    let s = |a: &[libc::c_char]| a.iter().take_while(|&&c| c != 0).map(|&c| c as u8 as char).collect::<String>();
    (format!("{} {} {}", s(&u.sysname), s(&u.release), s(&u.machine)), s(&u.nodename))
}

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

/// What the binary was compiled for: target, profile and the CPU features the compiler could
/// assume everywhere (run-time detection picks faster code in every provider on top of these).
pub fn build_record() -> Value {
    json!({
        "rustc": env!("CB_RUSTC_VERSION"),
        "target": env!("CB_TARGET"),
        "profile": env!("CB_PROFILE"),
        "opt_level": env!("CB_OPT_LEVEL"),
        "target_cpu": "the target's baseline (no -C target-cpu)",
        "build": if cfg!(cryptobench_soft) {
            "soft: rustcrypto only, its portable backends forced at compile time"
        } else {
            "main"
        },
        "target_features": env!("CB_TARGET_FEATURES").split(',').filter(|s| !s.is_empty()).collect::<Vec<_>>(),
    })
}

pub fn machine_record() -> Map<String, Value> {
    let flags: Vec<String> = cpuinfo_field("flags").split_whitespace().map(String::from).collect();
    let has = |f: &str| flags.iter().any(|x| x == f);
    let (kernel, host) = uts();
    let mut m = Map::new();
    m.insert("cpu_model".into(), json!(cpuinfo_field("model name")));
    m.insert("tsc_invariant".into(), json!(has("constant_tsc") && has("nonstop_tsc")));
    m.insert("cpu_flags".into(), json!(flags));
    m.insert("cores".into(), json!(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)));
    m.insert("kernel".into(), json!(kernel));
    m.insert("hostname".into(), json!(host));
    m.insert("os".into(), json!(os_name()));
    m.insert("compiler".into(), json!(env!("CB_RUSTC_VERSION")));
    m.insert("rust".into(), build_record());
    m.insert("tsc_note".into(), json!("TSC ticks count reference cycles at a constant rate, not core clock cycles"));
    let hz = tsc_hz();
    if hz > 0.0 {
        m.insert("tsc_hz".into(), json!(hz.round()));
    } else {
        m.insert("tsc_hz".into(), Value::Null);
        m.insert("tsc_note".into(), json!("no TSC read on this architecture: ticks are 0"));
    }
    let gov = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        .ok()
        .map(|g| g.trim().to_string());
    m.insert("governor".into(), json!(gov));
    m
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
