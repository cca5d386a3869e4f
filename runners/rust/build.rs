// Records what the binary was built with: rustc's version, the target, its CPU features, the
// profile and the versions of the crates in Cargo.lock; compiles src/taint.c.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=CB_RUSTC_VERSION={version}");
    for (key, var) in [
        ("CB_TARGET", "TARGET"),
        ("CB_PROFILE", "PROFILE"),
        ("CB_OPT_LEVEL", "OPT_LEVEL"),
        ("CB_TARGET_FEATURES", "CARGO_CFG_TARGET_FEATURE"),
    ] {
        println!("cargo:rustc-env={key}={}", std::env::var(var).unwrap_or_default());
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock = std::fs::read_to_string(format!("{dir}/Cargo.lock")).unwrap_or_default();
    let mut versions = Vec::new();
    let mut name = String::new();
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"').to_string();
        } else if let Some(v) = line.strip_prefix("version = ") {
            versions.push(format!("{name}={}", v.trim_matches('"')));
        }
    }
    println!("cargo:rustc-env=CB_LOCKED={}", versions.join(","));
    println!("cargo::rustc-check-cfg=cfg(cryptobench_soft)");
    // memcheck's client requests for the `taint` request (src/taint.rs); src/taint.c compiles them
    // in when valgrind/memcheck.h is there. A header that appears later (make apt-leaks) reruns this.
    cc::Build::new().file("src/taint.c").compile("cryptobench_taint");
    println!("cargo:rerun-if-changed=src/taint.c");
    println!("cargo:rerun-if-changed=/usr/include/valgrind/memcheck.h");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
}
