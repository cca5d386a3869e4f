//! The timing engine: one open case (gated by the coordinator), its calibration, heap pass and
//! samples, with the semantics of native/src/core/engine.cpp and runners/go/engine.go
//! (docs/runners.md puts them side by side).

use crate::clock::{mono_ns, ticks};
use crate::heap;
use crate::providers::provider_by_name;
use crate::rss;
use crate::spec::{CaseSpec, SpecError, case_input};
use crate::steps::{not_offered, params as parse_params, run_once};
use crate::types::*;
use crate::variants::current_variant;
use serde::Serialize;
use serde_json::{Value, json};
use std::hint::black_box;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Sample {
    pub iterations: u64,
    pub ns: u64,
    pub ticks: u64,
}

pub const STATUS_OK: &str = "ok";
pub const STATUS_FAILED: &str = "failed";
pub const STATUS_UNSUPPORTED: &str = "unsupported";
const PAGE: usize = 4096;
const SLACK: usize = 128;
const CANARY: usize = 64; // bytes checked after the output
const CANARY_BYTE: u8 = 0xA5;
/// A sample that starts this long after the previous one ended is a new visit: it re-warms for
/// about REWARM_NS first (engine.hpp, kVisitGapNs and kRewarmNs).
const VISIT_GAP_NS: u64 = 50_000;
const REWARM_NS: f64 = 750_000.0;

#[derive(Clone, Default, Debug, Serialize)]
pub struct Layout {
    pub inplace: bool,
    pub distance: usize,
    pub in_page_offset: usize,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

#[derive(Default)]
pub struct OpenCase {
    pub spec: CaseSpec,
    pub status: String,
    pub reason: String,
    pub iterations: u64,
    pub calibration_ns: u64,
    pub samples: Vec<Sample>,
    pub heap: Value,
    pub op: Option<BoxOp>,
    sink: u8,
    // The buffers: one page-aligned block; the input at base+off, the output `distance` after it.
    block: Vec<u8>,
    base: usize,
    n: usize,
    out_cap: usize,
    // The check of the timed instance (protocol.md, step 6).
    input: Vec<u8>,
    expected: Vec<u8>,
    ref_len: usize,
    deterministic: bool,
    keygen: bool,
    canary_at: usize,
    checked: bool,
    pub timed_check: String,
    pub layout: Layout,
    // In-place AEAD decryption alternates between two texts and their tags (engine.cpp).
    alternate: bool,
    tag_at: usize,
    tags: [Vec<u8>; 2],
    parity: usize,
    pub rewarms: u64,
    last_sample_end: u64,
}

/// A case the coordinator gated, opened with its params (docs/protocol.md, "Who gates").
pub fn open_case(spec: CaseSpec, params: Option<&Value>) -> OpenCase {
    let mut c = OpenCase { spec, ..Default::default() };
    match c.open(params) {
        Ok(()) => c.status = STATUS_OK.into(),
        Err(e) => (c.status, c.reason, c.op) = (status_of(&e).into(), e.to_string(), None),
    }
    c
}

/// The status of a case whose operation could not be prepared: unsupported, or failed.
fn status_of(e: &Error) -> &'static str {
    if matches!(e, Error::Unsupported(_)) { STATUS_UNSUPPORTED } else { STATUS_FAILED }
}

/// A reply (`steps`, `leak`) for a case whose operation could not be prepared.
pub fn refused(mut reply: Value, e: &Error) -> Value {
    (reply["status"], reply["reason"]) = (json!(status_of(e)), json!(e.to_string()));
    reply
}

