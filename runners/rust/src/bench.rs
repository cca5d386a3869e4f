//! The fidelity bench: reference cases measured by this runner's engine and by Rust's standard
//! benchmark harness, criterion (Bencher::iter, its default linear sampling and analysis), on the
//! same prepared operation and buffers. The two alternate so drift on a shared machine hits both;
//! one JSON line per case carries both rounds' figures, and the coordinator's summary
//! (python/cryptobench/runner_fidelity.py) their ratio; it reads no other line, so criterion's
//! own report may print on.

use crate::engine::*;
use crate::protocol::{emit, error_message};
use crate::spec::{CaseSpec, parse_case};
use crate::types::find_algorithm;
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

fn bench_case(id: &str, provider: &str, operation: &str, algorithm: &str, size: u64) -> CaseSpec {
    let case = json!({"id": id, "provider": provider, "operation": operation, "algorithm": algorithm, "size": size,
        "target_sample_ms": 25.0, "warmup_ms": 200.0, "heap_iterations": 1});
    parse_case(&case, "bench").expect("a bench case")
}

/// Rounds of about 0.3 s for each harness: the engine's 11 samples of 25 ms, criterion's 10
/// samples over 250 ms after 50 ms of warm-up, so both see the same stretch of machine noise.
const ROUNDS: usize = 9;

/// criterion's median time per iteration (ns) of the benchmark `id`, from its estimates.json.
fn criterion_median(dir: &std::path::Path, id: &str) -> Option<f64> {
    let path = dir.join(id).join("new").join("estimates.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

pub fn command_bench(out: &mut impl Write) -> i32 {
    let dir = std::env::temp_dir().join(format!("cryptobench-criterion-{}", std::process::id()));
    let done = bench_cases(out, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    match done {
        Ok(()) => 0,
        Err(e) => {
            emit(out, &error_message(&e));
            1
        }
    }
}

fn bench_cases(out: &mut impl Write, dir: &std::path::Path) -> Result<(), String> {
    let cases = [
        bench_case("aws-lc-rs-gcm", "aws-lc-rs", "encrypt", "aes-256-gcm", 16384),
        bench_case("rustcrypto-sha256", "rustcrypto", "hash", "sha256", 1024),
        bench_case("ring-chacha", "ring", "encrypt", "chacha20-poly1305", 16384),
    ];
    for spec in cases {
        // A key and IV of zeros: these operations take the same time with any key.
        let info = find_algorithm(&spec.algorithm).unwrap();
        let params = json!({"key": "00".repeat(info.key_bytes), "iv": "00".repeat(info.iv_bytes)});
        let mut c = open_case(spec.clone(), Some(&params));
        if c.status != STATUS_OK {
            return Err(format!("{}: {} {}", spec.id, c.status, c.reason));
        }
        let (mut engine, mut harness) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            c.samples.clear();
            for _ in 0..11 {
                c.sample().map_err(|e| format!("{}: {e}", spec.id))?;
            }
            // A round's figure is the median of its samples' ns/op (the coordinator takes it).
            engine.push(c.samples.iter().map(|x| x.ns as f64 / x.iterations as f64).collect::<Vec<_>>());
            let id = format!("{}-{round}", spec.id);
            let mut crit = criterion::Criterion::default()
                .output_directory(dir)
                .without_plots()
                .with_output_color(false)
                .sample_size(10)
                .warm_up_time(Duration::from_millis(50))
                .measurement_time(Duration::from_millis(250))
                .nresamples(10_000);
            crit.bench_function(&id, |b| b.iter(|| c.run_ops(1).expect("the library failed")));
            let missing = || format!("{}: criterion wrote no estimates under {}", spec.id, dir.display());
            harness.push(criterion_median(dir, &id).ok_or_else(missing)?);
        }
        let name = format!("{} {} {} {}", spec.provider, spec.operation, spec.algorithm, spec.size);
        emit(
            out,
            &json!({"type": "fidelity", "case": name, "harness": "criterion", "engine_ns": engine, "harness_ns": harness}),
        );
    }
    Ok(())
}
