#!/usr/bin/env bash
# Shows that two builds of `mcp-text` write the same bytes: usage `scripts/text-same.sh OLD NEW`.
# Converts with both, and compares output and warnings: the bench's documents (target/text-bench, from
# `TEXT_BENCH_GENERATE_ONLY=1 cargo bench -p mcp-text --bench text_bench`), the CommonMark and GFM examples
# (Markdown → ADF and → storage by OLD, then each of the three to Markdown by both) and 2,000 random schema
# documents (ADF → Markdown and → storage by both, that storage → Markdown by both, and their Markdown by
# OLD → ADF and → storage by both). Needs
# scripts/install-text-corpora.sh. Prints the number of conversions compared and every one that differs.
set -uo pipefail
old="$(realpath "$1")" new="$(realpath "$2")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
(cd "$root" && MCP_TEXT_CLI_INPUTS="$dir/in" cargo test -q -p mcp-text --test it cli_inputs -- --ignored >/dev/null) || exit 1
n=0 bad=0
same() { # FROM TO FILE [--plain]
  "$old" convert --from "$1" --to "$2" ${4:-} "$3" >"$dir/a" 2>"$dir/a.err"; local ra=$?
  "$new" convert --from "$1" --to "$2" ${4:-} "$3" >"$dir/b" 2>"$dir/b.err"; local rb=$?
  n=$((n + 1))
  if [ $ra != $rb ] || ! cmp -s "$dir/a" "$dir/b" || ! cmp -s "$dir/a.err" "$dir/b.err"; then
    bad=$((bad + 1)); echo "differs: --from $1 --to $2 ${4:-} $3"
  fi
}
bench="$root/target/text-bench"
for f in jira.json:adf confluence.xml:storage page.html:html readme.md:markdown; do
  file="$bench/${f%%:*}" fmt="${f##*:}"
  [ -f "$file" ] || continue
  case $fmt in
    markdown) same markdown adf "$file"; same markdown storage "$file" ;;
    *) same "$fmt" markdown "$file"; same "$fmt" markdown "$file" --plain
       [ "$fmt" != html ] && same "$fmt" adf "$file" ;;
  esac
done
for md in "$dir"/in/*.md; do
  same markdown adf "$md"
  "$old" convert --from markdown --to adf "$md" >"$dir/x.json" 2>/dev/null && same adf markdown "$dir/x.json"
  "$old" convert --from markdown --to storage "$md" >"$dir/x.xml" 2>/dev/null && same storage markdown "$dir/x.xml"
  cp "$md" "$dir/x.html" && same html markdown "$dir/x.html"
done
for json in "$dir"/in/random-*.json; do
  same adf markdown "$json"
  same adf storage "$json"
  "$old" convert --from adf --to storage "$json" >"$dir/y.xml" 2>/dev/null && same storage markdown "$dir/y.xml"
  if "$old" convert --from adf --to markdown "$json" >"$dir/y.md" 2>/dev/null; then
    same markdown adf "$dir/y.md"; same markdown storage "$dir/y.md"
  fi
done
echo "$n conversions compared, $bad differ"
[ $bad = 0 ]
