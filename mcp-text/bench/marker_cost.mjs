// What the round-trip markers cost: for each document of a real-shaped corpus, the bytes and tokens (o200k_base,
// cl100k_base; npm gpt-tokenizer) of the input, of our Markdown with markers and of plain Markdown
// (`mcp-text convert --plain`), and the markers' share of the Markdown.
//
//   TEXT_BENCH_GENERATE_ONLY=1 cargo bench -p mcp-text --bench text_bench   # writes target/text-bench/*
//   cargo build --release -p mcp-text
//   node mcp-text/bench/marker_cost.mjs [MCP_TEXT_BINARY]
//
// The binary defaults to $CARGO_TARGET_DIR/release/mcp-text (else target/release/mcp-text). `TEXT_PEERS` points at
// the corpora (default .peers/text, installed by scripts/install-text-corpora.sh). Prints a Markdown table.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const peers = process.env.TEXT_PEERS || path.join(root, '.peers', 'text');
const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
const bin = process.argv[2] || path.join(target, 'release', 'mcp-text');
const enc = async (name) =>
  import(pathToFileURL(path.join(peers, 'node_modules', 'gpt-tokenizer', 'esm', 'encoding', `${name}.js`)).href);
const o200k = await enc('o200k_base');
const cl100k = await enc('cl100k_base');

const docs = [
  ['examples/rich-text/jira-description.adf.json', 'adf'],
  // The same description with a `localId` on every block, as Jira and Confluence Cloud now return them.
  ['examples/rich-text/jira-description-with-ids.adf.json', 'adf'],
  ['examples/rich-text/confluence-page.storage.xml', 'storage'],
  // The same page with a `local-id` on every block, as Confluence Cloud now returns it.
  ['examples/rich-text/confluence-page-with-ids.storage.xml', 'storage'],
  // A page in the shapes Confluence Cloud's API returns in 2026: UUIDs on rows and cells, a table width,
  // empty cells, smart links.
  ['examples/rich-text/confluence-cloud-page.storage.xml', 'storage'],
  // A page in the shapes Confluence Server and Data Center store: text bare in cells and list items, page
  // links with `ri:version-at-save`, users by key, tasks with ids.
  ['examples/rich-text/confluence-server-page.storage.xml', 'storage'],
  ['target/text-bench/jira.json', 'adf'],
  ['target/text-bench/confluence.xml', 'storage'],
];

const convert = (file, from, plain) =>
  execFileSync(bin, ['convert', '--from', from, '--to', 'markdown', ...(plain ? ['--plain'] : []), file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
const measure = (text) => ({
  bytes: Buffer.byteLength(text, 'utf8'),
  o200k: o200k.countTokens(text),
  cl100k: cl100k.countTokens(text),
});
const n = (x) => x.toLocaleString('en-US');
const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;

console.log('| document | text | bytes | o200k tokens | cl100k tokens |');
console.log('|---|---|--:|--:|--:|');
for (const [rel, from] of docs) {
  const file = path.join(root, rel);
  if (!existsSync(file)) {
    console.log(`| ${rel} | missing (generate it: see the header of this script) | | | |`);
    continue;
  }
  const input = measure(readFileSync(file, 'utf8'));
  const md = measure(convert(file, from, false));
  const plain = measure(convert(file, from, true));
  const row = (label, m) => console.log(`| ${rel} | ${label} | ${n(m.bytes)} | ${n(m.o200k)} | ${n(m.cl100k)} |`);
  row(from === 'adf' ? 'ADF JSON' : 'storage XML', input);
  row('Markdown + markers', md);
  row('plain Markdown', plain);
  console.log(
    `| ${rel} | markers' share | ${pct(md.bytes - plain.bytes, md.bytes)} | ${pct(md.o200k - plain.o200k, md.o200k)} | ${pct(md.cl100k - plain.cl100k, md.cl100k)} |`,
  );
}
