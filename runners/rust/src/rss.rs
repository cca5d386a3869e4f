//! The process's resident set across a heap pass (docs/protocol.md, result `heap`): before it
//! VmRSS, then the resident high-water mark is reset (`/proc/self/clear_refs`, "5"); after it
//! VmHWM. A figure that cannot be read is null ("not measured"), never 0. The same procedure as
//! native/src/core/heap.cpp; it reads and writes /proc outside the counted part of the pass.

use std::sync::atomic::{AtomicI64, Ordering};

/// VmHWM folded in before each reset, so `max_rss_kb` stays the lifetime peak.
static LIFETIME_PEAK_KB: AtomicI64 = AtomicI64::new(0);

fn status_kb(key: &str) -> Option<i64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

pub struct PeakPass {
    before_kb: Option<i64>,
    reset: bool,
}

impl PeakPass {
    pub fn start() -> PeakPass {
        let before_kb = status_kb("VmRSS:");
        if let Some(hwm) = status_kb("VmHWM:") {
            LIFETIME_PEAK_KB.fetch_max(hwm, Ordering::Relaxed);
        }
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        PeakPass { before_kb, reset }
    }

    /// (rss_before_kb, rss_peak_kb)
    pub fn end(self) -> (Option<i64>, Option<i64>) {
        (self.before_kb, if self.reset { status_kb("VmHWM:") } else { None })
    }
}

/// The process's peak resident set over its life, despite the heap passes' resets.
pub fn max_rss_kb() -> i64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_maxrss.max(LIFETIME_PEAK_KB.load(Ordering::Relaxed))
}
