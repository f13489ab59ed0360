//! Real specs we did not write, from the npm package `@readme/oas-examples` (installed by
//! `scripts/install-openapi-specs.sh` under `.peers/openapi`, never vendored): every one of them goes through
//! `mcp-codegen openapi SPEC --emit-tools tools.json -o bindings.rs`, and all the bindings compile together
//! in one crate whose only dependency is `mcp-runtime`, with `#![deny(warnings)]`.
//!
//! Without the package the test says so and passes, unless `MCP_PEERS_REQUIRED=1` (as in `.ci/run`).

use crate::support;

use std::path::{Path, PathBuf};

/// The specs the issue names; each must convert with at least one tool.
const REQUIRED: &[&str] = &[
    "3.0/json/petstore.json",
    "3.0/yaml/petstore.yaml",
    "3.1/json/petstore.json",
    "3.1/yaml/petstore.yaml",
    "3.0/json/parameters-style.json",
    "3.1/json/parameters-style.json",
    "3.0/json/discriminators.json",
    "3.0/json/circular.json",
    "3.0/json/schema-circular.json",
    "3.0/json/file-uploads.json",
    "3.0/json/response-multiple-mediatypes.json",
];

/// Specs that have no path operation at all (only webhooks): the CLI must refuse them with a clear error.
const NO_OPERATIONS: &[&str] = &["3.1/json/webhooks.json", "3.1/yaml/webhooks.yaml"];

fn examples_dir() -> Option<PathBuf> {
    let dir = support::crate_dir()
        .parent()
        .unwrap()
        .join(".peers/openapi/node_modules/@readme/oas-examples");
    if dir.join("3.0/json/petstore.json").is_file() {
        return Some(dir);
    }
    let hint = "@readme/oas-examples is not installed; run scripts/install-openapi-specs.sh";
    if std::env::var("MCP_PEERS_REQUIRED").as_deref() == Ok("1") {
        panic!("{hint} (MCP_PEERS_REQUIRED=1)");
    }
    eprintln!("skipped: {hint}");
    None
}

fn specs(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for version in ["3.0", "3.1"] {
        for format in ["json", "yaml"] {
            let Ok(entries) = std::fs::read_dir(root.join(version).join(format)) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_file() {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    out.push(format!("{version}/{format}/{name}"));
                }
            }
        }
    }
    out.sort();
    out
}

/// 3.0's `nullable: bool` or a `$schema: "..."` anywhere (a property *named* `nullable` is a schema object,
/// not a boolean, and passes).
fn has_noise(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| {
            (k == "nullable" && v.is_boolean()) || (k == "$schema" && v.is_string()) || has_noise(v)
        }),
        serde_json::Value::Array(a) => a.iter().any(has_noise),
        _ => false,
    }
}

fn module_name(spec: &str) -> String {
    let stem = spec.rsplit_once('.').map_or(spec, |(s, _)| s);
    format!("spec_{}", stem.replace(['/', '-', '.'], "_"))
}

#[test]
fn every_oas_example_converts_and_all_bindings_compile() {
    let Some(root) = examples_dir() else { return };
    let out_dir = tempfile::tempdir().unwrap();
    let specs = specs(&root);
    assert!(
        specs.len() >= 50,
        "expected the package's specs, found {specs:?}"
    );
    for required in REQUIRED.iter().chain(NO_OPERATIONS) {
        assert!(
            specs.iter().any(|s| s == required),
            "{required} is missing from the package"
        );
    }

    let mut lib = String::from("#![deny(warnings)]\n//! Bindings of every OpenAPI example.\n\n");
    let mut failures = Vec::new();
    let mut tools_total = 0;
    for spec in &specs {
        let module = module_name(spec);
        let tools_path = out_dir.path().join(format!("{module}.json"));
        let rs_path = out_dir.path().join(format!("{module}.rs"));
        let out = support::cli()
            .arg("openapi")
            .arg(root.join(spec))
            .arg("--emit-tools")
            .arg(&tools_path)
            .arg("-o")
            .arg(&rs_path)
            .output()
            .expect("the CLI runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked at"),
            "{spec}: the CLI panicked:\n{stderr}"
        );
        if NO_OPERATIONS.contains(&spec.as_str()) {
            assert_eq!(out.status.code(), Some(2), "{spec}: {stderr}");
            assert!(
                stderr.contains("webhooks") && stderr.contains("no operation"),
                "{spec}: the error must name the file and the problem:\n{stderr}"
            );
            continue;
        }
        if !out.status.success() {
            failures.push(format!("{spec}: exit {:?}\n{stderr}", out.status.code()));
            continue;
        }
        // The snapshot is what `mcp-codegen snapshot` would record: a tools/list result.
        let snapshot: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&tools_path).unwrap())
                .unwrap_or_else(|e| panic!("{spec}: the emitted tools are not JSON: {e}"));
        let tools = snapshot["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{spec}: no tools array in {snapshot}"));
        assert!(!tools.is_empty(), "{spec}: no tools");
        for t in tools {
            let name = t["name"].as_str().unwrap();
            assert!(
                name.len() <= 64
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
                "{spec}: tool name {name:?}"
            );
            let schema = &t["inputSchema"];
            assert_eq!(schema["type"], "object", "{spec}: {name}: {schema}");
            assert!(
                !has_noise(schema),
                "{spec}: {name}: the input schema keeps 3.0 or dialect noise: {schema}"
            );
        }
        tools_total += tools.len();
        lib.push_str(&format!(
            "pub mod {module} {{\n    include!({:?});\n}}\n\n",
            rs_path.display().to_string()
        ));
    }
    assert!(
        failures.is_empty(),
        "specs that did not convert:\n{}",
        failures.join("\n")
    );
    eprintln!(
        "{} specs, {tools_total} tools",
        specs.len() - NO_OPERATIONS.len()
    );

    // One crate holds every module, so a clash between specs would show too.
    if let Err(errors) =
        support::check_crate_with_only_the_runtime("openapi-bindings-fixture", &lib)
    {
        panic!("the OpenAPI bindings do not compile:\n{errors}");
    }
}
