//! The clocks every sample reads: CLOCK_MONOTONIC (through Instant) and the TSC.

use std::sync::OnceLock;
use std::time::Instant;

pub fn mono_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// The TSC between two LFENCEs, so the read does not drift into the timed region
/// (engine.cpp, SystemClock::ticks).
#[cfg(target_arch = "x86_64")]
pub fn ticks() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub fn ticks() -> u64 {
    0
}
