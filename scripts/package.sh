#!/usr/bin/env bash
# Packages every publishable crate of the workspace as `cargo publish` would, and builds each package from
# its .crate alone (intra-workspace dependencies resolve to the packages just made, through cargo's
# local overlay of the registry). Fails on missing metadata, a path dependency without a version, a file
# the build needs that the package leaves out, or a package over MAX_CRATE_KIB (default 2048) compressed.
# Usage: scripts/package.sh [--no-verify]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
max_kib=${MAX_CRATE_KIB:-2048}

# Publishable members (`publish` unset or naming a registry), as "name version" lines.
mapfile -t crates < <(cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
m = json.load(sys.stdin)
members = set(m["workspace_members"])
for p in m["packages"]:
    if p["id"] in members and p.get("publish") != []:
        print(p["name"], p["version"])
')
[ ${#crates[@]} -gt 0 ] || { echo "package.sh: no publishable crate found" >&2; exit 1; }
names=("${crates[@]%% *}")
echo "packaging: ${names[*]}"

# `--allow-dirty`: CI packages a clean clone; a developer may run this before committing. No debug info:
# the packages are built once, to see that they build, and the workspace's profile settings do not travel.
CARGO_PROFILE_DEV_DEBUG=0 cargo package --allow-dirty --locked "$@" $(printf -- '-p %s ' "${names[@]}")

target=${CARGO_TARGET_DIR:-target}
status=0
for line in "${crates[@]}"; do
  c=${line% *} v=${line#* }
  f="$target/package/$c-$v.crate"
  kib=$(( $(stat -c %s "$f") / 1024 ))
  printf '%-14s %5s KiB  %s\n' "$c" "$kib" "$f"
  if [ "$kib" -gt "$max_kib" ]; then
    echo "package.sh: $f is $kib KiB compressed, over the $max_kib KiB limit: see \`cargo package -p $c --list\`" >&2
    status=1
  fi
done
exit $status
