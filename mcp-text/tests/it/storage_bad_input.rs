//! Bad storage input: an error naming the place, or a documented lenient reading; never a panic, never a
//! stack overflow; large input in time and memory linear in its size.

use mcp_text::storage;

use crate::storage_read::PAGE;

fn error(xml: &str) -> mcp_text::Error {
    match storage::read(xml) {
        Ok(r) => panic!("read {xml:?} as {:?}", mcp_text::adf::write(&r.doc)),
        Err(e) => e,
    }
}

#[test]
fn unclosed_tag_names_it() {
    let e = error("<p>one</p>\n<ul><li>two");
    assert_eq!(e.line, 2, "{e}");
    assert!(
        e.to_string().contains("not closed") || e.message.contains("invalid XML"),
        "{e}"
    );
}

#[test]
fn mismatched_tag_names_the_place() {
    let e = error("<p>one</p>\n<p><strong>two</em></p>");
    assert_eq!(
        (e.line, e.message.contains("invalid XML")),
        (2, true),
        "{e}"
    );
}

#[test]
fn unknown_entity_names_the_place() {
    let e = error("<p>ok</p><p>caf&eacutex;</p>");
    assert_eq!((e.line, e.column), (1, 16), "{e}");
    assert!(e.message.contains("unknown entity"), "{e}");
    let e = error("<p title=\"&bogus;\">x</p>");
    assert!(e.message.contains("unknown entity"), "{e}");
}

#[test]
fn bare_ampersand_is_read_as_itself() {
    // Lenient, as browsers are: a `&` that starts no reference is the character.
    let doc = storage::read("<p>R&D <a href=\"?a=1&b=2\">x</a></p>")
        .unwrap()
        .doc;
    assert_eq!(
        storage::write(&doc),
        "<p>R&amp;D <a href=\"?a=1&amp;b=2\">x</a></p>"
    );
}

#[test]
fn nesting_100_000_deep_is_an_error_not_a_stack_overflow() {
    for (open, close) in [
        ("<div>", "</div>"),
        ("<strong>", "</strong>"),
        ("<ul><li>", "</li></ul>"),
        ("<blockquote>", "</blockquote>"),
    ] {
        let xml = format!("{}x{}", open.repeat(100_000), close.repeat(100_000));
        let e = error(&xml);
        assert!(e.message.contains("nested deeper than 512"), "{e}");
        assert_eq!(e.line, 1);
    }
}

#[test]
fn nesting_at_the_cap_reads_and_writes() {
    let depth = storage::MAX_DEPTH;
    for (open, close) in [
        ("<div>", "</div>"),
        (
            "<ac:structured-macro ac:name=\"expand\"><ac:rich-text-body>",
            "</ac:rich-text-body></ac:structured-macro>",
        ),
    ] {
        let n = depth / open.matches('<').count();
        let xml = format!("{}x{}", open.repeat(n), close.repeat(n));
        // A test thread's stack (2 MiB): the writer's recursion fits at the reader's cap.
        let doc = storage::read(&xml).unwrap().doc;
        assert_eq!(storage::write(&doc), xml);
    }
}

#[test]
fn every_truncation_of_a_page_is_an_error_or_a_document_never_a_panic() {
    let small = &PAGE[..PAGE.len().min(2_500)];
    let mut errors = 0;
    for end in 0..=small.len() {
        if !small.is_char_boundary(end) {
            continue;
        }
        match storage::read(&small[..end]) {
            Ok(r) => drop(storage::write(&r.doc)),
            Err(e) => {
                assert!(e.line >= 1, "{e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 1000, "most truncations cut an element: {errors}");
}

#[test]
fn garbage_never_panics() {
    let mut rng = crate::storage_props::Rng::new(7);
    let pieces = [
        "<",
        ">",
        "/",
        "&",
        ";",
        "p",
        "ac:",
        "ri:",
        "\"",
        "=",
        " ",
        "<![CDATA[",
        "]]>",
        "<!--",
        "-->",
        "x",
        "&#",
        "9",
        "<?",
        "?>",
    ];
    for _ in 0..20_000 {
        let s: String = (0..rng.below(30))
            .map(|_| pieces[rng.below(pieces.len())])
            .collect();
        if let Ok(r) = storage::read(&s) {
            let _ = storage::write(&r.doc);
        }
    }
}

/// A large real-shaped page: `PAGE` repeated, a paragraph of text between the copies.
pub fn large_page(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + PAGE.len());
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(PAGE);
        s.push_str(&format!("<p>Section {i}: the rollout of <strong>service {i}</strong> &amp; its <em>dependencies</em>.</p>"));
        i += 1;
    }
    s
}

#[test]
fn twenty_megabytes_read_and_write() {
    let xml = large_page(20 << 20);
    let doc = storage::read(&xml).unwrap().doc;
    let written = storage::write(&doc);
    assert_eq!(storage::read(&written).unwrap().doc, doc);
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .unwrap_or(0)
}

/// `cargo test --release -p mcp-text --test it storage_throughput -- --ignored --nocapture`
#[test]
#[ignore = "a measurement: run alone, in release"]
fn storage_throughput() {
    let xml = large_page(
        std::env::var("MB")
            .ok()
            .and_then(|m| m.parse().ok())
            .unwrap_or(20)
            << 20,
    );
    let mb = xml.len() as f64 / (1 << 20) as f64;
    let before = peak_rss_kib();
    let t = std::time::Instant::now();
    let doc = storage::read(&xml).unwrap().doc;
    let read = t.elapsed().as_secs_f64();
    let after_read = peak_rss_kib();
    let t = std::time::Instant::now();
    let written = storage::write(&doc);
    let write = t.elapsed().as_secs_f64();
    assert!(written.len() > xml.len() / 2);
    println!(
        "{mb:.1} MB: read {:.0} MB/s ({read:.3} s), write {:.0} MB/s ({write:.3} s); peak RSS {} MiB before reading, {} MiB after ({:.1}x the input)",
        mb / read,
        mb / write,
        before / 1024,
        after_read / 1024,
        (after_read.saturating_sub(before)) as f64 / 1024.0 / mb
    );
}

#[test]
fn a_byte_order_mark_is_read_as_nothing() {
    // A page starting with one panicked when a macro's title held a character of more than one byte:
    // quick-xml's positions step over the mark, the spans of captured elements did not (found by the
    // storage fuzz target).
    let body = "<ac:structured-macro ac:name=\"tip\"><ac:parameter ac:name=\"title\">é x</ac:parameter><ac:rich-text-body><p>a</p></ac:rich-text-body></ac:structured-macro>";
    let with = storage::read(&format!("\u{feff}{body}")).expect("reads");
    assert_eq!(with.doc, storage::read(body).unwrap().doc);
    // Two marks panicked the same way (found by the fuzz target in CI): quick-xml stepped over the second.
    let body = body.replace("é x", "é 😀");
    let twice = storage::read(&format!("\u{feff}\u{feff}{body}")).expect("reads");
    assert_eq!(twice.doc, storage::read(&body).unwrap().doc);
    // An error's place is where an editor shows it, which does not count the mark.
    let e = error("\u{feff}<p>a</x>");
    assert_eq!((e.line, e.column), (1, 5), "{e}");
}
