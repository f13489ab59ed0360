//! Every snapshot in `tests/snapshots` has its bindings checked in under `tests/outputs`; a change in the
//! generated code shows up as a diff here. Run with `MCP_CODEGEN_BLESS=1` to accept the new output.

mod support;

use mcp_codegen::{generate, Options, Snapshot};
use std::path::Path;

fn snapshots() -> Vec<(String, Snapshot)> {
    let dir = support::crate_dir().join("tests/snapshots");
    let mut out: Vec<(String, Snapshot)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                Snapshot::load(&p).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn generated_code_matches_the_golden_outputs() {
    let bless = std::env::var("MCP_CODEGEN_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let all = snapshots();
    assert!(all.len() >= 4, "the snapshots are missing");
    for (stem, snapshot) in all {
        let code = generate(&snapshot.tools, &Options::for_snapshot(&snapshot)).code;
        let golden = support::crate_dir().join(format!("tests/outputs/{stem}.rs"));
        if bless {
            std::fs::write(&golden, &code).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != code {
            let diff = similar::TextDiff::from_lines(&expected, &code)
                .unified_diff()
                .header("golden", "generated")
                .to_string();
            failures.push(format!("{}:\n{diff}", golden.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "generated code differs (MCP_CODEGEN_BLESS=1 to accept):\n{}",
        failures.join("\n")
    );
}

#[test]
fn output_is_byte_identical_whatever_the_order_of_the_tools() {
    for (stem, snapshot) in snapshots() {
        let options = Options::for_snapshot(&snapshot);
        let first = generate(&snapshot.tools, &options).code;
        let mut reversed = snapshot.tools.clone();
        reversed.reverse();
        assert_eq!(
            first,
            generate(&snapshot.tools, &options).code,
            "{stem}: two runs differ"
        );
        assert_eq!(
            first,
            generate(&reversed, &options).code,
            "{stem}: tool order changes the output"
        );
    }
}

#[test]
fn generated_code_names_no_crate_but_the_runtime() {
    for (stem, snapshot) in snapshots() {
        let code = generate(&snapshot.tools, &Options::for_snapshot(&snapshot)).code;
        for line in code.lines() {
            for bad in [
                "::serde::",
                "::serde_json::",
                "::schemars::",
                "::regress::",
                "::chrono::",
                "::uuid::",
            ] {
                let stray = line
                    .match_indices(bad)
                    .any(|(i, _)| !line[..i].ends_with("::mcp_runtime"));
                assert!(!stray, "{stem}: `{bad}` outside ::mcp_runtime in: {line}");
            }
        }
    }
}

#[test]
fn what_typify_cannot_take_is_reported_by_tool_and_pointer() {
    let snapshot = Snapshot::load(Path::new(
        &support::crate_dir().join("tests/snapshots/edge-cases.json"),
    ))
    .unwrap();
    let generated = generate(&snapshot.tools, &Options::for_snapshot(&snapshot));
    let mut spots: Vec<String> = generated
        .warnings
        .iter()
        .map(|w| format!("{} {}", w.tool, w.pointer))
        .collect();
    spots.sort();
    assert_eq!(
        spots,
        [
            "broken /inputSchema/properties/bad_default",
            "broken /inputSchema/properties/contains",
            "broken /inputSchema/properties/contradiction/properties/deep",
            "broken /inputSchema/properties/dangling",
            "broken /inputSchema/properties/elsewhere",
            "broken /inputSchema/properties/if_then",
            "broken /inputSchema/properties/misspelled_type",
            "broken /inputSchema/properties/mixed_enum",
            "broken /inputSchema/properties/not_only",
            "broken /inputSchema/properties/null_variants",
        ]
    );
    assert!(generated
        .warnings
        .iter()
        .any(|w| w.message.starts_with("typify panicked")));
    // The rest of the tool stays typed.
    assert!(generated.code.contains("pub fine: Option<String>"));
}

#[test]
fn server_everything_snapshots_differ_by_capabilities() {
    let all = snapshots();
    let get = |stem: &str| {
        all.iter()
            .find(|(s, _)| s == stem)
            .map(|(_, s)| s.clone())
            .unwrap()
    };
    let none = get("server-everything");
    let every = get("server-everything-all-capabilities");
    assert_eq!(none.client_capabilities, Default::default());
    assert!(
        every.client_capabilities.roots
            && every.client_capabilities.sampling
            && every.client_capabilities.elicitation
    );
    let names = |s: &Snapshot| s.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    for name in [
        "get-roots-list",
        "trigger-sampling-request",
        "trigger-elicitation-request",
    ] {
        assert!(
            !names(&none).contains(&name.to_string()) && names(&every).contains(&name.to_string()),
            "{name}"
        );
    }
}
