//! Memory bounded by design: Markdown → ADF written as it is read (`convert_to`, what the CLI runs) holds
//! a window of the parse and a few hundred blocks, not the document; the other conversions a run of root
//! blocks at a time (storage → Markdown, Markdown → storage, storage ↔ ADF) hold their output and the
//! blocks still open. Measured by this binary's
//! allocator, which counts the bytes each thread holds and the most it held (a binary of its own, so that
//! no other test shares the allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mcp_text::{convert_to, Format, Options};

struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: a thread being torn down has no counters left; what it frees then is not counted.
    let _ = HELD.try_with(|held| {
        let now = held.get() + delta;
        held.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call goes to the system allocator unchanged; the counters only add and compare.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: as above.
        unsafe { System.dealloc(p, layout) }
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.realloc(p, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The most this thread held above what it held when `f` started.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    (PEAK.with(Cell::get) - base).max(0) as usize
}

#[test]
fn markdown_to_adf_holds_a_window_not_the_document() {
    let block = "## Heading *em* and **strong**\n\nSome text with `code`, [a link](https://x.org) and 2 * 3 [ref].\n\n- item one\n- [ ] a task\n  - nested\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n> [!NOTE]\n> A panel.\n\n";
    let peaks: Vec<(usize, usize)> = [8usize << 20, 40 << 20]
        .into_iter()
        .map(|size| {
            // A definition at the end, used by every block: the reader's two walks.
            let md = block.repeat(size / block.len()) + "[ref]: https://x.org/ref\n";
            let mut written = 0usize;
            let peak = peak_of(|| {
                let out = Counted(&mut written);
                let (_, warnings) = convert_to(
                    md.as_bytes(),
                    Format::Markdown,
                    Format::Adf,
                    &Options::default(),
                    out,
                )
                .unwrap();
                assert!(warnings.is_empty(), "{warnings:?}");
            });
            assert!(
                written > md.len(),
                "{written} bytes of ADF from {} of Markdown",
                md.len()
            );
            (md.len(), peak)
        })
        .collect();
    let [(small, small_peak), (large, large_peak)] = peaks[..] else {
        unreachable!()
    };
    eprintln!(
        "Markdown → ADF: {} MB held at most {:.1} MB, {} MB at most {:.1} MB",
        small >> 20,
        small_peak as f64 / (1 << 20) as f64,
        large >> 20,
        large_peak as f64 / (1 << 20) as f64
    );
    // Less than the text itself (the whole document read at once held ~25 bytes per byte of it).
    assert!(
        large_peak < large,
        "{large_peak} bytes held for {large} of Markdown"
    );
    // Five times the text, not more memory (a window of it, and blocks kept back, the same).
    assert!(
        large_peak < small_peak + (small_peak / 4),
        "{small_peak} bytes for {small}, {large_peak} for {large}"
    );
}

const STORAGE_BLOCK: &str = r#"<h2>Heading</h2><p>Some <strong>bold</strong> text with <code>code</code>, <a href="https://x.org">a link</a> and 2 * 3.</p><ul><li><p>item one</p><ul><li><p>nested</p></li></ul></li></ul><table><tbody><tr><th><p>a</p></th><th><p>b</p></th></tr><tr><td><p>1</p></td><td><p>2</p></td></tr></tbody></table><ac:structured-macro ac:name="info" ac:schema-version="1" ac:macro-id="m1"><ac:rich-text-body><p>A panel.</p></ac:rich-text-body></ac:structured-macro>"#;

#[test]
fn conversions_a_run_at_a_time_hold_their_output_not_the_document() {
    let xml = STORAGE_BLOCK.repeat((8 << 20) / STORAGE_BLOCK.len());
    let convert = |input: &[u8], from, to| {
        mcp_text::convert(input, from, to, &Options::default())
            .unwrap()
            .text
    };
    let markdown = convert(xml.as_bytes(), Format::Storage, Format::Markdown);
    let adf = convert(xml.as_bytes(), Format::Storage, Format::Adf);
    let cases = [
        (
            "storage → Markdown",
            Format::Storage,
            Format::Markdown,
            xml.as_bytes(),
        ),
        (
            "storage → ADF",
            Format::Storage,
            Format::Adf,
            xml.as_bytes(),
        ),
        (
            "Markdown → storage",
            Format::Markdown,
            Format::Storage,
            markdown.as_bytes(),
        ),
        (
            "ADF → storage",
            Format::Adf,
            Format::Storage,
            adf.as_bytes(),
        ),
        (
            "ADF → Markdown",
            Format::Adf,
            Format::Markdown,
            adf.as_bytes(),
        ),
    ];
    for (name, from, to, input) in cases {
        let (peak, written) = held_converting(name, input, from, to);
        // Output that is written at the end is held until then: allow for it, as a String's capacity.
        let held = if to == Format::Adf {
            0
        } else {
            written.next_power_of_two()
        };
        // The whole document read at once held ~11 bytes per byte of storage format, ~4 of ADF.
        assert!(
            peak < held + (4 << 20),
            "{name}: {peak} bytes held for {} of input, {written} of output",
            input.len()
        );
    }
}

#[test]
fn html_holds_what_it_has_not_read_yet_not_the_page() {
    // Storage format is XHTML: read as a web page, the same 8 MB of headings, lists, tables and text.
    let html = STORAGE_BLOCK.repeat((8 << 20) / STORAGE_BLOCK.len());
    let tree = peak_of(|| drop(mcp_text::html::tree::parse(&html)));
    eprintln!("HTML: the page's tree alone {:.1} MB", mb(tree));
    // Parsed a piece at a time and let go of once read (the whole tree held 61.6 MB here), at the root,
    // inside the wrappers most pages put their content in, inside a mark that spans it all, and as the
    // part of the page read (a `main`, `article`s) after chrome that is not.
    let chrome =
        "<header><nav><a href=/>Home</a></nav></header><div class=sidebar><p>Links</p></div>";
    for (name, page) in [
        ("HTML → ADF", html.clone()),
        (
            "HTML in wrappers → ADF",
            format!("<body><div id=page><section><div class=content>{html}</div></section></div>"),
        ),
        ("HTML in one <b> → ADF", format!("<b>{html}</b>")),
        (
            "HTML in a main → ADF",
            format!("{chrome}<main>{html}</main><footer>f</footer>"),
        ),
        (
            "HTML in articles → ADF",
            format!("{chrome}<article>{html}</article><article>{html}</article>"),
        ),
    ] {
        let (peak, _) = held_converting(name, page.as_bytes(), Format::Html, Format::Adf);
        assert!(
            peak < 4 << 20,
            "{name}: {peak} bytes held for {} of HTML, whose tree is {tree}",
            page.len()
        );
    }
    // A page whose text names a `main` but has none (in a comment here) is read whole in the end, so it
    // keeps its tree until then: that tree and a few MB more (the whole document read at once held as much
    // again as the tree, and its output).
    let html = format!("<!-- <main> -->{html}");
    let (peak, _) = held_converting(
        "HTML naming a main → ADF",
        html.as_bytes(),
        Format::Html,
        Format::Adf,
    );
    assert!(
        peak < tree + (4 << 20),
        "{peak} bytes held for {} of HTML, whose tree is {tree}",
        html.len()
    );
}

/// The most a conversion held, and the bytes it wrote (counted, not kept), said on stderr.
fn held_converting(name: &str, input: &[u8], from: Format, to: Format) -> (usize, usize) {
    let mut written = 0usize;
    let peak = peak_of(|| {
        convert_to(input, from, to, &Options::default(), Counted(&mut written)).unwrap();
    });
    eprintln!(
        "{name}: {:.1} MB held at most {:.1} MB, its output {:.1} MB",
        mb(input.len()),
        mb(peak),
        mb(written)
    );
    (peak, written)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// A writer that only counts (what the CLI writes goes to stdout, not to memory).
struct Counted<'a>(&'a mut usize);

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        *self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
