#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECS seconds (default 30), starting from the committed seeds
# (fuzz/seeds/<target>) plus whatever corpus earlier runs left (fuzz/corpus/<target>, git-ignored).
# Installs cargo-fuzz if missing. The sanitizer flags cargo-fuzz passes need nightly features; the
# stable toolchain accepts them under RUSTC_BOOTSTRAP=1 (this workspace has no other toolchain).
# Usage: scripts/fuzz.sh [SECS] [TARGET...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"
secs=${1:-30}; shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked
export RUSTC_BOOTSTRAP=1
targets=("$@"); [ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
cargo fuzz build -O
# The OpenAPI target also starts from the real specs the tests install (not vendored), when present.
specs=../.peers/openapi/node_modules/@readme/oas-examples
if [ -d "$specs" ]; then
  mkdir -p corpus/openapi
  for f in "$specs"/3.*/*/*.{json,yaml}; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 200000 ] && cp "$f" "corpus/openapi/$(echo "$f" | tr / _)"; done
fi
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "seeds/$t"
  echo "fuzz: $t for ${secs}s" >&2
  log=$(mktemp)
  if cargo fuzz run -O "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
      -print_final_stats=1 >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" | sed "s/^/fuzz: $t: /" >&2
    rm -f "$log"
  else
    tail -n 60 "$log" >&2
    echo "fuzz: $t FAILED; the input that failed is under fuzz/artifacts/$t" >&2
    exit 1
  fi
done
