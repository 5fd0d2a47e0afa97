/**
 * MCP sampling: with the person's consent (`recall mcp --sampling`) and a client that offers the
 * `sampling` capability, the client's model reads the notes an agent stores and what it reads lands
 * as the model's reading (agent authority, the note as evidence). The SDK's own Client over real
 * stdio against the built `recall mcp`; the model is scripted (a mock: no model runs here), answering
 * each sampling request with what the test tells it to.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, type CallToolResult, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { EXTRACTION_LIMITS } from '../src/core/ingest/extraction-prompt';
import { CLI, recall, tmpFolder, waitFor } from './helpers';

const ENV: Record<string, string> = { ...(process.env as Record<string, string>), RECALL_IDLE_EXIT_MS: '60000' };

/** What the scripted model answers next: text, an error, or an answer that never comes. */
type Script = string | Error | 'hang';

interface Session {
  client: Client;
  asked: CreateMessageRequest['params'][];
  script: Script[];
  stderr: () => string;
  memory: string;
  ws: string;
}

async function open(opts: { consent: boolean; offersSampling?: boolean }): Promise<Session> {
  const memory = tmpFolder('smp-mem');
  const ws = tmpFolder('smp-ws');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  const asked: CreateMessageRequest['params'][] = [];
  const script: Script[] = [];
  const client = new Client(
    { name: 'scripted-client', version: '1.0.0' },
    { capabilities: opts.offersSampling === false ? {} : { sampling: {} } },
  );
  if (opts.offersSampling !== false)
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params);
      const next = script.shift() ?? '[]';
      if (next instanceof Error) throw next;
      if (next === 'hang') return new Promise<never>(() => {});
      return { model: 'scripted-model', role: 'assistant', content: { type: 'text', text: next } };
    });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--memory', memory, 'mcp', ...(opts.consent ? ['--sampling'] : [])],
    env: ENV,
    stderr: 'pipe',
    cwd: ws,
  });
  let err = '';
  transport.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await client.connect(transport);
  return { client, asked, script, stderr: () => err, memory, ws };
}

async function remember(s: Session, args: Record<string, unknown>): Promise<string> {
  const r = (await s.client.callTool({ name: 'recall_remember', arguments: args })) as CallToolResult;
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  return (r.structuredContent as { id: string }).id;
}

/** A round trip after a note: a sampling request the note caused is sent before this answer. */
const roundTrip = async (s: Session): Promise<void> => void (await s.client.callTool({ name: 'recall_status', arguments: {} }));

const facts = async (s: Session): Promise<any[]> =>
  JSON.parse((await recall(s.memory, ['export', '--history'], {}, undefined, s.ws)).stdout).facts as any[];

const promptOf = (p: CreateMessageRequest['params']): string => {
  const c = p.messages[0]!.content;
  return !Array.isArray(c) && c.type === 'text' ? c.text : '';
};

