//! The generated code compiles in a crate whose single dependency is `mcp-runtime`, without a warning.
//!
//! The test writes that crate into a scratch directory and runs `cargo check --offline` on it, with its own
//! target directory under `CARGO_TARGET_TMPDIR` (the first run compiles the runtime's dependencies once).

use crate::support;

#[test]
fn bindings_compile_with_mcp_runtime_as_the_only_dependency() {
    let root = support::crate_dir();
    let mut lib = String::from("#![deny(warnings)]\n//! Bindings, and code that uses them.\n\n");
    let mut outputs: Vec<_> = std::fs::read_dir(root.join("tests/outputs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    outputs.sort();
    assert!(outputs.len() >= 4);
    for path in &outputs {
        let module = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        lib.push_str(&format!(
            "pub mod {module} {{\n    include!({:?});\n}}\n\n",
            path.display().to_string()
        ));
    }
    lib.push_str(
        "pub async fn sum(client: &server_everything::Client) -> Result<usize, server_everything::ToolCallError> {\n\
         \x20   let blocks = client.get_sum(&server_everything::get_sum::Params { a: 1.0, b: 2.0 }).await?;\n\
         \x20   let image = client.get_tiny_image().await?;\n\
         \x20   Ok(blocks.len() + image.len())\n}\n",
    );
    if let Err(errors) = support::check_crate_with_only_the_runtime("bindings-fixture", &lib) {
        panic!("the bindings do not compile with only mcp-runtime:\n{errors}");
    }
}
