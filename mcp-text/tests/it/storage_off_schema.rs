//! Storage pages with elements where Confluence would not put them (a task body in a layout, a list item
//! in a task, a macro in a `<pre>`): random pages (`storage_props::document`) with whole elements copied
//! into other elements, at their start, at their end, or before or after them. The storage reader reads
//! any well-formed page; whatever it reads, Markdown must carry to the same page: storage → Markdown →
//! storage gives what storage → storage gives, with no warning on the way back.

use mcp_text::markdown::{self, WriteOptions};
use mcp_text::storage;
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::gen::{seeds, Rng};
use crate::storage_props::{diff, document};

/// Each element's span: (start, end, where its content starts; `None` for an empty element).
fn elements(xml: &str) -> Vec<(usize, usize, Option<usize>)> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = false;
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event() {
            Ok(Event::Start(_)) => open.push((before, reader.buffer_position() as usize)),
            Ok(Event::End(_)) => {
                if let Some((start, content)) = open.pop() {
                    out.push((start, reader.buffer_position() as usize, Some(content)));
                }
            }
            Ok(Event::Empty(_)) => out.push((before, reader.buffer_position() as usize, None)),
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    out
}

/// `xml` with a copy of one of its elements inside or beside another, still well-formed.
fn graft(xml: &str, rng: &mut Rng) -> String {
    let els = elements(xml);
    let containers: Vec<_> = els.iter().filter_map(|e| Some((e.0, e.1, e.2?))).collect();
    if els.is_empty() || containers.is_empty() {
        return xml.to_string();
    }
    let (start, end, _) = *rng.pick(&els);
    let (c_start, c_end, content) = *rng.pick(&containers);
    let at = match rng.below(4) {
        0 => content,
        1 => xml[..c_end].rfind("</").expect("an end tag"),
        2 => c_start,
        _ => c_end,
    };
    format!("{}{}{}", &xml[..at], &xml[start..end], &xml[at..])
}

#[test]
fn random_pages_with_misplaced_elements_survive_markdown() {
    let seeds = seeds(2000);
    let total = seeds.end - seeds.start;
    let mut changed = 0;
    for seed in seeds {
        let page = document(seed, false);
        let mut rng = Rng::new(seed ^ 0x51);
        let mut xml = page.clone();
        for _ in 0..1 + rng.below(3) {
            xml = graft(&xml, &mut rng);
        }
        changed += usize::from(xml != page);
        let read = storage::read(&xml).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{xml}"));
        let want = storage::write(&read.doc);
        let md = markdown::write(&read.doc, &WriteOptions::default());
        let back = markdown::read(&md);
        assert!(
            back.warnings.is_empty(),
            "seed {seed}: {:?}\nmarkdown:\n{md}",
            back.warnings
        );
        let got = storage::write(&back.doc);
        assert!(
            got == want,
            "seed {seed}: storage → Markdown → storage {}\npage: {xml}\nmarkdown:\n{md}",
            diff(&got, &want)
        );
    }
    assert!(
        changed * 10 >= total as usize * 9,
        "only {changed} of {total} pages changed"
    );
}
