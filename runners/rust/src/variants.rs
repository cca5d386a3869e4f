//! Variants: switches of a provider's code path. aws-lc-rs reads OPENSSL_ia32cap (AWS-LC's
//! cpu_intel.c) when the library initialises, so its variants re-execute the runner with the
//! variable set (or removed, for `default`) before any library is loaded, as the native runner
//! does for its library switches. ring and RustCrypto have no run-time switch (docs/runners.md).

use crate::providers::{provider_by_name, providers};
use crate::types::Variant;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;

static CURRENT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// The variant this process runs for `provider` (set by main before any command).
pub fn current_variant(provider: &str) -> String {
    CURRENT.lock().unwrap().get(provider).cloned().unwrap_or_else(|| "default".into())
}

pub fn find_variant(provider: &str, name: &str) -> Option<&'static Variant> {
    provider_by_name(provider)?.variants().iter().find(|v| v.name == name)
}

pub fn variant_names(provider: &str) -> String {
    provider_by_name(provider)
        .map(|p| p.variants().iter().map(|v| v.name).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

pub fn variants_json(provider: &str) -> Value {
    let p = provider_by_name(provider).unwrap();
    Value::Array(
        p.variants()
            .iter()
            .map(|v| {
                let env: Map<String, Value> =
                    v.env.iter().filter_map(|(k, val)| val.map(|x| (k.to_string(), json!(x)))).collect();
                json!({"name": v.name, "description": v.description, "env": env})
            })
            .collect(),
    )
}

/// Makes the process run `requested` (provider → variant; the others run `default`): returns when
/// the environment already says so, else re-executes the runner with it.
pub fn select_variants(requested: &BTreeMap<String, String>) -> Result<(), String> {
    let mut want: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    let mut chosen = BTreeMap::new();
    for p in providers() {
        let name = requested.get(p.name()).map(String::as_str).unwrap_or("default");
        let v = find_variant(p.name(), name).ok_or_else(|| format!("{} has no variant '{name}'", p.name()))?;
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
    use std::os::unix::process::CommandExt;
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
