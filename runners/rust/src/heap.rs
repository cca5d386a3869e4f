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
        // a free of the old block, then an allocation of the new one (the peak sees the new size)
        on_free(layout.size());
        on_alloc(new_size);
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
    [&ALLOCS, &FREES, &BYTES].iter().for_each(|count| count.store(0, Relaxed));
    [&LIVE, &PEAK].iter().for_each(|level| level.store(0, Relaxed));
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

/// AWS-LC's OPENSSL_malloc/realloc/free routed through the Rust allocator, so the counter sees the
/// C library's allocations as the native runner's interposed malloc does. Each block carries its
/// size in a 16-byte header (free() is not told the size).
#[cfg(feature = "c-providers")]
pub mod c_hooks {
    use std::alloc::{Layout, alloc, dealloc};
    use std::os::raw::{c_char, c_int, c_void};

    const HEADER: usize = 16;

    unsafe fn layout(size: usize) -> Layout {
        unsafe { Layout::from_size_align_unchecked(size + HEADER, HEADER) }
    }

    unsafe extern "C" fn c_malloc(size: usize, _: *const c_char, _: c_int) -> *mut c_void {
        unsafe {
            let p = alloc(layout(size));
            if p.is_null() {
                return p.cast();
            }
            (p as *mut usize).write(size);
            p.add(HEADER).cast()
        }
    }

    unsafe extern "C" fn c_free(ptr: *mut c_void, _: *const c_char, _: c_int) {
        if ptr.is_null() {
            return;
        }
        unsafe {
            let p = (ptr as *mut u8).sub(HEADER);
            dealloc(p, layout((p as *const usize).read()));
        }
    }

    unsafe extern "C" fn c_realloc(ptr: *mut c_void, size: usize, f: *const c_char, l: c_int) -> *mut c_void {
        unsafe {
            let new = c_malloc(size, f, l);
            if !ptr.is_null() && !new.is_null() {
                let old = ((ptr as *const u8).sub(HEADER) as *const usize).read();
                std::ptr::copy_nonoverlapping(ptr as *const u8, new as *mut u8, old.min(size));
                c_free(ptr, f, l);
            }
            new
        }
    }

    /// Must run before AWS-LC allocates anything (main does it first); true when AWS-LC took it.
    pub fn install() -> bool {
        unsafe { aws_lc_sys::CRYPTO_set_mem_functions(Some(c_malloc), Some(c_realloc), Some(c_free)) == 1 }
    }
}
