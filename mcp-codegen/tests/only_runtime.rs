//! The generated code compiles in a crate whose single dependency is `mcp-runtime`, without a warning.
//!
//! The test writes that crate into a scratch directory and runs `cargo check --offline` on it, with its own
//! target directory under `CARGO_TARGET_TMPDIR` (the first run compiles the runtime's dependencies once).

mod support;

use std::process::Command;

#[test]
fn bindings_compile_with_mcp_runtime_as_the_only_dependency() {
    let root = support::crate_dir();
    let workspace = root.parent().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let runtime = workspace.join("mcp-runtime");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bindings-fixture\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nmcp-runtime = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )
    .unwrap();
    // The workspace's lock file pins the same versions the runtime is tested with, and works offline.
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::create_dir(dir.join("src")).unwrap();
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
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();

    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bindings-fixture");
    let out = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the bindings do not compile with only mcp-runtime:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