/// What makes a parsed case unsupported before any library work (engine.cpp, open()).
pub fn resolve(spec: &mut CaseSpec) -> Res<(&'static AlgorithmInfo, &'static dyn Provider)> {
    let info =
        find_algorithm(&spec.algorithm).ok_or_else(|| unsupported(format!("unknown algorithm {}", spec.algorithm)))?;
    let p =
        provider_by_name(&spec.provider).ok_or_else(|| unsupported(format!("unknown provider {}", spec.provider)))?;
    let current = current_variant(p.name());
    if !spec.variant.is_empty() && spec.variant != current {
        return Err(unsupported(format!(
            "this runner runs {} as variant '{}'; start one with --variant {}={}",
            spec.provider, current, spec.provider, spec.variant
        )));
    }
    spec.variant = current;
    match not_offered(p, info) {
        Some(why) => Err(unsupported(why)),
        None => Ok((info, p)),
    }
}

impl OpenCase {
    fn open(&mut self, raw: Option<&Value>) -> Res<()> {
        let (info, p) = resolve(&mut self.spec)?;
        let raw = raw.filter(|v| v.is_object());
        let raw = raw.ok_or_else(|| failed("params: missing (the coordinator sends the case's parameters)"))?;
        let mut params = parse_params(Some(raw), "params").map_err(|SpecError(e)| failed(e))?;
        let public_key =
            matches!(info.kind.as_str(), "kdf" | "keypair" | "signature" | "pk-encryption" | "key-agreement" | "kem");
        let mut plaintext = case_input(&self.spec, info);
        let size = plaintext.len();
        let (mut room, mut encrypting) = (SLACK + info.tag_bytes, params.clone());
        if public_key {
            // Room for the largest output: an SLH-DSA signature, a KEM's ciphertext and secret.
            (room, encrypting.keypair) = (output_room(info) + SLACK, params.public.clone());
        }
        if self.spec.operation == "verify" {
            // this provider's signature of the message
            params.signature = run_once(&mut p.prepare(info, "sign", &params)?, &plaintext, output_room(info))?;
            params.keypair = params.public.clone();
        } else if (self.spec.operation == "encrypt" && public_key) || self.spec.operation == "encaps" {
            params.keypair = params.public.clone();
        } else if self.spec.operation == "decaps" {
            // this provider's own ciphertext of the test key (its length passed the gate: gate/pq.py)
            plaintext = run_once(&mut p.prepare(info, "encaps", &encrypting)?, &[], room)?;
            plaintext.truncate(info.ciphertext_bytes);
        }
        // The measured input: the plaintext, or for decryption this provider's ciphertext of it.
        let mut input = plaintext.clone();
        let mut inplace = self.spec.inplace && (info.kind == "cipher" || info.kind == "aead");
        if self.spec.operation == "decrypt" {
            let mut enc = p.prepare(info, "encrypt", &encrypting)?;
            input = run_once(&mut enc, &plaintext, room)?;
            if inplace && info.kind == "aead" {
                // Decrypting in place leaves the plaintext where the ciphertext was, and the next run
                // would fail its tag check. For CTR-based AEADs encrypting the ciphertext gives back
                // the plaintext as ciphertext, with its own tag: the runs alternate between the two
                // texts, each preceded by the tag that belongs to the text in the buffer.
                let again = run_once(&mut enc, &input[..size], info.tag_bytes + SLACK);
                match again {
                    Ok(a) if a.len() == input.len() && a[..size] == plaintext[..] => {
                        self.alternate = true;
                        self.tag_at = size;
                        self.tags = [input[size..].to_vec(), a[size..].to_vec()];
                    }
                    _ => {
                        inplace = false;
                        self.layout.note = format!(
                            "{} decryption is not an involution, so it cannot repeat in place: measured out of place",
                            info.name
                        );
                    }
                }
            }
            self.expected = plaintext.clone();
            self.ref_len = plaintext.len();
            self.deterministic = true;
        } else {
            self.compute_reference(p, info, &params, &input)?;
        }
        if inplace {
            // An API that cannot work in place is measured out of place, and says so.
            let mut buf = input.clone();
            buf.resize(input.len() + info.tag_bytes + SLACK, 0);
            let trial = p.prepare(info, &self.spec.operation, &params);
            let why = match trial.and_then(|mut t| t(&mut Io::in_place(&mut buf, input.len()))) {
                Ok(n) if buf[..n] != self.expected[..] => "gives a different output in place".to_string(),
                Ok(_) => String::new(),
                Err(e) => format!("fails in place ({e})"),
            };
            if !why.is_empty() {
                inplace = false;
                self.alternate = false;
                self.layout.note = format!(
                    "{} {} {} {}: measured out of place",
                    self.spec.provider, self.spec.operation, info.name, why
                );
            }
        }
        self.allocate_buffers(input, room, inplace);
        self.measure_heap_and_calibrate(p, info, &params)
    }

