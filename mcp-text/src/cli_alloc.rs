//! The CLI's allocator (the binary's only; the library leaves the allocator to its user).
//!
//! A conversion is one short process that builds a tree of many small values (a node, a text, an attribute
//! each) and then a few large buffers (the input, the output). glibc's malloc serves the first at 100-200
//! instructions an allocation, and the kernel faults every 4 KB page of both in one by one. Here blocks
//! under 256 KB are carved from chunks (256 KB growing to 4 MB) by bumping a pointer and recycled through a
//! free list per size class (16-byte steps to 1 KB, powers of two above); larger blocks are mappings of
//! their own, grown by `mremap`. Mappings from 2 MB up start on a huge page's boundary and, for the first
//! 64 MB mapped, are advised as huge pages (see `advise`), so a 25 MB conversion takes hundreds of page
//! faults rather than thousands. Memory stays what the values hold: a freed block is reused for the next
//! of its class, a freed mapping is unmapped.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Size classes up to `STEPS` are multiples of this, which is also every small block's alignment; above
/// it, powers of two.
const CLASS: usize = 16;
const STEPS: usize = 1024;
/// The smallest block that is a mapping of its own; anything smaller is carved from a chunk.
const LARGE: usize = 256 << 10;
/// How many size classes: 64 steps of 16 bytes, then 2 KB, 4 KB, ... 256 KB.
const CLASSES: usize = STEPS / CLASS + 8;
/// The largest chunk: two huge pages.
const CHUNK: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// The allocator: its state is per thread (a thread's own chunk and free lists), so that no allocation takes
/// a lock. A block freed by another thread joins that thread's lists: chunks are never unmapped, so any
/// thread may reuse any block.
pub struct CliAlloc;

struct State {
    /// How many chunks were mapped.
    chunks: u32,
    next: usize,
    end: usize,
    /// The head of each class's free list; a free block holds the address of the next.
    free: [*mut u8; CLASSES],
}

thread_local! {
    // A constant initializer and no destructor: the state is a plain thread-local, which allocates nothing.
    static STATE: UnsafeCell<State> = const {
        UnsafeCell::new(State {
            chunks: 0,
            next: 0,
            end: 0,
            free: [ptr::null_mut(); CLASSES],
        })
    };
}

impl CliAlloc {
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: the state is this thread's, and `f` (carving or releasing a block) neither allocates nor
        // re-enters the allocator, so this is the only reference to it.
        STATE.with(|s| f(unsafe { &mut *s.get() }))
    }
}

/// A fresh anonymous mapping advised as huge pages, or null. From a huge page's size up it starts on a
/// huge page's boundary, so that all of it can be huge pages, not only the whole ones it happens to span.
fn map(size: usize) -> *mut u8 {
    let over = if size >= HUGE_PAGE { HUGE_PAGE } else { 0 };
    // SAFETY: an anonymous private mapping touches no existing memory.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            size + over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    let start = (p as usize).next_multiple_of(over.max(1));
    let (head, tail) = (start - p as usize, over - (start - p as usize));
    // SAFETY: the head and tail are the parts of our own fresh mapping outside `start..start + size`.
    unsafe {
        if head > 0 {
            libc::munmap(p, head);
        }
        if tail > 0 {
            libc::munmap((start + size) as *mut libc::c_void, tail);
        }
    }
    advise(start as *mut libc::c_void, size);
    start as *mut u8
}

/// Asks for huge pages for the first `HUGE_BUDGET` bytes mapped. They take a conversion of a few MB from
/// thousands of page faults to hundreds (ADF → Markdown of 4 MB: 6,300 → 1,900 faults, 15-20% less CPU);
/// beyond that the kernel's zeroing of fresh huge pages costs more than the faults it saves (on the VM
/// measured, 100 MB of ADF → Markdown with huge pages throughout took from as long as without to twice as
/// long, in system time).
fn advise(p: *mut libc::c_void, size: usize) {
    if HUGE_ADVISED.fetch_add(size, Ordering::Relaxed) < HUGE_BUDGET {
        // Advice only: where the kernel has no transparent huge pages it is ignored, and so is its failure.
        // SAFETY: the range is a mapping of ours.
        unsafe { libc::madvise(p, size, libc::MADV_HUGEPAGE) };
    }
}

const HUGE_BUDGET: usize = 64 << 20;
static HUGE_ADVISED: AtomicUsize = AtomicUsize::new(0);

/// A large block's mapping: its size rounded up to whole pages (mappings are page-aligned, which is at least
/// any alignment a large layout asks for up to 4 KB).
fn mapped_len(size: usize) -> usize {
    size.div_ceil(4096) * 4096
}

impl State {
    #[inline(always)]
    fn carve(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block's first word is the next free block of its class.
            self.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = class_size(class);
        if self.end - self.next >= size {
            let p = self.next as *mut u8;
            self.next += size;
            return p;
        }
        self.carve_chunk(size)
    }

    /// A block of `size` bytes from a new chunk (the current one has less left).
    #[cold]
    #[inline(never)]
    fn carve_chunk(&mut self, size: usize) -> *mut u8 {
        // Chunks grow from 256 KB (a small conversion maps and faults in little) to 4 MB.
        let chunk = (CHUNK >> 4 << self.chunks.min(4)).max(size);
        let start = map(chunk);
        if start.is_null() {
            return start;
        }
        self.chunks += 1;
        self.next = start as usize;
        self.end = start as usize + chunk;
        let p = self.next as *mut u8;
        self.next += size;
        p
    }

    #[inline(always)]
    fn release(&mut self, p: *mut u8, class: usize) {
        // SAFETY: the block is at least 16 bytes, 16-aligned, and no longer anyone's.
        unsafe { p.cast::<*mut u8>().write(self.free[class]) };
        self.free[class] = p;
    }
}

