// The TypeScript SDK's own task client (npm @modelcontextprotocol/sdk 1.x, experimental tasks of protocol
// 2025-11-25) against one of our servers: a task-augmented call whose handler asks the user, answered
// through tasks/result as the SDK does; a task cancelled while it runs; one that runs to its result.
// Prints one JSON line per observation for the Rust test to check.
//
// usage: node ts_tasks_client.mjs SDK_DIR (--url URL | --stdio SERVER_BIN)
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [sdkDir, mode, target] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, 'dist/esm', p)).href);
const { Client } = await load('client/index.js');
const { CallToolResultSchema, ElicitRequestSchema } = await load('types.js');

const client = new Client({ name: 'ts-tasks-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push({ message: request.params.message, relatedTask: request.params._meta?.['io.modelcontextprotocol/related-task']?.taskId ?? null });
  return { action: 'accept', content: { confirm: true } };
});

let transport;
if (mode === '--url') {
  const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
  transport = new StreamableHTTPClientTransport(new URL(target));
} else {
  const { StdioClientTransport } = await load('client/stdio.js');
  transport = new StdioClientTransport({ command: target, args: [], stderr: 'ignore' });
}
await client.connect(transport);
const out = (v) => console.log(JSON.stringify(v));
out({ capabilities: client.getServerCapabilities()?.tasks ?? null });

async function stream(name, args) {
  const seen = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: { ttl: 60000 } })) {
    if (m.type === 'taskCreated') seen.push({ created: m.task.taskId, status: m.task.status });
    else if (m.type === 'taskStatus') seen.push({ status: m.task.status });
    else if (m.type === 'result') seen.push({ result: m.result.content?.[0]?.text ?? null, relatedTask: m.result._meta?.['io.modelcontextprotocol/related-task']?.taskId ?? null });
    else if (m.type === 'error') seen.push({ error: String(m.error?.message ?? m.error) });
  }
  return seen;
}

out({ confirm: await stream('confirm_delete', { filename: 'notes.txt' }), asked });
out({ compute: await stream('slow_compute', { seconds: 0.3, label: 'ts' }) });

// Cancel a task while it runs, then look at it.
const created = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60 }, task: { ttl: 60000 } } },
  (await load('types.js')).CreateTaskResultSchema);
const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
const after = await client.experimental.tasks.getTask(created.task.taskId);
const listed = await client.experimental.tasks.listTasks();
out({ cancelled: cancelled.status, after: after.status, listed: listed.tasks.length });
await client.close();
