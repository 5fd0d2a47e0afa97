/**
 * The MCP server as a real MCP client sees it: the SDK's own `Client` over stdio (spawning the
 * built `recall mcp`) and over Streamable HTTP (`recall mcp --http`), against a memory seeded
 * through the CLI with known content. Every protocol version the SDK supports is negotiated, every
 * tool is called and its content checked, and the HTTP guards (Host, Origin, token, size) are probed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { BRIEF_MIN_TOKENS, LIMIT_DEFAULTS, LIMITS } from '../src/core/model/limits';
import { CLI, onCleanup, recallJson, recallOk, ROOT, tmpFolder } from './helpers';

const EXAMPLES = path.join(ROOT, 'examples', 'transcripts');
const TOOL_NAMES = [
  'recall_query',
  'recall_search',
  'recall_episodes',
  'recall_traverse',
  'recall_status',
  'recall_overview',
  'recall_remember',
  'recall_brief',
];
const ENV: Record<string, string> = { ...(process.env as Record<string, string>), RECALL_IDLE_EXIT_MS: '60000' };
delete ENV.RECALL_MCP_TOKEN;

const children: ChildProcess[] = [];
const clients: Client[] = [];

// Before the memory folders go: the servers and their clients hold services open in them.
onCleanup(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const child of children.splice(0)) await stop(child);
});

// ---- plumbing ------------------------------------------------------------------------------------

/**
 * Wraps a client transport: asks for a given protocol version in `initialize` (the SDK Client always
 * asks for the latest), remembers the version the server answered, and records transport errors
 * (a non-JSON line on stdout would show up here).
 */
class VersionedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: unknown) => void;
  negotiated?: string;
  errors: Error[] = [];

  constructor(
    readonly inner: Transport,
    private readonly version?: string,
  ) {}

  start(): Promise<void> {
    this.inner.onmessage = (m, extra) => {
      const result = (m as { result?: { protocolVersion?: unknown } }).result;
      if (result && typeof result.protocolVersion === 'string') this.negotiated = result.protocolVersion;
      this.onmessage?.(m, extra);
    };
    this.inner.onerror = (e) => {
      this.errors.push(e);
      this.onerror?.(e);
    };
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.version && 'method' in message && message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: this.version } } as JSONRPCMessage;
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
}

function stdioTransport(memory: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--memory', memory, 'mcp'],
    env: ENV,
    stderr: 'pipe',
    cwd: ROOT,
  });
}

