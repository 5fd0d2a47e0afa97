/**
 * Secrets never enter the memory: realistic samples of every kind go in through the CLI and come
 * out of no export, no CLI answer and no MCP tool result; `recall status` counts the redactions.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLS } from '../src/tools/catalogue';
import { SAMPLES } from './fixtures/secret-samples';
import { CLI, recallJson, recallOk, tmpFolder } from './helpers';

test('no secret survives into export, CLI answers or any MCP tool result', async () => {
  const memory = tmpFolder('secrets');
  const file = path.join(memory, 'leaky-session.jsonl');
  fs.writeFileSync(
    file,
    SAMPLES.map((s) => JSON.stringify({ role: 'user', content: `while debugging the deploy: ${s.text}`, session: 'leaky' })).join('\n'),
  );
  await recallOk(memory, ['ingest', file]);
  await recallOk(memory, ['remember', `note: the staging token is ${SAMPLES[0]!.secret}`, '--entity', 'staging']);

  const outputs: string[] = [
    fs.readFileSync(path.join(memory, 'journal.jsonl'), 'utf8'),
    await recallOk(memory, ['export', '--history']),
    await recallOk(memory, ['episodes', '--session', 'leaky', '--limit', '100']),
    await recallOk(memory, ['query', 'debugging the deploy token key', '--limit', '50']),
  ];

  const client = new Client({ name: 'secrets-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--memory', memory, 'mcp'], stderr: 'ignore' }));
  try {
    const calls: Record<string, Record<string, unknown>> = {
      recall_query: { query: 'what token or key did we use while debugging the deploy?', limit: 50 },
      recall_search: { query: 'staging' },
      recall_episodes: { session: 'leaky', limit: 100 },
      recall_traverse: { entity: 'staging' },
      recall_status: {},
      recall_overview: { limit: 50 },
      recall_remember: { text: `agent saw ${SAMPLES[1]!.secret} in a log` },
      recall_brief: { budget_tokens: 2000 },
    };
    assert.deepEqual(Object.keys(calls).sort(), TOOLS.map((t) => t.name).sort(), 'every tool is exercised');
    for (const [name, args] of Object.entries(calls)) {
      const r = await client.callTool({ name, arguments: args });
      assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
      outputs.push(JSON.stringify(r));
    }
  } finally {
    await client.close();
  }

  const all = outputs.join('\n');
  assert.match(all, /\[REDACTED:/, 'redaction markers are visible where secrets were');
  for (const s of SAMPLES) assert.ok(!all.includes(s.secret), `${s.kind} leaked: ${s.secret.slice(0, 12)}…`);

  const status = await recallJson(memory, ['status']);
  assert.ok(status.redactions >= SAMPLES.length + 2, `status counts redactions (${status.redactions})`);
});