    /// The output of a fresh instance on the case's input, which the timed instance must still
    /// give after sampling (engine.cpp, compute_reference).
    fn compute_reference(&mut self, p: &dyn Provider, info: &AlgorithmInfo, params: &Params, input: &[u8]) -> Res<()> {
        if self.spec.operation == "keygen" {
            self.keygen = true; // nothing to compare; the canaries are still checked
            return Ok(());
        }
        let once = || -> Res<Vec<u8>> {
            let mut fresh = p.prepare(info, &self.spec.operation, params)?;
            run_once(&mut fresh, input, output_room(info) + SLACK)
        };
        self.expected = once()?;
        self.ref_len = self.expected.len();
        if (self.spec.operation == "encrypt" && info.kind == "pk-encryption") || self.spec.operation == "encaps" {
            return Ok(()); // randomised (OAEP, KEM encapsulation)
        }
        // Signatures are deterministic for some schemes (PKCS#1 v1.5, EdDSA) and not for others.
        self.deterministic = true;
        if self.spec.operation == "sign" {
            let again = once()?;
            self.deterministic = again == self.expected;
        }
        Ok(())
    }

    fn start(&self) -> usize {
        self.base + self.spec.align_offset as usize
    }

    fn out_start(&self) -> usize {
        self.start() + self.layout.distance
    }

    /// The input align_offset bytes past a page boundary and the output on it (in place) or half
    /// a page past the next page boundary after the input (engine.cpp, allocate_buffers), with
    /// canaries after the bytes a correct run writes.
    fn allocate_buffers(&mut self, input: Vec<u8>, room: usize, inplace: bool) {
        let off = self.spec.align_offset as usize;
        let n = input.len();
        let written = if inplace { self.ref_len.max(n) } else { self.ref_len };
        let out_cap = (n + room).max(written + CANARY);
        let distance = if inplace { 0 } else { (off + n).next_multiple_of(PAGE) + PAGE / 2 };
        let total = (off + distance + out_cap).next_multiple_of(PAGE);
        self.block = vec![0u8; total + PAGE];
        let addr = self.block.as_ptr() as usize;
        self.base = (PAGE - addr % PAGE) % PAGE;
        self.n = n;
        self.out_cap = out_cap;
        self.layout.inplace = inplace;
        self.layout.distance = distance;
        let s = self.start();
        self.block[s..s + n].copy_from_slice(&input);
        self.input = input;
        self.canary_at = written;
        let o = self.out_start() + written;
        self.block[o..o + CANARY].fill(CANARY_BYTE);
        self.layout.in_page_offset = (addr + s) % PAGE;
    }

    fn canaries_intact(&self) -> bool {
        let o = self.out_start() + self.canary_at;
        self.block[o..o + CANARY].iter().all(|&b| b == CANARY_BYTE)
    }