async function connect(inner: Transport, version?: string): Promise<{ client: Client; transport: VersionedTransport }> {
  const transport = new VersionedTransport(inner, version);
  const client = new Client({ name: 'recall-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

interface HttpServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** `recall mcp --http --port 0`; the real URL is read from its stderr. */
async function startHttp(memory: string, extra: string[] = [], env: Record<string, string> = {}): Promise<HttpServer> {
  const child = spawn(process.execPath, [CLI, '--memory', memory, 'mcp', '--http', '--port', '0', ...extra], {
    env: { ...ENV, ...env },
    cwd: ROOT,
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL from recall mcp --http: ${err}`)), 15_000);
    child.stderr!.on('data', () => {
      const m = /MCP over HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`recall mcp --http exited ${code}: ${err}`)));
  });
  return { url, child, stderr: () => err };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The bearer token of the seeded memory's HTTP servers (its generated mcp-http.token), sent by default. */
let auth: Record<string, string> = {};

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...headers },
    body,
  });
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

// ---- the seeded memory ---------------------------------------------------------------------------

interface Seed {
  memory: string;
  noteId: string;
  storageEpisode: string;
  relId: string;
}

async function seed(): Promise<Seed> {
  const memory = tmpFolder('mcp');
  await recallOk(memory, ['ingest', ...fs.readdirSync(EXAMPLES).map((f) => path.join(EXAMPLES, f))]);
  const noteId = (
    await recallOk(memory, ['remember', 'Dana prefers pull requests under 400 lines', '--entity', 'Dana', '--session', 'notes'])
  ).trim();
  const storageEpisode = (await recallJson(memory, ['episodes', 'go with sql.js']))[0].id as string;
  const relId = (await recallOk(memory, ['relate', 'Recall', 'uses', 'sql.js', '--evidence', storageEpisode])).trim();
  return { memory, noteId, storageEpisode, relId };
}

const episodeCount = async (memory: string): Promise<number> => (await recallJson(memory, ['status'])).episodes;

// ---- every tool, on each transport ---------------------------------------------------------------

/** The same checks over stdio and HTTP: content, citations, schemas, authority, rejected writes. */
function toolSuite(
  transportName: 'stdio' | 'http',
  getSeed: () => Seed,
  open: (version?: string) => Promise<{ client: Client; transport: VersionedTransport }>,
): void {
  let client: Client;
  let transport: VersionedTransport;
  let tools: Tool[];
  const validator = new AjvJsonSchemaValidator();

  before(async () => {
    ({ client, transport } = await open());
    tools = (await client.listTools()).tools;
  });

  /** Calls a tool and checks that a successful result's structuredContent matches the listed outputSchema. */
  async function ok(name: string, args: Record<string, unknown>): Promise<{ text: string; data: any }> {
    const r = await call(client, name, args);
    assert.notEqual(r.isError, true, `${name} failed: ${textOf(r)}`);
    const tool = tools.find((t) => t.name === name)!;
    assert.ok(tool.outputSchema, `${name} has an output schema`);
    assert.ok(r.structuredContent, `${name} returns structuredContent`);
    const check = validator.getValidator(tool.outputSchema as never)(r.structuredContent);
    assert.ok(check.valid, `${name} structuredContent matches its outputSchema: ${check.errorMessage}`);
    return { text: textOf(r), data: r.structuredContent };
  }

  async function fails(name: string, args: Record<string, unknown>, message: RegExp): Promise<string> {
    const r = await call(client, name, args);
    assert.equal(r.isError, true, `${name}(${JSON.stringify(args).slice(0, 80)}) should fail: ${textOf(r)}`);
    assert.equal(r.structuredContent, undefined);
    const text = textOf(r);
    assert.match(text, message);
    assert.match(text, /\nHint: \S/, 'a hint the model can act on');
    assert.doesNotMatch(text, /MCP error/, 'a tool result, not a protocol error dressed up');
    return text;
  }

  test(`${transportName}: tools/list has every catalogue tool; server says who it is and when to use memory`, async () => {
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    assert.equal(client.getServerVersion()?.name, 'recall');
    assert.match(client.getInstructions() ?? '', /recall_query/);
    assert.ok(client.getServerCapabilities()?.tools);
    assert.deepEqual(transport.errors, []);
  });

  test(`${transportName}: recall_query returns the seeded fact and the turn that holds the answer, cited`, async () => {
    const { memory, storageEpisode, relId } = getSeed();
    void memory;
    const { text, data } = await ok('recall_query', { query: 'which storage engine did we pick for Recall?', limit: 5 });
    assert.ok(data.episodes.length >= 1 && data.episodes.length <= 5);
    const hit = data.episodes.find((e: any) => e.id === storageEpisode);
    assert.ok(hit, `episode ${storageEpisode} is among ${data.episodes.map((e: any) => e.id)}`);
    assert.match(hit.text, /go with sql\.js/);
    assert.equal(hit.source, '2025-03-04-storage-choice.jsonl');
    assert.equal(hit.session, 'storage-choice');
    assert.equal(hit.time, '2025-03-04T09:14:05.000Z');
    assert.equal(typeof hit.score, 'number');
    const fact = data.facts.find((f: any) => f.id === relId);
    assert.ok(fact, 'the related fact comes back');
    assert.deepEqual([fact.subject, fact.predicate, fact.object], ['Recall', 'uses', 'sql.js']);
    assert.deepEqual(fact.evidence, [storageEpisode]);
    assert.ok(fact.effective_confidence > 0.5 && fact.effective_confidence <= 1);
    // Every episode in the result is cited in the text the model reads.
    for (const e of data.episodes)
      assert.match(text, new RegExp(`\\[${e.id} · session ${e.session}.* · score \\d`), `citation for ${e.id}`);
    assert.match(text, new RegExp(`${relId}: Recall —uses→ sql\\.js .*evidence ${storageEpisode}`));
  });

  test(`${transportName}: recall_search finds entities by name`, async () => {
    const { data, text } = await ok('recall_search', { query: 'Recall' });
    assert.equal(data.entities[0].name, 'Recall');
    assert.ok(data.entities[0].relationships >= 1);
    assert.match(text, /Recall.*1 fact/);
    const dana = await ok('recall_search', { query: 'dana', limit: 1 });
    assert.deepEqual(
      dana.data.entities.map((e: any) => e.name),
      ['Dana'],
    );
    const none = await ok('recall_search', { query: 'zzyzx-nothing' });
    assert.deepEqual(none.data.entities, []);
    assert.match(none.text, /No entity matches "zzyzx-nothing"/);
  });

  test(`${transportName}: recall_episodes filters by session, text and dates, with coordinates`, async () => {
    const { noteId } = getSeed();
    const ci = await ok('recall_episodes', { session: 'ci-flakes' });
    assert.equal(ci.data.episodes.length, 5);
    assert.ok(ci.data.episodes.every((e: any) => e.session === 'ci-flakes' && e.source === '2025-03-11-ci-flakes.jsonl'));
    for (const e of ci.data.episodes) assert.ok(ci.text.includes(`[${e.id} · session ci-flakes`), `citation for ${e.id}`);
    const tz = await ok('recall_episodes', { query: 'timezone', since: '2025-03-10', until: '2025-03-12' });
    assert.ok(tz.data.episodes.length >= 1);
    assert.ok(tz.data.episodes.every((e: any) => e.time >= '2025-03-10' && e.time < '2025-03-13'));
    assert.ok(tz.data.episodes.some((e: any) => /timezone/.test(e.text)));
    const notes = await ok('recall_episodes', { session: 'notes', limit: 1 });
    assert.deepEqual(
      notes.data.episodes.map((e: any) => [e.id, e.authority]),
      [[noteId, 'user']],
    );
    const none = await ok('recall_episodes', { query: 'timezone', until: '2025-03-01' });
    assert.deepEqual(none.data.episodes, []);
  });

  test(`${transportName}: recall_traverse walks from an entity; an unknown one gets the nearest names`, async () => {
    const { relId } = getSeed();
    const { data, text } = await ok('recall_traverse', { entity: 'recall', depth: 2 });
    assert.equal(data.root.name, 'Recall');
    assert.ok(data.facts.some((f: any) => f.id === relId && f.object === 'sql.js'));
    assert.match(text, /Recall —uses→ sql\.js/);
    await fails('recall_traverse', { entity: 'Recalll' }, /No entity named "Recalll"[\s\S]*Did you mean: .*Recall/);
  });

  test(`${transportName}: recall_status counts what the CLI counts`, async () => {
    const { memory } = getSeed();
    const cli = await recallJson(memory, ['status']);
    const { data, text } = await ok('recall_status', {});
    assert.equal(data.memory, memory);
    assert.equal(data.episodes, cli.episodes);
    assert.equal(data.entities, cli.entities);
    assert.equal(data.relationships, cli.relationships);
    assert.equal(data.service_pid, cli.service_pid);
    assert.match(text, new RegExp(`${data.episodes} episodes, ${data.entities} entities`));
  });

  test(`${transportName}: recall_overview lists top entities and recent sessions`, async () => {
    const { data, text } = await ok('recall_overview', { limit: 50 });
    const names = data.entities.map((e: any) => e.name);
    for (const n of ['Recall', 'Dana']) assert.ok(names.includes(n), `${n} in ${names}`);
    const sessions = data.sessions.map((s: any) => s.session);
    for (const s of ['storage-choice', 'ci-flakes', 'notes']) assert.ok(sessions.includes(s), `${s} in ${sessions}`);
    assert.match(text, /Top entities:[\s\S]*Recent sessions:[\s\S]*ci-flakes: 5 episode\(s\)/);
    const bounded = await ok('recall_overview', { limit: 1 });
    assert.equal(bounded.data.entities.length, 1);
  });

  test(`${transportName}: recall_brief cites the person's note and real facts, within its budget`, async () => {
    const { noteId } = getSeed();
    const { data, text } = await ok('recall_brief', {});
    assert.match(text, /^Recall brief \(/);
    assert.ok(text.includes(`[${noteId}] `), `the person's note is briefed:\n${text}`);
    assert.equal(data.tokens, Math.ceil(text.length / 4));
    assert.ok(data.tokens <= LIMIT_DEFAULTS.brief, `${data.tokens} tokens`);
    for (const id of text.match(/\[rel_[^\]]+\]/g) ?? [])
      assert.ok(
        data.facts.some((f: any) => `[${f.id}]` === id),
        `${id} in facts`,
      );
    const small = await ok('recall_brief', { budget_tokens: BRIEF_MIN_TOKENS });
    assert.ok(small.data.tokens <= BRIEF_MIN_TOKENS, small.text);
    await fails('recall_brief', { budget_tokens: BRIEF_MIN_TOKENS - 1 }, /Invalid arguments for recall_brief[\s\S]*budget_tokens/);
  });

  test(`${transportName}: recall_remember stores at agent authority, is found again, and is idempotent`, async () => {
    const { memory } = getSeed();
    const session = `mcp-${transportName}`;
    const note = `Over ${transportName} the agent noted that the release train leaves on Thursdays`;
    const { data, text } = await ok('recall_remember', { text: note, entities: ['release train'], session });
    assert.match(data.id, /^ep_\d+$/);
    assert.equal(data.duplicate, false);
    assert.equal(text, `Remembered as ${data.id}.`);
    const stored = await recallJson(memory, ['episodes', '--session', session]);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].id, data.id);
    assert.equal(stored[0].text, note);
    assert.equal(stored[0].authority, 'agent', 'a model can never write at human or user authority');
    assert.deepEqual(stored[0].entities, ['release train']);
    const again = await ok('recall_remember', { text: note, entities: ['release train'], session });
    assert.deepEqual(again.data, { id: data.id, duplicate: true });
    const found = await ok('recall_query', { query: 'when does the release train leave?' });
    assert.ok(found.data.episodes.some((e: any) => e.id === data.id && e.authority === 'agent'));
  });

  test(`${transportName}: rejected calls return isError with a hint and write nothing`, async () => {
    const { memory } = getSeed();
    const before = await episodeCount(memory);
    const outOfRange = /Invalid arguments for recall_\w+[\s\S]*(limit|depth|min_confidence)/;
    await fails('recall_query', { query: 'sql.js', limit: LIMITS.query + 1 }, outOfRange);
    await fails('recall_query', { query: 'sql.js', limit: 0 }, outOfRange);
    await fails('recall_query', { query: 'sql.js', limit: 2.5 }, outOfRange);
    await fails('recall_search', { query: 'Recall', limit: -1 }, outOfRange);
    await fails('recall_episodes', { limit: LIMITS.episodes + 1 }, outOfRange);
    await fails('recall_overview', { limit: 1e9 }, outOfRange);
    await fails('recall_traverse', { entity: 'Recall', depth: LIMITS.depth + 1 }, outOfRange);
    await fails('recall_traverse', { entity: 'Recall', min_confidence: 1.5 }, outOfRange);
    await fails('recall_query', { query: '' }, /Invalid arguments for recall_query[\s\S]*query/);
    await fails('recall_query', {}, /Invalid arguments for recall_query[\s\S]*query/);
    await fails('recall_query', { query: 42 }, /Invalid arguments for recall_query/);
    await fails('recall_episodes', { since: 'last tuesday' }, /Invalid arguments for recall_episodes[\s\S]*since/);
    await fails('recall_remember', { text: '' }, /Invalid arguments for recall_remember/);
    await fails('recall_remember', { text: 'x'.repeat(LIMITS.noteChars + 1) }, /Invalid arguments for recall_remember/);
    await fails(
      'recall_remember',
      { text: 'a valid note', entities: 'not-a-list' },
      /Invalid arguments for recall_remember[\s\S]*entities/,
    );
    await fails(
      'recall_remember',
      { text: 'a valid note', entities: Array.from({ length: LIMITS.noteEntities + 1 }, (_, i) => `e${i}`) },
      /Invalid arguments/,
    );
    await fails('recall_remember', { text: 'a valid note', session: '' }, /Invalid arguments/);
    await fails('recall_remember', { text: 'a valid note', entities: [''] }, /Invalid arguments/);
    const unknown = await call(client, 'recall_delete_everything', {});
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /Unknown tool "recall_delete_everything"[\s\S]*Hint: the tools are recall_query/);
    assert.equal(await episodeCount(memory), before, 'no rejected call wrote an episode');
    assert.deepEqual(transport.errors, []);
  });
}

// ---- stdio ---------------------------------------------------------------------------------------

describe('stdio: the SDK Client against `recall mcp`', () => {
  let s: Seed;
  before(async () => {
    s = await seed();
  });

  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    test(`negotiates protocol version ${version}`, async () => {
      const { client, transport } = await connect(stdioTransport(s.memory), version);
      assert.equal(transport.negotiated, version);
      assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
      const r = await call(client, 'recall_search', { query: 'Dana' });
      assert.equal((r.structuredContent as any).entities[0].name, 'Dana');
      await client.close();
    });
  }

  test('an unsupported version is answered with the latest', async () => {
    const { client, transport } = await connect(stdioTransport(s.memory), '1999-01-01');
    assert.equal(transport.negotiated, LATEST_PROTOCOL_VERSION);
    await client.ping();
    await client.close();
  });

  describe('every tool', () => {
    toolSuite(
      'stdio',
      () => s,
      (v) => connect(stdioTransport(s.memory), v),
    );
  });

  test('stdout carries only JSON-RPC frames; logs go to stderr', async () => {
    const memory = tmpFolder('mcp-stdout'); // no service yet: starting it logs
    const child = spawn(process.execPath, [CLI, '--memory', memory, 'mcp'], { env: ENV, cwd: ROOT });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const send = (m: unknown): boolean => child.stdin.write(JSON.stringify(m) + '\n');
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'recall_remember', arguments: { text: 'stdout hygiene note' } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'recall_query', arguments: { query: 'hygiene' } } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    const deadline = Date.now() + 20_000;
    while ((out.match(/\n/g) ?? []).length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const lines = out.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 4, out);
    for (const line of lines) {
      const m = JSON.parse(line);
      assert.equal(m.jsonrpc, '2.0');
      assert.ok('result' in m, line.slice(0, 200));
    }
    assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), [1, 2, 3, 4]);
    assert.match(err, /starting the memory service/, 'the service start is logged, on stderr');
    assert.equal(child.exitCode, 0, 'stdin closing ends the server cleanly');
  });

  test('when the memory service cannot start, tools say to continue without memory (no protocol error)', async () => {
    const dir = tmpFolder('mcp-broken');
    fs.writeFileSync(path.join(dir, 'a-file'), 'not a folder');
    const { client } = await connect(stdioTransport(path.join(dir, 'a-file', 'memory')));
    assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length, 'listing needs no memory');
    for (const [name, args] of [
      ['recall_status', {}],
      ['recall_query', { query: 'anything' }],
      ['recall_remember', { text: 'a note that cannot be stored' }],
    ] as const) {
      const r = await call(client, name, args);
      assert.equal(r.isError, true, name);
      assert.match(textOf(r), /unavailable[\s\S]*Hint: Continue without memory/, name);
    }
    await client.ping();
    await client.close();
  });
});

