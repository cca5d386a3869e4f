//! cryptobench-runner-rust: the Rust runner (providers `ring`, `aws-lc-rs` and `rustcrypto`). It
//! speaks the runner protocol of docs/protocol.md like cryptobench-native; docs/runners.md
//! describes its measurement.

#[cfg(feature = "bench")]
mod bench;
mod clock;
mod engine;
mod heap;
mod leak;
mod machine;
mod protocol;
mod providers;
mod rss;
mod spec;
mod steps;
mod taint;
mod types;
mod variants;

#[cfg(test)]
mod layering;
#[cfg(test)]
mod tests;

use protocol::*;
use providers::{provider_by_name, providers};
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

const USAGE: &str = "usage: cryptobench-runner-rust list  [--variant P=V]...
       cryptobench-runner-rust serve [--variant P=V]... [--cpu N|--no-pin]
       cryptobench-runner-rust bench [--no-pin]   (fidelity against criterion)
Protocol and message formats: docs/protocol.md
";

#[derive(Default)]
struct Options {
    command: String,
    cpu: Option<usize>,
    no_pin: bool,
    variants: BTreeMap<String, String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut args = args.iter();
    let cmd = args.next().ok_or("missing command (list, serve, bench)")?;
    o.command = cmd.clone();
    match cmd.as_str() {
        "-h" | "--help" => return Ok(o),
        "list" | "serve" | "bench" => {}
        _ => return Err(format!("unknown command '{cmd}' (list, serve, bench)")),
    }
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--variant" => {
                let v = value()?;
                let Some((p, variant)) = v.split_once('=').filter(|(p, v)| !p.is_empty() && !v.is_empty()) else {
                    return Err(format!("--variant takes PROVIDER=VARIANT, got '{v}'"));
                };
                if provider_by_name(p).is_none() {
                    return Err(format!("--variant: unknown provider '{p}'"));
                }
                variants::find_variant(p, variant).map_err(|e| format!("--variant: {e}"))?;
                if let Some(old) = o.variants.get(p).filter(|old| *old != variant) {
                    return Err(format!(
                        "--variant: {p} given twice ({old} and {variant}); one process runs one variant of a provider"
                    ));
                }
                o.variants.insert(p.to_string(), variant.to_string());
            }
            "--cpu" => {
                let v = value()?;
                match v.parse::<usize>() {
                    Ok(n) if n < 1024 => o.cpu = Some(n),
                    _ => return Err(format!("--cpu takes a CPU number, got '{v}'")),
                }
            }
            "--no-pin" => o.no_pin = true,
            "-h" | "--help" => o.command = "--help".into(),
            _ => return Err(format!("unknown option '{a}' for {}", o.command)),
        }
    }
    Ok(o)
}

/// Pins the process (one thread) to one CPU: by default the last one allowed (CPU 0 takes more
/// interrupts). Returns the CPU, or None with --no-pin or when affinity cannot be read.
fn pin(o: &Options) -> Result<Option<usize>, String> {
    if o.no_pin {
        return Ok(None);
    }
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) != 0 {
            return Ok(None);
        }
        if let Some(c) = o.cpu.filter(|&c| !libc::CPU_ISSET(c, &allowed)) {
            return Err(format!("--cpu {c}: not available to this process"));
        }
        let Some(cpu) = o.cpu.or_else(|| (0..1024).rev().find(|&c| libc::CPU_ISSET(c, &allowed))) else {
            return Ok(None);
        };
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
            return Ok(None);
        }
        Ok(Some(cpu))
    }
}

/// The `capabilities` of `list`: what each provider offers, probed through its adapter.
fn capabilities() -> Value {
    let mut machine = machine::machine_record();
    let mut offered = std::collections::HashSet::new();
    let mut provs = Vec::new();
    for p in providers() {
        let (mut algs, mut missing) = (Vec::new(), serde_json::Map::new());
        for a in types::catalogue() {
            match steps::not_offered(*p, a) {
                Some(why) => _ = missing.insert(a.name.clone(), json!(why)),
                None => {
                    offered.insert(a.name.as_str());
                    algs.push(json!({"name": a.name, "operations": a.operations}));
                }
            }
        }
        provs.push(json!({"name": p.name(), "version": p.version(), "variant": variants::current_variant(p.name()),
            "variants": variants::variants_json(*p), "algorithms": algs, "not_offered": missing,
            "code_path": p.code_path()}));
        machine["libraries"][p.name()] = json!(p.version());
    }
    let algs: Vec<Value> =
        types::catalogue().iter().filter(|a| offered.contains(a.name.as_str())).map(|a| a.json.clone()).collect();
    json!({"type": "capabilities", "schema": SCHEMA, "runner": RUNNER_NAME, "runner_version": RUNNER_VERSION,
           "gate": GATE, "machine": machine, "algorithms": algs, "providers": provs})
}

fn main() {
    #[cfg(feature = "c-providers")]
    providers::awslc::HEAP_COUNTED.store(heap::c_hooks::install(), std::sync::atomic::Ordering::Relaxed);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = parse_args(&args).and_then(|o| -> Result<(), String> {
        if o.command == "--help" {
            print!("{USAGE}");
            std::process::exit(0);
        }
        variants::select_variants(&o.variants)?;
        let mut out = std::io::stdout().lock();
        if o.command == "list" {
            emit(&mut out, &capabilities());
            std::process::exit(0);
        }
        let cpu = pin(&o)?;
        if o.command == "bench" {
            #[cfg(feature = "bench")]
            std::process::exit(bench::command_bench(&mut out));
            #[cfg(not(feature = "bench"))]
            return Err("this build of the runner has no bench (criterion): make runner-rust builds it with one".into());
        }
        std::process::exit(command_serve(std::io::stdin().lock(), &mut out, cpu));
    });
    if let Err(e) = result {
        eprintln!("{RUNNER_NAME}: {e}");
        eprint!("{USAGE}");
        std::process::exit(2);
    }
}