    fn measure_heap_and_calibrate(&mut self, p: &dyn Provider, info: &AlgorithmInfo, params: &Params) -> Res<()> {
        heap::start();
        let prepared = p.prepare(info, &self.spec.operation, params);
        let prep = heap::stop();
        self.op = Some(prepared?);

        let t0 = mono_ns();
        if self.spec.operation == "keygen" {
            // One key per sample (every key takes a different time); one untimed key first.
            self.run_ops(1)?;
            self.iterations = 1;
        } else {
            self.iterations = self.calibrate(self.spec.target_sample_ms * 1e6, self.spec.warmup_ms * 1e6)?;
        }
        self.calibration_ns = mono_ns() - t0;

        let heap_ops = if self.keygen { self.spec.heap_iterations.min(2) } else { self.spec.heap_iterations };
        let resident = rss::PeakPass::start();
        heap::start();
        let r = self.run_ops(heap_ops);
        let counts = heap::stop();
        let (rss_before_kb, rss_peak_kb) = resident.end();
        r?;
        let n = heap_ops as f64;
        self.heap = json!({"allocs_per_op": counts.allocs as f64 / n, "frees_per_op": counts.frees as f64 / n,
            "bytes_per_op": counts.bytes as f64 / n, "peak_live_bytes": counts.peak_live,
            "prepare_allocs": prep.allocs, "prepare_bytes": prep.bytes,
            "rss_before_kb": rss_before_kb, "rss_peak_kb": rss_peak_kb});
        Ok(())
    }

    /// `count` back-to-back operations on the case's buffers; the first byte of every output is
    /// folded into `sink` through black_box, so no result is dead. The last output's length.
    pub fn run_ops(&mut self, count: u64) -> Res<usize> {
        let s = self.start();
        let (n, cap, dist) = (self.n, self.out_cap, self.layout.distance);
        let op = self.op.as_mut().ok_or_else(|| failed("the case has no prepared operation"))?;
        let block = &mut self.block;
        let (mut acc, mut last) = (0u8, 0);
        if self.alternate {
            let tag_len = self.tags[0].len();
            let whole = self.tag_at + tag_len;
            for _ in 0..count {
                block[s + self.tag_at..s + whole].copy_from_slice(&self.tags[self.parity]);
                self.parity ^= 1;
                last = op(&mut Io::in_place(&mut block[s..s + cap], whole))?;
                if last > 0 {
                    acc ^= block[s];
                }
            }
        } else if self.layout.inplace {
            for _ in 0..count {
                last = op(&mut Io::in_place(&mut block[s..s + cap], n))?;
                if last > 0 {
                    acc ^= block[s];
                }
            }
        } else {
            let (a, b) = block.split_at_mut(s + dist);
            let input = &a[s..s + n];
            let out = &mut b[..cap];
            for _ in 0..count {
                last = op(&mut Io::separate(input, out))?;
                if last > 0 {
                    acc ^= out[0];
                }
            }
        }
        self.sink ^= black_box(acc);
        Ok(last)
    }

    /// Warm-up for warmup_ns, then the count doubles until a batch lasts a quarter of the target,
    /// the fastest of three timings of that count is scaled to the target (engine.cpp).
    fn calibrate(&mut self, target_ns: f64, warmup_ns: f64) -> Res<u64> {
        let start = mono_ns();
        loop {
            self.run_ops(1)?;
            if (mono_ns() - start) as f64 >= warmup_ns {
                break;
            }
        }
        const MAX_ITER: u64 = 1 << 40;
        let timed = |c: &mut Self, n: u64| -> Res<f64> {
            let t0 = mono_ns();
            c.run_ops(n)?;
            Ok((mono_ns() - t0) as f64)
        };
        let mut n = 1u64;
        let mut elapsed = timed(self, n)?;
        while elapsed < target_ns / 4.0 && n < MAX_ITER {
            n *= 2;
            elapsed = timed(self, n)?;
        }
        for _ in 0..2 {
            elapsed = elapsed.min(timed(self, n)?);
        }
        if elapsed <= 0.0 {
            return Ok(n);
        }
        let scaled = (n as f64 * target_ns / elapsed).round();
        Ok(scaled.clamp(1.0, MAX_ITER as f64) as u64)
    }

