//! The CLI's ADF → Markdown on two cores. The main thread reads the root and its blocks from the first,
//! writing each block's Markdown as soon as it is read. A second thread finds where the blocks start
//! (`adf::block_starts`: a scan of the JSON's structure, many times faster than reading it), takes the
//! second half of what the main thread has left, and reads and writes that. Whichever thread runs out
//! first takes the second half of what the other still has, while that is worth it. Each thread writes
//! what it read while it is in its own cache, and frees it there; `mcp_text::split` joins the stretches
//! into the Markdown of the whole document, byte for byte.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};

use mcp_text::adf::{self, AtBlock, BlocksEnd};
use mcp_text::markdown::{BlockWriter, WriteOptions};
use mcp_text::split::{self, Stretch};

/// From this size on the CLI reads and writes on two threads.
pub const FROM_BYTES: usize = 256 * 1024;

/// A thread takes half of what the other has left while that is at least this many bytes. Taking costs a
/// scan of the owner's stretch to its middle, many times faster than reading it, so halves this small
/// still pay: at 128 KB the thread that ran out first waited 1.0 ms on average for the other on a 4 MB
/// document, at 16 KB 0.15 ms.
const TAKE_FROM: u32 = 16 << 10;
const _: () = assert!(FROM_BYTES as u32 >= 2 * TAKE_FROM);

/// The Markdown of the ADF in `input`, in parts to be written in order; `None` for a document this way
/// does not read (invalid UTF-8 or JSON, a root with `content` twice, what only the serde reader reads),
/// which the caller converts whole, for its answer or its error.
pub fn adf_to_markdown(input: &[u8], options: &WriteOptions) -> Option<Vec<String>> {
    // Offsets travel as halves of one 64-bit word.
    let len = u32::try_from(input.len()).ok()?;
    let shared = Shared {
        input,
        text: Checked::default(),
        main: Range::new(0, len),
        helper: Range::new(len, len),
        stretches: Mutex::new(Vec::new()),
        content_end: AtomicUsize::new(0),
        cancelled: AtomicBool::new(false),
        started: AtomicBool::new(false),
    };
    std::thread::scope(|s| {
        // Started first: a core that was idle can take a while to wake. The main thread's stack (8 MiB,
        // mapped as it is used): the deepest document the readers take is read and written there as it
        // would be here.
        let helper = std::thread::Builder::new().stack_size(8 << 20);
        let mut helper = helper
            .spawn_scoped(s, || {
                shared.started.store(true, SeqCst);
                take(&shared, &shared.main, &shared.helper, options)
            })
            .ok();
        let text = std::str::from_utf8(input).ok();
        // The check took about half a millisecond: a second thread that has not run by now may be queued
        // behind this one.
        if !shared.started.load(SeqCst) {
            make_way();
        }
        shared.text.set(text);
        let Some(text) = text else {
            shared.cancel();
            return None;
        };
        let mut front = BlockWriter::new(options);
        front.reserve(text.len() / 2);
        let mut front_end = None;
        let root = adf::read_streaming_with(
            text,
            &mut |at| match shared.main.reach(at as u32) {
                Reach::Read => AtBlock::Read,
                // The other thread took the blocks from here: take some of what it has left, then
                // wait for it, and go on after the last of the blocks.
                Reach::Stop => {
                    front_end = Some(at);
                    take(&shared, &shared.helper, &shared.main, options);
                    match helper.take().map(|h| h.join()) {
                        Some(Err(panic)) => std::panic::resume_unwind(panic),
                        _ if shared.cancelled() => AtBlock::Abandon,
                        _ => AtBlock::SkipTo(shared.content_end.load(SeqCst)),
                    }
                }
                // A taken block this thread never met (the scan and the reader disagree on a document
                // that is no JSON): nothing of the other thread's counts, this one reads on.
                Reach::Missed => {
                    shared.cancel();
                    AtBlock::Read
                }
            },
            &mut |block| front.block(&block),
        );
        // Whatever the other thread still does is of no use now, and what it did counts only if this
        // one stopped where it took over.
        let cancelled = shared.cancelled.swap(true, SeqCst);
        let root = root?;
        if cancelled && front_end.is_some() {
            return None;
        }
        let stretches = match front_end {
            Some(_) => std::mem::take(&mut *shared.stretches.lock().ok()?),
            None => Vec::new(),
        };
        split::join(text, &root, front, front_end, stretches, options)
    })
}

/// What the two threads share.
struct Shared<'a> {
    input: &'a [u8],
    /// The input as text, once the main thread has checked it is UTF-8.
    text: Checked<'a>,
    /// The stretch each thread is reading.
    main: Range,
    helper: Range,
    /// The stretches read apart from the main thread's first blocks, in any order.
    stretches: Mutex<Vec<Stretch>>,
    /// The offset of the `]` that closes the root's `content`, once a thread reached it.
    content_end: AtomicUsize,
    cancelled: AtomicBool,
    /// Set by the second thread as it starts (see `make_way`).
    started: AtomicBool,
}

