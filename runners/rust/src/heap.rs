//! A counting global allocator, the analogue of the native runner's interposed malloc: while
//! counting is on, every allocation, free and allocated byte of the process (the library's and
//! the runner's alike) is counted, and the live bytes' peak is tracked. Off, it costs one relaxed
//! load per allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};

pub struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static FREES: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

fn on_alloc(size: usize) {
    if ON.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
        let live = LIVE.fetch_add(size as i64, Relaxed) + size as i64;
        PEAK.fetch_max(live, Relaxed);
    }
}

fn on_free(size: usize) {
    if ON.load(Relaxed) {
        FREES.fetch_add(1, Relaxed);
        LIVE.fetch_sub(size as i64, Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_free(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Relaxed) {
            ALLOCS.fetch_add(1, Relaxed);
            FREES.fetch_add(1, Relaxed);
            BYTES.fetch_add(new_size as u64, Relaxed);
            let live = LIVE.fetch_add(new_size as i64 - layout.size() as i64, Relaxed) + new_size as i64
                - layout.size() as i64;
            PEAK.fetch_max(live, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What the counter saw between `start` and `stop`.
#[derive(Clone, Copy, Default, Debug)]
pub struct Counts {
    pub allocs: u64,
    pub frees: u64,
    pub bytes: u64,
    /// The highest rise of live heap bytes above the level at `start`.
    pub peak_live: u64,
}

pub fn start() {
    ALLOCS.store(0, Relaxed);
    FREES.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ON.store(true, Relaxed);
}

pub fn stop() -> Counts {
    ON.store(false, Relaxed);
    Counts {
        allocs: ALLOCS.load(Relaxed),
        frees: FREES.load(Relaxed),
        bytes: BYTES.load(Relaxed),
        peak_live: PEAK.load(Relaxed).max(0) as u64,
    }
}