    pub fn sample(&mut self) -> Res<Sample> {
        if self.status != STATUS_OK {
            return Err(failed("sample on a case that is not ok"));
        }
        self.rewarm_if_visit_began()?;
        let (t0, k0) = (mono_ns(), ticks());
        let r = self.run_ops(self.iterations);
        let (k1, t1) = (ticks(), mono_ns());
        r?;
        let s = Sample { iterations: self.iterations, ns: t1 - t0, ticks: k1.wrapping_sub(k0) };
        self.samples.push(s);
        self.last_sample_end = t1;
        if self.samples.len() as u64 >= self.spec.samples {
            self.check_timed_instance();
        }
        Ok(s)
    }

    /// A sample that begins more than VISIT_GAP_NS after the previous one ended (another case or
    /// process had the CPU) is preceded by about REWARM_NS of untimed operations; operations
    /// longer than half a sample warm themselves.
    fn rewarm_if_visit_began(&mut self) -> Res<()> {
        if mono_ns() - self.last_sample_end <= VISIT_GAP_NS || self.iterations < 2 {
            return Ok(());
        }
        let per_op = self.spec.target_sample_ms * 1e6 / self.iterations as f64;
        self.run_ops((REWARM_NS / per_op).ceil() as u64)?;
        self.rewarms += 1;
        Ok(())
    }

    /// protocol.md, step 6: once the case has its samples, and at the latest at close, the
    /// canaries are intact, out of place the input is unchanged, and one more run of the timed
    /// operation in the timed buffers gives the output a fresh instance gave after the gate.
    pub fn check_timed_instance(&mut self) {
        if self.checked || self.status != STATUS_OK {
            return;
        }
        self.checked = true;
        let s = self.start();
        let mut why = String::new();
        let wrote_past = format!("the timed operation wrote past its {}-byte output", self.ref_len);
        if !self.canaries_intact() {
            why = wrote_past;
        } else if !self.layout.inplace && self.block[s..s + self.n] != self.input[..] {
            why = "the timed operation changed its input buffer".into();
        } else if self.keygen {
            // Key generation writes nothing to the buffers: the canaries are its whole check.
        } else {
            self.restore_input(); // in place, the buffer holds a later text
            let r = self.run_ops(1);
            let o = self.out_start();
            match r {
                Err(e) => why = format!("the timed instance failed on the case's input: {e}"),
                Ok(_) if !self.canaries_intact() => why = wrote_past,
                Ok(len) if self.deterministic && len != self.expected.len() => {
                    why = format!("the timed instance returned {len} bytes, the gated one {}", self.expected.len())
                }
                Ok(len) if self.deterministic && self.block[o..o + len] != self.expected[..] => {
                    let got = &self.block[o..o + len];
                    let at = got.iter().zip(&self.expected).take_while(|(a, b)| a == b).count();
                    why = format!("the timed instance's output differs from the gated instance's (byte {at})");
                }
                Ok(_) => {}
            }
        }
        if !why.is_empty() {
            self.fail(&format!("check of the timed instance after sampling: {why}"));
            self.timed_check = "failed".into();
            return;
        }
        self.timed_check = if self.deterministic {
            "output equals the gated instance's; canaries intact"
        } else {
            "canaries intact (randomised output: not compared)"
        }
        .into();
        // More samples may be asked for (adaptive sampling): the buffer goes back to the state
        // sampling starts from.
        self.restore_input();
    }

    /// The case's input back in the input buffer, and the tag alternation at its start.
    fn restore_input(&mut self) {
        let s = self.start();
        self.block[s..s + self.n].copy_from_slice(&self.input);
        self.parity = 0;
    }

    pub fn fail(&mut self, reason: &str) {
        if self.status == STATUS_FAILED && !self.reason.is_empty() {
            return; // the first reason is the one to report
        }
        self.status = STATUS_FAILED.into();
        self.reason = reason.into();
        self.samples.clear();
        self.op = None;
    }
}
