#!/usr/bin/env bash
# Build time of a crate of 50 tools: `#[tool]` (mcp-runtime) against rmcp 3.x `#[tool_router]`.
#
# Generates two crates under $OUT (default /tmp/mcp-build-bench) with the same 50 tools (three
# documented arguments each), builds their dependencies once, then times a rebuild of each crate
# alone (`touch src/lib.rs && cargo build`), in the same run, alternating, $RUNS times each, in wall and in
# CPU seconds (the CPU figure is the one to trust while other builds share the machine), and in
# instructions under callgrind (repeatable to 0.01%, whatever else runs). Then the
# size of each crate's macro expansion: `rustc -Zunpretty=expanded` (what `cargo expand` prints, before
# formatting; RUSTC_BOOTSTRAP=1 lets stable rustc print it), in bytes and in lines after rustfmt.
# Usage: mcp-macros/bench/build-time.sh [runs]
set -euo pipefail
RUNS=${1:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/mcp-build-bench}
export CARGO_TARGET_DIR=$OUT/target
mkdir -p "$OUT/ours/src" "$OUT/rmcp/src"

cat > "$OUT/ours/Cargo.toml" <<TOML
[package]
name = "fifty-ours"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
mcp-runtime = { path = "$ROOT/mcp-runtime" }
[workspace]
TOML
cat > "$OUT/rmcp/Cargo.toml" <<TOML
[package]
name = "fifty-rmcp"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
[workspace]
TOML

python3 - "$OUT" <<'PY'
import sys
out = sys.argv[1]
ours = ["use mcp_runtime::{tool, Server};\n"]
rmcp = ["use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};",
        "use rmcp::{schemars, tool, tool_router};\n"]
for i in range(50):
    ours.append(f'''/// Tool number {i}: looks something up.
#[tool(read_only)]
async fn tool_{i}(
    /// What to look for
    query: String,
    /// Maximum number of results
    #[tool(default = 10)]
    limit: u32,
    /// Whether to include archived items
    archived: Option<bool>,
) -> String {{
    format!("{{query}} {{limit}} {{archived:?}}")
}}
''')
    rmcp.append(f'''#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args{i} {{
    /// What to look for
    query: String,
    /// Maximum number of results
    #[serde(default = "ten")]
    limit: u32,
    /// Whether to include archived items
    archived: Option<bool>,
}}
''')
ours.append("pub fn server() -> Server {\n    Server::builder()")
for i in range(50):
    ours.append(f"        .tool(tool_{i}_tool())")
ours.append("        .build()\n        .expect(\"valid\")\n}\n")
rmcp.append("fn ten() -> u32 {\n    10\n}\n\npub struct Fifty {\n    pub router: ToolRouter<Self>,\n}\n\n#[tool_router]\nimpl Fifty {")
for i in range(50):
    rmcp.append(f'''    /// Tool number {i}: looks something up.
    #[tool(annotations(read_only_hint = true))]
    async fn tool_{i}(&self, Parameters(a): Parameters<Args{i}>) -> String {{
        format!("{{}} {{}} {{:?}}", a.query, a.limit, a.archived)
    }}''')
rmcp.append("}\n\npub fn server() -> Fifty {\n    Fifty { router: Fifty::tool_router() }\n}\n")
open(f"{out}/ours/src/lib.rs", "w").write("\n".join(ours))
open(f"{out}/rmcp/src/lib.rs", "w").write("\n".join(rmcp))
PY

echo "building dependencies (not timed)..." >&2
(cd "$OUT/ours" && cargo build --offline -q)
(cd "$OUT/rmcp" && cargo build --offline -q)

# Wall seconds and CPU seconds (user + sys of cargo and rustc) of one rebuild. On a machine shared with other
# builds the wall time mostly measures the others; the CPU time is this build's own work.
rebuild() {
    local TIMEFORMAT='%R %U %S'
    local t
    t=$( { time (cd "$1" && touch src/lib.rs && cargo build --offline -q 2>/dev/null); } 2>&1 )
    echo "$t" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}
ours=(); theirs=(); ours_cpu=(); theirs_cpu=()
for _ in $(seq "$RUNS"); do
    read -r w c < <(rebuild "$OUT/ours"); ours+=("$w"); ours_cpu+=("$c")
    read -r w c < <(rebuild "$OUT/rmcp"); theirs+=("$w"); theirs_cpu+=("$c")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }
echo "crate of 50 tools, rebuild of the crate alone (debug, median of $RUNS; wall s, CPU s):"
echo "  #[tool] (mcp-runtime):   wall $(median "${ours[@]}") [${ours[*]}], CPU $(median "${ours_cpu[@]}") [${ours_cpu[*]}]"
echo "  rmcp 3.x #[tool_router]: wall $(median "${theirs[@]}") [${theirs[*]}], CPU $(median "${theirs_cpu[@]}") [${theirs_cpu[*]}]"
echo "  ours / rmcp: wall $(ratio "$(median "${ours[@]}")" "$(median "${theirs[@]}")")x, CPU $(ratio "$(median "${ours_cpu[@]}")" "$(median "${theirs_cpu[@]}")")x"

# The same rebuild in instructions: rustc of the crate alone under callgrind (every thread counted),
# which other builds on the machine do not change (the same count to 0.01% run after run).
if command -v valgrind >/dev/null 2>&1; then
    cat > "$OUT/callgrind-rustc.sh" <<'WRAP'
#!/usr/bin/env bash
# RUSTC_WRAPPER: the fifty_* crate's rustc under callgrind, every other crate's as it is.
rustc="$1"; shift
for a in "$@"; do
    case "$a" in fifty_*) exec valgrind --tool=callgrind --callgrind-out-file=/dev/null "$rustc" "$@" 2>"$CALLGRIND_LOG" ;; esac
done
exec "$rustc" "$@"
WRAP
    chmod +x "$OUT/callgrind-rustc.sh"
    instructions() {
        (cd "$1" && touch src/lib.rs && CALLGRIND_LOG="$OUT/callgrind.log" \
            RUSTC_WRAPPER="$OUT/callgrind-rustc.sh" cargo build --offline -q 2>/dev/null)
        awk '/Collected :/ {print $4}' "$OUT/callgrind.log"
    }
    # The first build with the wrapper is a cargo rebuild of its own; count the second.
    instructions "$OUT/ours" >/dev/null; instructions "$OUT/rmcp" >/dev/null
    i_ours=$(instructions "$OUT/ours"); i_rmcp=$(instructions "$OUT/rmcp")
    echo "rebuild of the crate alone in instructions (rustc under callgrind, load-independent):"
    echo "  #[tool] (mcp-runtime): $i_ours"
    echo "  rmcp 3.x #[tool_router]: $i_rmcp"
    echo "  ours / rmcp: $(echo "$i_ours $i_rmcp" | awk '{printf "%.3f", $1 / $2}')x"
fi

expanded() {
    (cd "$1" && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$OUT/target-expand \
        cargo rustc --offline -q --lib --profile=check -- -Zunpretty=expanded 2>/dev/null) > "$1/expanded.rs"
    rustfmt --edition 2021 "$1/expanded.rs" 2>/dev/null || true
    echo "$(wc -c < "$1/expanded.rs") bytes, $(wc -l < "$1/expanded.rs") lines"
}
echo "macro expansion of the crate (rustc -Zunpretty=expanded, then rustfmt):"
echo "  #[tool] (mcp-runtime): $(expanded "$OUT/ours")"
echo "  rmcp 3.x #[tool_router]: $(expanded "$OUT/rmcp")"