describe('with consent and a client that offers sampling', () => {
  let s: Session;
  before(async () => {
    s = await open({ consent: true });
  });
  after(() => s.client.close());

  test("the client's model reads a stored note: its items land at agent authority with the note as evidence", async () => {
    const RULE = 'Never print the connection string in the status endpoint.';
    s.script.push(
      JSON.stringify([
        { turn: 1, kind: 'rule', statement: RULE, subject: 'status endpoint' },
        { turn: 1, kind: 'decision', statement: 'The team uses Fastify for the HTTP server.', subject: 'Fastify' },
        { turn: 1, subject: 'api', predicate: 'uses', object: 'Fastify' },
      ]),
    );
    const note = await remember(s, {
      text: 'The person said: never print the connection string in the status endpoint, ever (it once leaked sk-ant-abcdefghijklmnopqrstuvwxyz012345). We picked Fastify.',
    });
    await waitFor(() => /sampling \(mcp-sampling\/scripted-model\): [1-9]\d* relationship/.test(s.stderr()), 30_000, 'the reading stored');
    assert.equal(s.asked.length, 1);
    const prompt = promptOf(s.asked[0]!);
    assert.match(prompt, /never print the connection string/, 'the prompt is the extraction prompt over the note');
    assert.match(prompt, /"kind": "\.\.\."/);
    assert.doesNotMatch(prompt, /sk-ant-abcdefghij/, 'secrets are redacted before anything leaves');
    assert.equal(s.asked[0]!.includeContext, 'none');
    assert.equal(s.asked[0]!.maxTokens, EXTRACTION_LIMITS.sampleMaxTokens);

    const all = await facts(s);
    const rule = all.find((f) => f.kind === 'rule' && f.statement === RULE);
    assert.ok(rule, `the rule is stored: ${JSON.stringify(all.map((f) => f.statement ?? f.predicate))}`);
    assert.equal(rule.authority, 'agent');
    assert.deepEqual(rule.evidence, [note]);
    const decision = all.find((f) => f.kind === 'decision');
    assert.deepEqual([decision?.authority, decision?.evidence], ['agent', [note]]);
  });

  test('the items held that bear on a note are shown to the model; one it says the note restates gains the note', async () => {
    const rule = (await facts(s)).find((f) => f.kind === 'rule' && f.valid_to === null && /connection string/.test(f.statement));
    assert.ok(rule, 'the rule the first reading stored');
    s.script.push(JSON.stringify([{ turn: 1, same_as: rule.id }]));
    const asked = s.asked.length;
    const note = await remember(s, { text: 'Reminder from the review: nobody gets to see the DSN on the health page.' });
    await waitFor(() => s.stderr().includes(`from 1 turn(s) (${note})`), 30_000, 'the reading stored');
    const prompt = promptOf(s.asked[asked]!);
    assert.ok(prompt.includes(`- ${rule.id} (rule): ${rule.statement}`), `the held rule is shown with its id:\n${prompt}`);
    const now = (await facts(s)).find((f) => f.id === rule.id);
    assert.deepEqual([...now.evidence].sort(), [...rule.evidence, note].sort(), 'the note is the rule’s evidence: no second rule');
  });

  test('what is sent is bounded: a long note is cut to the per-turn limit', async () => {
    s.script.push('[]');
    await remember(s, { text: `The build runs with make. ${'filler words here '.repeat(1000)}` });
    await waitFor(() => s.asked.length === 3, 30_000, 'the third request');
    const prompt = promptOf(s.asked[2]!);
    const turn = prompt.slice(prompt.indexOf('"""') + 3, prompt.lastIndexOf('"""'));
    assert.ok(turn.length <= EXTRACTION_LIMITS.charsPerTurn + 3, `the turn sent is ${turn.length} characters`);
  });

  test('a malformed answer is rejected with a clear log and nothing is stored', async () => {
    // Notes the offline reader finds nothing in: whatever cites them came from the model's answer.
    s.script.push('Sure! The rules in this note are: always run the linter before pushing.');
    const prose = await remember(s, { text: 'Notes from the planning call: linting came up again.' });
    await waitFor(() => /did not answer with the JSON asked for/.test(s.stderr()), 30_000, 'the rejection logged');
    assert.match(
      s.stderr(),
      new RegExp(
        `scripted-model did not answer with the JSON asked for \\(it began "Sure! The rules[^"]*"\\); nothing stored from ${prose}`,
      ),
    );

    s.script.push(
      JSON.stringify([
        { turn: 1, kind: 'opinion', statement: 'Linting is nice.', subject: 'lint' },
        { turn: 7, kind: 'rule', statement: 'x', subject: 'y' },
      ]),
    );
    const dropped = await remember(s, { text: 'More notes from the planning call, on linting.' });
    await waitFor(() => /2 of 2 entries from mcp-sampling\/scripted-model were not/.test(s.stderr()), 30_000, 'the dropped entries logged');
    await roundTrip(s);
    const citing = (await facts(s)).filter((f) => f.evidence.includes(prose) || f.evidence.includes(dropped));
    assert.deepEqual(citing, [], 'nothing stored from either answer');
  });

  test('a failing or hanging model leaves the note stored and the server serving', async () => {
    s.script.push(new Error('the user declined'), 'hang');
    const failed = await remember(s, { text: 'We deploy with fly.io from the main branch.' });
    await waitFor(() => s.stderr().includes(`gave no reading of ${failed} (`), 30_000, 'the failure logged');
    assert.match(s.stderr(), /the user declined/);
    const hung = await remember(s, { text: 'Tests run with node --test, not jest.' });
    await waitFor(() => s.asked.length === 6, 30_000, 'the request that never returns');
    // The model never answers: the notes are stored and every tool keeps answering.
    const r = (await s.client.callTool({ name: 'recall_episodes', arguments: { query: 'deploy fly.io' } })) as CallToolResult;
    assert.notEqual(r.isError, true);
    assert.ok((r.structuredContent as { episodes: { id: string }[] }).episodes.some((e) => e.id === failed));
    assert.match(hung, /^ep_/);
  });
});

describe('without consent', () => {
  test('no sampling request is sent, though the client offers sampling', async () => {
    const s = await open({ consent: false });
    try {
      await remember(s, { text: 'Never commit the .env file, as a rule.' });
      await roundTrip(s);
      await remember(s, { text: 'We decided to use pnpm.' });
      await roundTrip(s);
      assert.equal(s.asked.length, 0);
      assert.doesNotMatch(s.stderr(), /sampling/i);
    } finally {
      await s.client.close();
    }
  });

  test('a client without the capability is told once on stderr, and the notes are stored', async () => {
    const s = await open({ consent: true, offersSampling: false });
    try {
      await remember(s, { text: 'Never commit the .env file, as a rule.' });
      await remember(s, { text: 'We decided to use pnpm.' });
      await roundTrip(s);
      assert.equal(s.stderr().match(/scripted-client does not offer sampling/g)?.length, 1);
    } finally {
      await s.client.close();
    }
  });

  test('--sampling with --http is refused: a stateless request cannot reach the model', async () => {
    const r = await recall(tmpFolder('smp-http'), ['mcp', '--http', '--sampling']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--sampling works over stdio only/);
  });
});
