//! Every snapshot in `tests/snapshots` has its bindings checked in under `tests/outputs`; a change in the
//! generated code shows up as a diff here. Run with `MCP_CODEGEN_BLESS=1` to accept the new output.

use crate::support;

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

/// A spec's bindings have a golden too (the Petstore of `@readme/oas-examples`, installed by
/// `scripts/install-openapi-specs.sh`): the shared `components` module, the tool modules that use it, and the
/// serde derives each type's direction needs (`Serialize` on what requests reach, `Deserialize` on what
/// responses reach). `MCP_CODEGEN_BLESS=1` accepts a new output.
#[test]
fn openapi_bindings_match_their_golden_output() {
    use mcp_codegen::openapi::bindings::{bindings, Layout};
    use mcp_codegen::openapi::{convert, ConvertOptions, Document};
    let spec = support::crate_dir()
        .join("../.peers/openapi/node_modules/@readme/oas-examples/3.0/json/petstore.json");
    if !spec.is_file() {
        let hint = "@readme/oas-examples is not installed; run scripts/install-openapi-specs.sh";
        assert!(
            std::env::var("MCP_PEERS_REQUIRED").as_deref() != Ok("1"),
            "{hint} (MCP_PEERS_REQUIRED=1)"
        );
        eprintln!("skipped: {hint}");
        return;
    }
    let conversion = convert(&Document::load(&spec).unwrap(), &ConvertOptions::default());
    let options = Options {
        client_name: "Client".into(),
        server_label: format!("the OpenAPI spec {}", conversion.title),
    };
    let (files, warnings) = bindings(&conversion, &options, Layout::Flat);
    assert!(warnings.is_empty(), "{warnings:?}");
    let code = files.joined();
    let golden = support::crate_dir().join("tests/outputs/openapi-petstore.rs");
    if std::env::var("MCP_CODEGEN_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&golden, &code).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&expected, &code)
        .unified_diff()
        .header("golden", "generated")
        .to_string();
    assert!(
        expected == code,
        "{} differs (MCP_CODEGEN_BLESS=1 to accept):\n{diff}",
        golden.display()
    );
    // A request type serializes and does not deserialize; a response type the other way round, through the
    // `Deserialize` mcp-codegen writes (serde's derive is most of what the compiler checks at scale).
    let derives_of = |ty: &str| {
        let at = code
            .find(&format!("pub struct {ty} "))
            .or_else(|| code.find(&format!("pub struct {ty}(")));
        let at = at.unwrap_or_else(|| panic!("no struct {ty} in:\n{code}"));
        let start = code[..at].rfind("#[derive(").unwrap();
        code[start..at].to_string()
    };
    let deserializes =
        |ty: &str| code.contains(&format!("impl<'de> serde::Deserialize<'de> for {ty} {{"));
    let params = derives_of("Params");
    assert!(
        params.contains("serde::Serialize")
            && !params.contains("serde::Deserialize")
            && !deserializes("Params"),
        "{params}"
    );
    // `uploadFile` answers an `ApiResponse`, which no request sends; a request carries a pet's fields as its
    // own arguments, so `Pet` is only received, but its `Tag`s go both ways.
    for received in ["ApiResponse", "Pet"] {
        let d = derives_of(received);
        assert!(
            !d.contains("serde::") && deserializes(received),
            "{received}: {d}"
        );
    }
    let tag = derives_of("Tag");
    assert!(
        tag.contains("serde::Serialize")
            && !tag.contains("serde::Deserialize")
            && deserializes("Tag"),
        "{tag}"
    );
}
