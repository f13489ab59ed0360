//! The inputs `scripts/text-same.sh` converts with two builds of the CLI to show that a change of speed
//! changed no output: the CommonMark and GFM examples as Markdown files, and random schema documents
//! (`gen.rs`, the property tests' generator) as ADF files, into the directory `MCP_TEXT_CLI_INPUTS` names.
//! Ignored in a plain `cargo test`: the script runs it with `--ignored`.

use crate::commonmark_adf::{gfm_examples, spec_examples, GFM, SPEC};
use crate::gen::{cases, Gen};
use crate::schema::schema;

#[test]
#[ignore = "writes the inputs of scripts/text-same.sh, which runs it"]
fn write_the_cli_comparison_inputs() {
    let dir = std::env::var_os("MCP_TEXT_CLI_INPUTS").expect("MCP_TEXT_CLI_INPUTS: a directory");
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = test_support::workspace();
    let spec = std::fs::read_to_string(root.join(SPEC)).expect("scripts/install-text-corpora.sh");
    let gfm = std::fs::read_to_string(root.join(GFM)).expect("scripts/install-text-corpora.sh");
    let mut written = 0;
    for (corpus, examples) in [("cm", spec_examples(&spec)), ("gfm", gfm_examples(&gfm))] {
        for e in examples {
            let path = dir.join(format!("{corpus}-{}.md", e.number));
            std::fs::write(path, e.markdown).unwrap();
            written += 1;
        }
    }
    let schema = schema().expect("scripts/install-text-corpora.sh");
    let mut gen = Gen::new(schema, 0);
    for seed in 0..cases(2000) {
        gen.reseed(seed);
        let path = dir.join(format!("random-{seed}.json"));
        std::fs::write(path, serde_json::to_vec(&gen.doc()).unwrap()).unwrap();
        written += 1;
    }
    assert!(written > 3000, "{written} inputs");
}
