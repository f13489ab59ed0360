// The TypeScript SDK v2 client (npm @modelcontextprotocol/client, handshake era) through one session of
// what a recording must carry, against npm server-everything or what stands in for it
// (`mcp-codegen record`/`replay`).
//
// Usage: node ts_client_recorded.mjs SERVER_CMD [ARGS...]
// Lists the tools, calls echo and get-sum, a long-running operation with progress, and tools that ask for
// sampling and elicitation (answered here). Prints one JSON line of observations; exits non-zero on any
// failure.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args });
const client = new Client(
  { name: 'ts-v2-recorded-peer', version: '1.0.0' },
  { capabilities: { elicitation: {}, sampling: {} } },
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace', color: 'amber' } }));
client.setRequestHandler('sampling/createMessage', async () => ({
  role: 'assistant',
  content: { type: 'text', text: 'Lisbon' },
  model: 'ts-test-model',
  stopReason: 'endTurn',
}));

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const out = {};
try {
  await client.connect(transport);
  out.server = client.getServerVersion()?.name ?? null;
  out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
  out.echo = text(await client.callTool({ name: 'echo', arguments: { message: 'héllo' } }));
  out.sum = text(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }));
  const progress = [];
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    { onprogress: (p) => progress.push([p.progress, p.total]) },
  );
  out.long = text(long);
  out.progress = progress;
  out.sampling = text(await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital of Portugal?' } }));
  out.elicitation = text(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
} finally {
  await client.close();
}
console.log(JSON.stringify(out));
process.exit(0);
