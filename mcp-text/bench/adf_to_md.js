// npm adf-to-md in-process: node adf_to_md.js INPUT OUTPUT RUNS -> {"best_s": seconds} on stdout.
// Each run parses the JSON and converts it (our CLI parses too), best of RUNS; OUTPUT gets the Markdown.
'use strict';
const fs = require('fs');
const path = require('path');
const [input, output, runs] = process.argv.slice(2);
const peers = process.env.TEXT_PEERS || path.join(__dirname, '..', '..', '.peers', 'text');
const converter = require(path.join(peers, 'node_modules', 'adf-to-md'));
const text = fs.readFileSync(input, 'utf8');
// adf-to-md logs "adding warning for mention" (console.log) for every node it drops: silenced, so that the
// loop measures the conversion, not the logging.
const log = console.log;
console.log = () => {};
let best = Infinity;
let result = '';
for (let i = 0; i < Number(runs); i++) {
  const start = process.hrtime.bigint();
  result = converter.convert(JSON.parse(text)).result;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  best = Math.min(best, seconds);
}
fs.writeFileSync(output, result);
console.log = log;
console.log(JSON.stringify({ best_s: best }));
