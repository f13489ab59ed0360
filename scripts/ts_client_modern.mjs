// The TypeScript SDK v2 client (npm @modelcontextprotocol/client) in protocol 2026-07-28 against our
// everything-server, over stdio or Streamable HTTP.
//
// Usage: node ts_client_modern.mjs stdio SERVER_CMD [ARGS...]
//        node ts_client_modern.mjs http URL
// Negotiates with versionNegotiation 'auto' (server/discover), answers multi round-trip input requests
// through the handlers registered with setRequestHandler, and prints one JSON line of observations.
// Exits non-zero on any failure.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [kind, ...rest] = process.argv.slice(2);
const transport =
  kind === 'stdio'
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1) })
    : new StreamableHTTPClientTransport(new URL(rest[0]));

const client = new Client(
  { name: 'ts-v2-conformance-peer', version: '1.0.0' },
  {
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    versionNegotiation: { mode: 'auto' },
  },
);
client.setRequestHandler('elicitation/create', async (request) => {
  const message = request.params.message;
  if (message.includes('name')) return { action: 'accept', content: { name: 'Grace' } };
  if (message.includes('color')) return { action: 'accept', content: { color: 'amber' } };
  if (message.includes('context')) return { action: 'accept', content: { context: 'typescript' } };
  return { action: 'accept', content: { ok: true } };
});
client.setRequestHandler('sampling/createMessage', async () => ({
  role: 'assistant',
  content: { type: 'text', text: 'Lisbon' },
  model: 'ts-test-model',
  stopReason: 'endTurn',
}));
client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///tmp/a', name: 'a' }, { uri: 'file:///tmp/b' }] }));

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const out = {};
try {
  await client.connect(transport);
  out.protocolVersion = transport.protocolVersion ?? client.getNegotiatedProtocolVersion?.() ?? null;
  out.serverName = client.getServerVersion()?.name ?? null;
  const tools = await client.listTools();
  out.toolCount = tools.tools.length;
  out.simple = text(await client.callTool({ name: 'test_simple_text', arguments: {} }));
  out.multiRound = text(await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} }));
  out.multipleInputs = text(await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} }));
  const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} });
  out.prompt = prompt.messages[0].content.text;
  if (kind === 'http') {
    out.customHeaders = text(
      await client.callTool({ name: 'test_custom_headers', arguments: { region: 'São Paulo', priority: 3, query: 'SELECT 1' } }),
    );
  }
  try {
    await client.readResource({ uri: 'test://no-such-resource' });
    out.missingResource = 'no error';
  } catch (e) {
    out.missingResource = e.code ?? String(e);
  }
} finally {
  await client.close();
}
console.log(JSON.stringify(out));
process.exit(0);
