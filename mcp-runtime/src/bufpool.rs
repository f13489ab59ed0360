//! Large byte buffers kept warm for the next large message.
//!
//! A buffer of a megabyte that the allocator has just handed back to the kernel costs 256 page faults
//! (each zeroing a page) the next time one is needed: measured on a 1 MiB echo, that was half of the
//! server's CPU time. Frames and scratch buffers of 64 KiB or more are returned here once written and
//! taken again by the next large message. The pool is bounded in bytes ([`MAX_TOTAL`]) and in the size of
//! one buffer ([`MAX_EACH`]), so it never holds more than a few messages' worth of memory; small buffers
//! never touch it (the lock is taken only for large ones).

use std::sync::Mutex;

/// Buffers below this capacity are left to the allocator.
pub(crate) const MIN: usize = 64 * 1024;
/// Buffers above this capacity are dropped rather than kept.
const MAX_EACH: usize = 8 * 1024 * 1024;
/// The most bytes of capacity the pool holds at once.
const MAX_TOTAL: usize = 16 * 1024 * 1024;

struct Pool {
    bufs: Vec<Vec<u8>>,
    bytes: usize,
}

impl Pool {
    const fn new() -> Self {
        Pool {
            bufs: Vec::new(),
            bytes: 0,
        }
    }

    fn take(&mut self, len: usize) -> Option<Vec<u8>> {
        let i = self.bufs.iter().position(|b| b.capacity() >= len)?;
        let b = self.bufs.swap_remove(i);
        self.bytes -= b.capacity();
        Some(b)
    }

    fn give(&mut self, mut buf: Vec<u8>) {
        let cap = buf.capacity();
        if (MIN..=MAX_EACH).contains(&cap) && self.bytes + cap <= MAX_TOTAL {
            buf.clear();
            self.bytes += cap;
            self.bufs.push(buf);
        }
    }
}

static POOL: Mutex<Pool> = Mutex::new(Pool::new());

/// An empty buffer with room for at least `len` bytes: a warm one from the pool when `len` is large and
/// one fits, a new one otherwise.
pub(crate) fn take(len: usize) -> Vec<u8> {
    if len >= MIN {
        if let Some(b) = POOL.lock().ok().and_then(|mut p| p.take(len)) {
            return b;
        }
    }
    Vec::with_capacity(len)
}

/// Gives a buffer back for reuse (its contents are discarded); small, huge or surplus ones are freed.
pub(crate) fn give(buf: Vec<u8>) {
    if buf.capacity() >= MIN {
        if let Ok(mut p) = POOL.lock() {
            p.give(buf);
        }
    }
}

/// `buf` with a capacity that fits its contents: a buffer taken for a size hint that turned out much
/// larger than what was written into it is copied into one of its size and given back, so that a frame
/// held in a queue never holds more memory than the bytes it is charged for, give or take half.
pub(crate) fn fit(buf: Vec<u8>) -> Vec<u8> {
    if buf.capacity() < MIN || buf.len() >= buf.capacity() / 2 {
        return buf;
    }
    let exact = buf.clone();
    give(buf);
    exact
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_come_back_small_ones_do_not_and_the_pool_is_bounded() {
        let mut pool = Pool::new();
        let mut big = Vec::<u8>::with_capacity(MIN * 2);
        big.extend_from_slice(b"old");
        let ptr = big.as_ptr();
        pool.give(big);
        let again = pool.take(MIN + 1).expect("a large buffer is kept");
        assert_eq!(again.as_ptr(), ptr, "the same memory is reused");
        assert!(again.is_empty(), "contents are discarded");
        assert!(pool.take(MIN).is_none());
        pool.give(Vec::with_capacity(16));
        assert_eq!(pool.bytes, 0, "small buffers are not kept");
        pool.give(Vec::with_capacity(MAX_EACH + 1));
        assert_eq!(pool.bytes, 0, "huge buffers are not kept");
        for _ in 0..(MAX_TOTAL / MAX_EACH + 3) {
            pool.give(Vec::with_capacity(MAX_EACH));
        }
        assert_eq!(pool.bytes, MAX_TOTAL, "the pool stops at its byte bound");
        assert!(
            pool.take(MAX_EACH + 1).is_none(),
            "no buffer is too small for what is asked"
        );
    }

    #[test]
    fn a_buffer_much_larger_than_its_contents_is_fitted() {
        let mut big = Vec::<u8>::with_capacity(MIN * 4);
        big.extend_from_slice(b"small");
        let fitted = fit(big);
        assert_eq!(fitted, b"small");
        assert!(fitted.capacity() < MIN);
        let mut full = Vec::<u8>::with_capacity(MIN * 2);
        full.resize(MIN + 1, b'x');
        let ptr = full.as_ptr();
        let kept = fit(full);
        assert_eq!(kept.as_ptr(), ptr, "a buffer mostly used is kept as it is");
    }
}
