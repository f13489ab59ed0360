fn main() {
    // Reads tools.json (no network), writes $OUT_DIR/tools.rs, and reruns only when the snapshot changes.
    if let Err(e) = mcp_codegen::build::Bindings::from_snapshot("tools.json").client_name("BenchClient").write() {
        panic!("generating the bindings failed: {e}");
    }
}
