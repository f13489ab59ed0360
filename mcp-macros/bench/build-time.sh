#!/usr/bin/env bash
# What a user pays to build a server: mcp-runtime (default features, `#[tool]`) against rmcp 3.11 (`server`,
# `macros`, `transport-io`; `#[tool_router]`), side by side in one run, on crates this script writes itself.
#
# 1. A one-tool stdio server (`one-ours`, `one-rmcp`): the crates in its dependency tree (`cargo tree --prefix
#    none -e normal`, unique lines), a cold debug and a cold release build (each in a fresh target directory,
#    sources fetched beforehand; ours and rmcp's interleaved, $COLD_RUNS times each; wall and CPU seconds, the
#    CPU figure being the one to trust while other builds share the machine), and its release binary's size
#    once stripped (`strip -s`; cargo's default release profile otherwise).
# 2. A crate of 50 tools with three documented arguments each (`ours`, `rmcp`): its dependencies built once,
#    then a rebuild of the crate alone (`touch src/lib.rs && cargo build`), alternating, $RUNS times each
#    (median), in wall and CPU seconds, and in instructions under callgrind when valgrind is installed
#    (repeatable to 0.01% whatever else runs). Then the size of each crate's macro expansion: `rustc
#    -Zunpretty=expanded` (what `cargo expand` prints, before formatting; RUSTC_BOOTSTRAP=1 lets stable rustc
#    print it), in bytes and in lines after rustfmt.
# Last, a Markdown table of the figures with their ratios (ours / rmcp).
# Usage: mcp-macros/bench/build-time.sh [rebuild runs, default 5]
#   COLD_RUNS=n (default 1); OUT=dir (default /tmp/mcp-build-bench, deleted at the end unless KEEP=1).
set -euo pipefail
RUNS=${1:-5}
COLD_RUNS=${COLD_RUNS:-1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/mcp-build-bench}
unset CARGO_BUILD_TARGET_DIR
# CARGO_INCREMENTAL is taken from the environment (unset: cargo's default, incremental debug builds).
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/ours/src" "$OUT/rmcp/src" "$OUT/one-ours/src" "$OUT/one-rmcp/src"

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }
TABLE=()
row() { TABLE+=("| $1 | $2 | $3 | $(ratio "$4" "$5")x |"); }
# Wall seconds and CPU seconds (user + sys of cargo and rustc) of a command run in a directory.
timed() {
    local dir=$1; shift
    local TIMEFORMAT='%R %U %S' t
    t=$( { time (cd "$dir" && "$@" >"$OUT/last-build.log" 2>&1); } 2>&1 ) || {
        echo "failed in $dir: $*" >&2; cat "$OUT/last-build.log" >&2; kill $$; }
    echo "$t" | awk '{printf "%.2f %.2f\n", $1, $2 + $3}'
}

# ---- 1. A one-tool stdio server ----
# mcp-runtime comes by path here, and cargo builds a path dependency incrementally (as it would a user's own
# crate); a user's crates.io or git dependency is built without, as rmcp is here. Built as a user's would be:
OVERRIDE='[profile.dev.package.mcp-runtime]
incremental = false
[profile.dev.package.mcp-macros]
incremental = false'
cat > "$OUT/one-ours/Cargo.toml" <<TOML
[package]
name = "one-ours"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
mcp-runtime = { path = "$ROOT/mcp-runtime" }
$OVERRIDE
[workspace]
TOML
cat > "$OUT/one-ours/src/main.rs" <<'RS'
use mcp_runtime::{tool, Server};

/// Says hello to someone.
#[tool]
fn hello(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

#[mcp_runtime::tokio::main(crate = "mcp_runtime::tokio", flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Server::builder().name("one").tool(hello_tool()).build().expect("valid");
    server.serve_stdio().await
}
RS
cat > "$OUT/one-rmcp/Cargo.toml" <<TOML
[package]
name = "one-rmcp"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "transport-io"] }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["macros", "rt"] }
[workspace]
TOML
cat > "$OUT/one-rmcp/src/main.rs" <<'RS'
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Hello {
    /// Who to greet
    name: String,
}