unsafe impl GlobalAlloc for CliAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match Kind::of(layout) {
            Kind::Small(class) => self.with(|s| s.carve(class)),
            // SAFETY: the caller's layout, passed on.
            Kind::Medium => unsafe { System.alloc(layout) },
            Kind::Large => map(mapped_len(layout.size())),
        }
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        match Kind::of(layout) {
            Kind::Small(class) => self.with(|s| s.release(p, class)),
            // SAFETY: a medium block is the system allocator's, of this layout.
            Kind::Medium => unsafe { System.dealloc(p, layout) },
            // SAFETY: a large block is a mapping of exactly this length.
            Kind::Large => unsafe {
                libc::munmap(p.cast(), mapped_len(layout.size()));
            },
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return ptr::null_mut();
        };
        match (Kind::of(layout), Kind::of(new)) {
            (Kind::Small(a), Kind::Small(b)) if a == b => p,
            // SAFETY: a medium block is the system allocator's, of this layout.
            (Kind::Medium, Kind::Medium) => unsafe { System.realloc(p, layout, new_size) },
            (Kind::Large, Kind::Large) => {
                let (old_len, new_len) = (mapped_len(layout.size()), mapped_len(new_size));
                if old_len == new_len {
                    return p;
                }
                if new_len < HUGE_PAGE || new_len < old_len {
                    // SAFETY: `p` is a mapping of `old_len` bytes; the kernel moves it if need be.
                    let q =
                        unsafe { libc::mremap(p.cast(), old_len, new_len, libc::MREMAP_MAYMOVE) };
                    return if q == libc::MAP_FAILED {
                        ptr::null_mut()
                    } else {
                        q.cast()
                    };
                }
                // Grown past a huge page: its pages move (not copied) to a fresh mapping's aligned place.
                let q = map(new_len);
                if q.is_null() {
                    return q;
                }
                // SAFETY: `p` is a mapping of `old_len` bytes and `q` one of `new_len` of ours, which it replaces.
                let moved = unsafe {
                    libc::mremap(
                        p.cast(),
                        old_len,
                        new_len,
                        libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                        q.cast::<libc::c_void>(),
                    )
                };
                if moved == libc::MAP_FAILED {
                    // SAFETY: `q` is ours and unused.
                    unsafe { libc::munmap(q.cast(), new_len) };
                    return ptr::null_mut();
                }
                moved.cast()
            }
            // SAFETY: as `GlobalAlloc::realloc`'s default: a new block, the common bytes, the old freed.
            _ => unsafe {
                let q = self.alloc(new);
                if !q.is_null() {
                    ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                    self.dealloc(p, layout);
                }
                q
            },
        }
    }
}

/// Where a block of a layout comes from.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A chunk's, by size class.
    Small(usize),
    /// The system allocator's: an alignment above 16 bytes (no value of a conversion asks for one).
    Medium,
    /// A mapping of its own (the input, the output, a large document's top-level arrays).
    Large,
}

impl Kind {
    #[inline(always)]
    fn of(layout: Layout) -> Kind {
        let size = layout.size();
        if layout.align() > CLASS || (size >= LARGE && layout.align() > 4096) {
            Kind::Medium
        } else if size <= STEPS {
            Kind::Small(size.max(1).div_ceil(CLASS) - 1)
        } else if size < LARGE {
            // 1025..=2048 is the first class above the steps.
            let log = usize::BITS - (size - 1).leading_zeros();
            Kind::Small(STEPS / CLASS + (log as usize - 11))
        } else {
            Kind::Large
        }
    }
}

/// The size of a class's blocks.
#[inline(always)]
fn class_size(class: usize) -> usize {
    let steps = STEPS / CLASS;
    if class < steps {
        (class + 1) * CLASS
    } else {
        2048 << (class - steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_small_size_gets_the_smallest_class_that_holds_it() {
        let mut last = 0;
        for size in 1..LARGE {
            let Kind::Small(class) = Kind::of(Layout::from_size_align(size, 8).unwrap()) else {
                panic!("{size} bytes are not small");
            };
            assert!(class < CLASSES, "{size} bytes: class {class}");
            assert!(class_size(class) >= size, "{size} bytes: class {class}");
            assert!(class == 0 || class_size(class - 1) < size, "{size} bytes");
            assert!(class >= last);
            last = class;
        }
        let large = Layout::from_size_align(LARGE, 8).unwrap();
        assert!(matches!(Kind::of(large), Kind::Large));
        let aligned = Layout::from_size_align(64, 64).unwrap();
        assert!(matches!(Kind::of(aligned), Kind::Medium));
    }

    #[test]
    fn a_freed_block_is_the_next_of_its_class_and_contents_survive_a_move() {
        let alloc = CliAlloc;
        let small = Layout::from_size_align(40, 8).unwrap();
        unsafe {
            let a = alloc.alloc(small);
            let b = alloc.alloc(small);
            assert_ne!(a, b);
            assert_eq!(a as usize % CLASS, 0);
            alloc.dealloc(a, small);
            assert_eq!(alloc.alloc(small), a);
            // Growing through the classes, then into a mapping of its own and past a huge page.
            a.write_bytes(7, 40);
            let mut p = a;
            let mut layout = small;
            for size in [100, 5000, 300 << 10, 3 << 20, 9 << 20, 1 << 20, 64] {
                p = alloc.realloc(p, layout, size);
                assert!(!p.is_null());
                assert!((0..40).all(|i| *p.add(i) == 7), "lost at {size} bytes");
                p.add(size - 1).write(1);
                layout = Layout::from_size_align(size, 8).unwrap();
            }
            alloc.dealloc(p, layout);
            alloc.dealloc(b, small);
        }
    }
}
