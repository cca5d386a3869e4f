//! Variants: switches of a provider's code path. aws-lc-rs reads OPENSSL_ia32cap (AWS-LC's
//! cpu_intel.c) when the library initialises, so its variants re-execute the runner with the
//! variable set (or removed, for `default`) before any library is loaded, as the native runner
//! does for its library switches. ring and RustCrypto have no run-time switch (docs/runners.md).

use crate::providers::{provider_by_name, providers};
use crate::types::{Provider, Variant};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::sync::Mutex;

static CURRENT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// The variant this process runs for `provider` (set by main before any command).
pub fn current_variant(provider: &str) -> String {
    CURRENT.lock().unwrap().get(provider).cloned().unwrap_or_else(|| "default".into())
}

/// A provider's variant, or why there is none (with the ones there are).
pub fn find_variant(provider: &str, name: &str) -> Result<&'static Variant, String> {
    let all = provider_by_name(provider).map(|p| p.variants()).unwrap_or_default();
    let names = all.iter().map(|v| v.name).collect::<Vec<_>>().join(", ");
    all.iter().find(|v| v.name == name).ok_or_else(|| format!("{provider} has no variant '{name}' ({names})"))
}

/// The `variants` of a provider in `capabilities`: the environment each one sets.
pub fn variants_json(p: &dyn Provider) -> Vec<Value> {
    let variant = |v: &Variant| {
        let env: Map<String, Value> = v.env.iter().filter_map(|(k, x)| x.map(|x| (k.to_string(), json!(x)))).collect();
        json!({"name": v.name, "description": v.description, "env": env})
    };
    p.variants().iter().map(variant).collect()
}

/// True in the soft build (RustCrypto's portable backends forced at compile time; only the
/// `rustcrypto` provider).
pub const SOFT_BUILD: bool = cfg!(cryptobench_soft);

/// Where the other build is: the soft build is installed as libexec/cryptobench-runner-rust-soft
/// beside the bin/ of the main one (build.sh), out of the directories where runners are found.
fn other_build() -> Result<std::path::PathBuf, String> {
    let exe = std::fs::read_link("/proc/self/exe").map_err(|e| format!("cannot find this executable: {e}"))?;
    let prefix = exe.parent().and_then(|d| d.parent()).ok_or("cannot find this executable's prefix")?;
    let other = if SOFT_BUILD {
        prefix.join("bin/cryptobench-runner-rust")
    } else {
        prefix.join("libexec/cryptobench-runner-rust-soft")
    };
    if other.is_file() {
        Ok(other)
    } else {
        Err(format!(
            "rustcrypto/soft runs in the soft build of this runner, and {} is absent (make setup builds it)",
            other.display()
        ))
    }
}

/// Makes the process run `requested` (provider → variant; the others run `default`): returns when
/// the build and the environment already say so, else re-executes the runner (or the other build
/// of it) with them.
pub fn select_variants(requested: &BTreeMap<String, String>) -> Result<(), String> {
    let want_soft = requested.iter().any(|(p, v)| find_variant(p, v).is_ok_and(|v| v.soft_build));
    if want_soft && requested.len() > 1 {
        return Err("rustcrypto/soft runs in a build of its own (RustCrypto's portable backends are chosen \
                    at compile time): start a runner with --variant rustcrypto=soft alone"
            .into());
    }
    if want_soft != SOFT_BUILD {
        let err = std::process::Command::new(other_build()?).args(std::env::args_os().skip(1)).exec();
        return Err(format!("cannot execute the other build of the runner: {err}"));
    }
    let mut want: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    let mut chosen = BTreeMap::new();
    for p in providers() {
        let name = requested.get(p.name()).map(String::as_str).unwrap_or("default");
        let v = find_variant(p.name(), name)?;
        for (k, val) in v.env {
            want.insert(k, *val);
        }
        chosen.insert(p.name().to_string(), name.to_string());
    }
    let holds = want.iter().all(|(k, val)| std::env::var(k).ok().as_deref() == *val);
    if holds {
        *CURRENT.lock().unwrap() = chosen;
        // SAFETY: called by main before any thread is started.
        unsafe { std::env::remove_var("CRYPTOBENCH_REEXEC") };
        return Ok(());
    }
    if std::env::var_os("CRYPTOBENCH_REEXEC").is_some() {
        return Err("the variant's environment did not stick after re-executing".into());
    }
    let mut cmd = std::process::Command::new("/proc/self/exe");
    cmd.args(std::env::args_os().skip(1)).arg0(std::env::args_os().next().unwrap_or_default());
    cmd.env("CRYPTOBENCH_REEXEC", "1");
    for (k, val) in &want {
        match val {
            Some(x) => cmd.env(k, x),
            None => cmd.env_remove(k),
        };
    }
    let err = cmd.exec();
    Err(format!("cannot re-execute the runner for its variants: {err}"))
}
