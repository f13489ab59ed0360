//! Markdown nobody here wrote: the READMEs, changelogs and guides of every crate `Cargo.lock` pins, as cargo
//! unpacked them (`$CARGO_HOME/registry/src/*/<name>-<version>/*.md`). Pinned by the lock file, the corpus
//! is the same on every run of one commit. Each file must give ADF the official schema accepts, and come
//! back the same through Markdown: Markdown → ADF → Markdown → ADF gives the same ADF and the same Markdown,
//! Markdown → storage → Markdown → storage the same storage. They found a colour ADF rejects (zerocopy's
//! README: `markdown_failures::a_colour_by_name_gives_valid_adf`).

use std::path::PathBuf;

use mcp_text::markdown::{read, write, WriteOptions};
use mcp_text::{adf, storage};

use super::schema::{schema, short};

/// The crates' Markdown files, in the lock file's order; files over this size are left out (changelogs
/// of thousands of releases add time, not shapes).
const MAX_BYTES: u64 = 256 << 10;

fn corpus() -> Vec<PathBuf> {
    let lock =
        std::fs::read_to_string(test_support::workspace().join("Cargo.lock")).expect("Cargo.lock");
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let Ok(indexes) = std::fs::read_dir(home.join("registry/src")) else {
        return Vec::new();
    };
    let mut indexes: Vec<PathBuf> = indexes.flatten().map(|e| e.path()).collect();
    indexes.sort();
    let mut files = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            let dir = format!("{n}-{}", v.trim_matches('"'));
            let Some(krate) = indexes.iter().map(|i| i.join(&dir)).find(|d| d.is_dir()) else {
                continue;
            };
            let mut md: Vec<PathBuf> = std::fs::read_dir(&krate)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"))
                        && p.metadata()
                            .is_ok_and(|m| m.is_file() && m.len() <= MAX_BYTES)
                })
                .collect();
            md.sort();
            files.extend(md);
        }
    }
    files
}

#[test]
fn every_crates_markdown_gives_valid_adf_and_comes_back_the_same() {
    let Some(schema) = schema() else { return };
    let files = corpus();
    // A build of this workspace unpacks hundreds of crates: too few files means the corpus was not found.
    if files.len() < 100 {
        return test_support::missing(
            &format!(
                "the locked crates' sources ($CARGO_HOME/registry/src; {} Markdown files found)",
                files.len()
            ),
            "cargo fetch",
        )
        .unwrap_or(());
    }
    let opts = WriteOptions::default();
    let mut failures = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.display();
        // What `convert` does for Markdown → ADF: read, then repair to ADF's schema.
        let first = adf::repair(read(&text)).doc;
        let adf_json = adf::to_value(&first);
        if let Err(e) = schema.check(&adf_json) {
            failures.push(format!(
                "{name}: ADF the schema rejects: {}",
                short(&e, 300)
            ));
            continue;
        }
        let md = write(&first, &opts);
        let back = adf::repair(read(&md));
        if back.doc != first || !back.warnings.is_empty() {
            failures.push(format!(
                "{name}: Markdown -> ADF -> Markdown -> ADF changed the ADF (warnings {:?})",
                back.warnings
            ));
            continue;
        }
        if write(&back.doc, &opts) != md {
            failures.push(format!("{name}: the Markdown written twice differs"));
            continue;
        }
        let xml = storage::write(&first);
        let via = match storage::read(&xml) {
            Ok(r) => write(&r.doc, &opts),
            Err(e) => {
                failures.push(format!("{name}: its storage does not read back: {e}"));
                continue;
            }
        };
        if storage::write(&adf::repair(read(&via)).doc) != xml {
            failures.push(format!(
                "{name}: Markdown -> storage -> Markdown -> storage changed the storage"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