#[derive(Clone)]
pub struct One {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl One {
    /// Says hello to someone.
    #[tool]
    fn hello(&self, Parameters(h): Parameters<Hello>) -> String {
        format!("Hello, {}!", h.name)
    }
}

#[tool_handler]
impl ServerHandler for One {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let one = One { tool_router: One::tool_router() };
    one.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
RS

for c in one-ours one-rmcp; do (cd "$OUT/$c" && cargo fetch -q); done
crates() { (cd "$OUT/$1" && cargo tree --offline --prefix none -e normal | sed 's/ (\*)$//' | sort -u | wc -l); }
c_ours=$(crates one-ours); c_rmcp=$(crates one-rmcp)
echo "crates in a one-tool stdio server's tree: mcp-runtime $c_ours, rmcp $c_rmcp"
row "crates in a one-tool stdio server's tree" "$c_ours" "$c_rmcp" "$c_ours" "$c_rmcp"

# A cold build: a fresh target directory each time, deleted after.
cold() {
    local t
    rm -rf "$OUT/cold-target"
    t=$(CARGO_TARGET_DIR=$OUT/cold-target timed "$OUT/$1" cargo build --offline "${@:2}")
    echo "$t"
}
for profile in debug release; do
    flag=(); [ "$profile" = release ] && flag=(--release)
    ow=(); oc=(); rw=(); rc=()
    for _ in $(seq "$COLD_RUNS"); do
        read -r w c < <(cold one-ours "${flag[@]}"); ow+=("$w"); oc+=("$c")
        if [ "$profile" = release ]; then
            strip -s -o "$OUT/one-ours.bin" "$OUT/cold-target/release/one-ours"
        fi
        read -r w c < <(cold one-rmcp "${flag[@]}"); rw+=("$w"); rc+=("$c")
        if [ "$profile" = release ]; then
            strip -s -o "$OUT/one-rmcp.bin" "$OUT/cold-target/release/one-rmcp"
        fi
    done
    echo "cold $profile build of the one-tool server (wall s, CPU s): mcp-runtime ${ow[*]} / ${oc[*]}, rmcp ${rw[*]} / ${rc[*]}"
    row "cold $profile build, wall s" "$(median "${ow[@]}")" "$(median "${rw[@]}")" "$(median "${ow[@]}")" "$(median "${rw[@]}")"
    row "cold $profile build, CPU s" "$(median "${oc[@]}")" "$(median "${rc[@]}")" "$(median "${oc[@]}")" "$(median "${rc[@]}")"
done
rm -rf "$OUT/cold-target"
b_ours=$(stat -c %s "$OUT/one-ours.bin"); b_rmcp=$(stat -c %s "$OUT/one-rmcp.bin")
echo "stripped release binary: mcp-runtime $b_ours bytes, rmcp $b_rmcp bytes"
row "stripped release binary, bytes" "$b_ours" "$b_rmcp" "$b_ours" "$b_rmcp"

# ---- 2. A crate of 50 tools ----
export CARGO_TARGET_DIR=$OUT/target
cat > "$OUT/ours/Cargo.toml" <<TOML
[package]
name = "fifty-ours"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
mcp-runtime = { path = "$ROOT/mcp-runtime" }
$OVERRIDE
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

rebuild() { timed "$1" sh -c 'touch src/lib.rs && cargo build --offline -q'; }
ours=(); theirs=(); ours_cpu=(); theirs_cpu=()
for _ in $(seq "$RUNS"); do
    read -r w c < <(rebuild "$OUT/ours"); ours+=("$w"); ours_cpu+=("$c")
    read -r w c < <(rebuild "$OUT/rmcp"); theirs+=("$w"); theirs_cpu+=("$c")
done
echo "crate of 50 tools, rebuild of the crate alone (debug, median of $RUNS; wall s, CPU s):"
echo "  #[tool] (mcp-runtime):   wall $(median "${ours[@]}") [${ours[*]}], CPU $(median "${ours_cpu[@]}") [${ours_cpu[*]}]"
echo "  rmcp 3.x #[tool_router]: wall $(median "${theirs[@]}") [${theirs[*]}], CPU $(median "${theirs_cpu[@]}") [${theirs_cpu[*]}]"
row "50-tool crate rebuilt after a touch, wall s (median of $RUNS)" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" "$(median "${ours[@]}")" "$(median "${theirs[@]}")"
row "50-tool crate rebuilt after a touch, CPU s" "$(median "${ours_cpu[@]}")" "$(median "${theirs_cpu[@]}")" "$(median "${ours_cpu[@]}")" "$(median "${theirs_cpu[@]}")"

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
    echo "rebuild of the crate alone in instructions (rustc under callgrind): ours $i_ours, rmcp $i_rmcp"
    row "50-tool crate rebuilt, instructions (callgrind)" "$i_ours" "$i_rmcp" "$i_ours" "$i_rmcp"
fi

expanded() {
    (cd "$1" && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$OUT/target-expand \
        cargo rustc --offline -q --lib --profile=check -- -Zunpretty=expanded 2>/dev/null) > "$1/expanded.rs"
    rustfmt --edition 2021 "$1/expanded.rs" 2>/dev/null || true
}
expanded "$OUT/ours"; expanded "$OUT/rmcp"
e_ours=$(wc -c < "$OUT/ours/expanded.rs"); e_rmcp=$(wc -c < "$OUT/rmcp/expanded.rs")
l_ours=$(wc -l < "$OUT/ours/expanded.rs"); l_rmcp=$(wc -l < "$OUT/rmcp/expanded.rs")
echo "macro expansion of the 50-tool crate (rustc -Zunpretty=expanded, rustfmt): ours $e_ours bytes / $l_ours lines, rmcp $e_rmcp bytes / $l_rmcp lines"
row "50-tool crate's macro expansion, lines (rustfmt)" "$l_ours" "$l_rmcp" "$l_ours" "$l_rmcp"

echo
echo "| | mcp-runtime | rmcp 3.11 | ratio |"
echo "|---|---|---|---|"
printf '%s\n' "${TABLE[@]}"