// ---- Streamable HTTP -----------------------------------------------------------------------------

describe('Streamable HTTP: the SDK Client against `recall mcp --http`', () => {
  let s: Seed;
  let server: HttpServer;
  before(async () => {
    s = await seed();
    server = await startHttp(s.memory);
    auth = { authorization: `Bearer ${fs.readFileSync(path.join(s.memory, 'mcp-http.token'), 'utf8').trim()}` };
  });

  const httpTransport = (headers: Record<string, string> = {}): StreamableHTTPClientTransport =>
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...auth, ...headers } } });

  test('without a token given, one is generated into the memory folder (0600), named on stderr, reused and required', async () => {
    const file = path.join(s.memory, 'mcp-http.token');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(server.stderr().includes(`bearer token in ${file}`), server.stderr());
    assert.equal((await post(server.url, PING, { authorization: '' })).status, 401, 'no token, no entry');
    assert.equal((await post(server.url, PING)).status, 200);
    const again = await startHttp(s.memory);
    assert.equal((await post(again.url, PING)).status, 200, 'the second server reuses the same token');
    await stop(again.child);
  });

  test('RECALL_MCP_TOKEN, else --token-file, is the token; neither is warned about', async () => {
    const file = path.join(s.memory, 'other.token');
    fs.writeFileSync(file, 'from-a-file\n', { mode: 0o600 });
    const fromFile = await startHttp(s.memory, ['--token-file', file]);
    assert.equal((await post(fromFile.url, PING, { authorization: 'Bearer from-a-file' })).status, 200);
    assert.equal((await post(fromFile.url, PING)).status, 401, "the generated token is not this server's");
    const fromEnv = await startHttp(s.memory, ['--token-file', file], { RECALL_MCP_TOKEN: 'from-the-env' });
    assert.equal((await post(fromEnv.url, PING, { authorization: 'Bearer from-the-env' })).status, 200);
    assert.equal((await post(fromEnv.url, PING, { authorization: 'Bearer from-a-file' })).status, 401);
    for (const started of [fromFile, fromEnv]) {
      assert.doesNotMatch(started.stderr(), /warning/);
      await stop(started.child);
    }
  });

  test('serves on 127.0.0.1 at /mcp', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    test(`negotiates protocol version ${version}`, async () => {
      const { client, transport } = await connect(httpTransport(), version);
      assert.equal(transport.negotiated, version);
      assert.equal((transport.inner as StreamableHTTPClientTransport).protocolVersion, version, 'sent as mcp-protocol-version');
      assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
      const r = await call(client, 'recall_search', { query: 'Dana' });
      assert.equal((r.structuredContent as any).entities[0].name, 'Dana');
      await client.close();
    });
  }

  test('an unsupported version is answered with the latest; an unsupported version header is a 400', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const res = await post(server.url, JSON.stringify(init));
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as any).result.protocolVersion, LATEST_PROTOCOL_VERSION);
    const bad = await post(server.url, PING, { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).jsonrpc, '2.0');
  });

  describe('every tool', () => {
    toolSuite(
      'http',
      () => s,
      (v) => connect(httpTransport(), v),
    );
  });

  test('a foreign Host or Origin is refused with 403 (DNS rebinding)', async () => {
    const port = new URL(server.url).port;
    const foreign: Record<string, string>[] = [
      { host: `evil.example:${port}` },
      { host: 'localhost' },
      { origin: 'http://evil.example' },
      { origin: `http://evil.example:${port}` },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      // fetch will not let us set Host; node:http will.
      const res = await rawPost(server.url, PING, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.json.error.code, -32600);
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const res = await rawPost(server.url, PING, { origin });
      assert.equal(res.status, 200, origin);
    }
  });

  test('a body over the size limit is refused with 413, with or without Content-Length', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'recall_remember', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const before = await episodeCount(s.memory);
    const res = await post(server.url, big);
    assert.equal(res.status, 413);
    assert.match(((await res.json()) as any).error.message, /too large/);
    const chunked = await rawPost(server.url, big, {}, true);
    assert.equal(chunked.status, 413);
    assert.equal(await episodeCount(s.memory), before);
    assert.equal((await post(server.url, PING)).status, 200, 'still serving');
  });

  test('GET and DELETE are 405 (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.url, { method, headers: { accept: 'text/event-stream', ...auth }, signal: AbortSignal.timeout(5000) });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
    }
  });

  test('with --token (warned about: ps shows it), requests without the right bearer token get 401; with it the Client works', async () => {
    const secured = await startHttp(s.memory, ['--token', 's3cret-token']);
    assert.match(secured.stderr(), /warning: --token on the command line is visible/);
    const none = await post(secured.url, PING, { authorization: '' });
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(((await none.json()) as any).jsonrpc, '2.0');
    assert.equal((await post(secured.url, PING, { authorization: 'Bearer wrong' })).status, 401);
    assert.equal((await post(secured.url, PING, { authorization: 's3cret-token' })).status, 401, 'the Bearer scheme is required');
    const transport = new StreamableHTTPClientTransport(new URL(secured.url), {
      requestInit: { headers: { authorization: 'Bearer s3cret-token' } },
    });
    const { client } = await connect(transport);
    const r = await call(client, 'recall_status', {});
    assert.equal((r.structuredContent as any).memory, s.memory);
    await client.close();
    await stop(secured.child);
  });

  test('SIGTERM shuts the HTTP server down cleanly', async () => {
    const other = await startHttp(s.memory);
    assert.equal((await post(other.url, PING)).status, 200);
    await stop(other.child);
    assert.equal(other.child.exitCode, 0);
    assert.match(other.stderr(), /shutting down/);
  });
});

/** A POST through node:http, which (unlike fetch) lets us set Host and send without Content-Length. */
async function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; json: any }> {
  const http = await import('node:http');
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }),
          ...auth,
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.slice(i, i + 64 * 1024));
      req.end();
    } else req.end(body);
  });
}