impl Shared<'_> {
    fn cancel(&self) {
        self.cancelled.store(true, SeqCst);
    }

    fn cancelled(&self) -> bool {
        self.cancelled.load(SeqCst)
    }
}

/// The input as text once the main thread has checked it (`None`: it is not UTF-8), for the other thread
/// to wait for.
#[derive(Default)]
struct Checked<'a> {
    text: Mutex<Option<Option<&'a str>>>,
    done: Condvar,
}

impl<'a> Checked<'a> {
    fn set(&self, text: Option<&'a str>) {
        if let Ok(mut checked) = self.text.lock() {
            *checked = Some(text);
        }
        self.done.notify_all();
    }

    fn wait(&self) -> Option<&'a str> {
        let checked = self.text.lock().ok()?;
        let checked = self.done.wait_while(checked, |c| c.is_none()).ok()?;
        checked.flatten()
    }
}

/// Takes the second half of `from`'s stretch into `into` (the calling thread's), reads and writes it,
/// and again while `from` has enough left: the second thread's work (taking from the main thread's
/// stretch, which starts as the whole document), and the main thread's once the second took its blocks.
/// A failure cancels the whole (the main thread then reads the document whole).
fn take(shared: &Shared, from: &Range, into: &Range, options: &WriteOptions) {
    while !shared.cancelled() {
        let Some((at, limit)) = from.split_off(shared.input) else {
            return;
        };
        // The text is checked by now, or soon: the scan above started as the check did.
        let Some(text) = shared.text.wait() else {
            return;
        };
        into.start(at, limit);
        let stretch = Stretch::write(
            text,
            at as usize,
            &mut |block| match into.reach(block as u32) {
                Reach::Read => shared.cancelled(),
                Reach::Stop => true,
                Reach::Missed => {
                    shared.cancel();
                    true
                }
            },
            (limit - at) as usize / 2,
            options,
        );
        let Some(stretch) = stretch else {
            return shared.cancel();
        };
        match stretch.end() {
            BlocksEnd::Closed(end) => {
                into.finish();
                shared.content_end.store(end, SeqCst);
            }
            // Where it was to stop, or where the other thread took over.
            BlocksEnd::At(end) if end == into.limit() as usize => {}
            BlocksEnd::At(_) => return shared.cancel(),
        }
        match shared.stretches.lock() {
            Ok(mut stretches) => stretches.push(stretch),
            Err(_) => return shared.cancel(),
        }
    }
}

/// A thread's stretch, in one word so that each thread decides on what the other had done at one moment:
/// the offset of the block it reads next (the low half) and the offset where it stops (the high half:
/// the start of a block the other thread took, or the input's length for the content's end). Its owner
/// updates it at every block: each on a cache line (and the one the processor fetches with it) of its
/// own, so that the two threads do not take a line from each other at every block.
#[repr(align(128))]
struct Range(AtomicU64);

enum Reach {
    Read,
    Stop,
    Missed,
}

impl Range {
    fn new(next: u32, limit: u32) -> Self {
        Range(AtomicU64::new(word(next, limit)))
    }

    /// The owner starts on a stretch.
    fn start(&self, next: u32, limit: u32) {
        self.0.store(word(next, limit), SeqCst);
    }

    /// The owner reached the content's end: nothing is left to take.
    fn finish(&self) {
        let limit = self.limit();
        self.0.store(word(limit, limit), SeqCst);
    }

    fn limit(&self) -> u32 {
        (self.0.load(SeqCst) >> 32) as u32
    }

    /// The owner is at the block starting at `at`: whether to read it, to stop there (the other thread
    /// took it), or whether it passed a block the other thread took.
    fn reach(&self, at: u32) -> Reach {
        let next = |w: u64| Some(word(at, (w >> 32) as u32));
        // The closure never declines: the update always happens.
        let old = self
            .0
            .fetch_update(SeqCst, SeqCst, next)
            .unwrap_or_default();
        match (old >> 32) as u32 {
            limit if limit > at => Reach::Read,
            limit if limit == at => Reach::Stop,
            _ => Reach::Missed,
        }
    }

    /// Takes the second half of the owner's stretch, if at least `TAKE_FROM` bytes are in it (the whole
    /// document's first half always is: it is `FROM_BYTES` or more): finds the start of a block past its
    /// middle and moves the owner's stop there, if the owner has not reached that block. The blocks taken:
    /// from that start to where the owner was to stop.
    fn split_off(&self, input: &[u8]) -> Option<(u32, u32)> {
        let w = self.0.load(SeqCst);
        let (next, limit) = (w as u32, (w >> 32) as u32);
        if next >= limit || limit - next < 2 * TAKE_FROM {
            return None;
        }
        let middle = next + (limit - next) / 2;
        // The main thread's stretch starts at the root, not at a block.
        let starts = match next {
            0 => adf::block_starts(input),
            _ => adf::block_starts_after(input, next as usize),
        };
        for at in starts.map(|at| at as u32) {
            if at >= limit {
                return None;
            }
            if at < middle {
                continue;
            }
            let taken = self.0.fetch_update(SeqCst, SeqCst, |w| {
                let (next, old) = (w as u32, (w >> 32) as u32);
                (next < at && old == limit).then_some(word(next, at))
            });
            return taken.ok().map(|_| (at, limit));
        }
        None
    }
}

fn word(next: u32, limit: u32) -> u64 {
    u64::from(limit) << 32 | u64::from(next)
}

/// For a second thread that has not run while this one checked the input. Linux often queues a new thread
/// on its creator's core and moves it to an idle one only at a later balancing tick, 2-4 ms on, a sixth of
/// a 4 MB conversion (12 of 40 runs here). Where another thread of the process is queued on this core,
/// this one moves away and the other runs here at once. A thread queued on another core (an idle core can
/// take as long to wake) is left to it: moving there would put both threads on one core.
#[cfg(target_os = "linux")]
fn make_way() {
    // SAFETY: a plain system call.
    let here = unsafe { libc::sched_getcpu() };
    if here >= 0 && queued_on(here) {
        move_away(here as usize);
    }
}

#[cfg(not(target_os = "linux"))]
fn make_way() {}

/// Whether a thread of this process other than the calling one is on core `here` (running or queued
/// there: `/proc`'s `processor`).
#[cfg(target_os = "linux")]
fn queued_on(here: i32) -> bool {
    // SAFETY: a plain system call.
    let me = unsafe { libc::gettid() }.to_string();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    tasks.flatten().any(|task| {
        task.file_name() != me.as_str()
            && std::fs::read_to_string(task.path().join("stat"))
                .is_ok_and(|stat| processor(&stat) == Some(here))
    })
}

/// The `processor` field (the 39th) of a `/proc/<pid>/task/<tid>/stat` line: counted from the `)` that ends
/// the thread's name, which may hold spaces and parentheses itself.
#[cfg(target_os = "linux")]
fn processor(stat: &str) -> Option<i32> {
    let (_, fields) = stat.rsplit_once(')')?;
    // The first after the name is the 3rd.
    fields.split_whitespace().nth(39 - 3)?.parse().ok()
}

/// Moves the calling thread off core `here`, where it runs, to another core it may run on, then allows it
/// every core it had: the kernel moves a thread off a core its set no longer has at once. Where the set
/// cannot be changed or has no other core, nothing happens.
#[cfg(target_os = "linux")]
fn move_away(here: usize) {
    // SAFETY: system calls on this thread's own CPU set, with sets of their own size.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if here >= 8 * size || libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return;
        }
        let mut elsewhere = allowed;
        libc::CPU_CLR(here, &mut elsewhere);
        if libc::CPU_COUNT(&elsewhere) == 0 || libc::sched_setaffinity(0, size, &elsewhere) != 0 {
            return;
        }
        libc::sched_setaffinity(0, size, &allowed);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn allowed() -> (libc::cpu_set_t, i32) {
        // SAFETY: the calling thread's own set, into a set of its size.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set),
                0
            );
            (set, libc::sched_getcpu())
        }
    }

    #[test]
    fn the_processor_is_counted_from_the_end_of_the_name() {
        let stat = "27840 (a b) c) R 27838 27838 15739 0 -1 4194304 97 0 0 0 0 0 0 0 20 0 1 0 8022614 \
                    3133440 360 18446744073709551615 94586478903296 94586478923177 140726583710464 0 0 0 \
                    0 0 0 0 0 0 17 1 0 0 0 0 0 94586478939184 94586478940800 94586971156480\n";
        assert_eq!(processor(stat), Some(1));
        assert_eq!(processor("1 (x) R 0"), None);
        assert_eq!(processor("no name"), None);
    }

    #[test]
    fn a_thread_is_seen_on_the_core_it_runs_on() {
        // A thread spinning until told to stop reports its core over and over. A look right after a report
        // agrees with it unless the scheduler moved the thread in between, which five looks will not all
        // catch.
        use std::sync::atomic::AtomicI32;
        let (stop, cpu) = (AtomicBool::new(false), AtomicI32::new(-1));
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(SeqCst) {
                    // SAFETY: a plain system call.
                    cpu.store(unsafe { libc::sched_getcpu() }, SeqCst);
                }
            });
            let seen = (0..5).any(|_| {
                while cpu.load(SeqCst) < 0 {}
                queued_on(cpu.load(SeqCst))
            });
            stop.store(true, SeqCst);
            assert!(seen, "the spinning thread was never seen on its core");
        });
    }

    #[test]
    fn moving_away_leaves_the_thread_every_core_it_had_and_on_another_where_there_is_one() {
        std::thread::spawn(|| {
            // A busy machine may move the thread back at once: one move of five seen is enough.
            let mut moved = false;
            let mut others = 0;
            for _ in 0..5 {
                let (before, here) = allowed();
                move_away(here as usize);
                let (after, now) = allowed();
                // SAFETY: reading two sets of their own size.
                unsafe {
                    assert!(libc::CPU_EQUAL(&before, &after), "the set changed");
                    others = libc::CPU_COUNT(&before)
                        - i32::from(libc::CPU_ISSET(here as usize, &before));
                }
                moved |= now != here;
            }
            assert!(moved || others == 0, "never left its core");
        })
        .join()
        .unwrap();
    }
}
