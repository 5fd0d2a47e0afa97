/**
 * The memory service as a process: one per folder, many clients, crash safety.
 * Everything runs against real folders on disk and the built dist/service.js.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { LIMITS } from '../src/core/model/limits';
import { socketPath } from '../src/service/rpc/paths';
import { RPC_ERRORS } from '../src/service/rpc/protocol';
import { alive, recall, recallJson, recallOk, ROOT, lockOf, tmpFolder, waitFor } from './helpers';

function writer(memory: string, n: number, prefix: string): { acks: string[]; done: Promise<number>; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures/writer.ts'), memory, String(n), prefix], {
    cwd: ROOT,
    env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' },
  });
  const acks: string[] = [];
  let buf = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) if (l.startsWith('ack ')) acks.push(l.slice(4));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return { acks, done, stderr: () => err };
}

test('4 client processes writing 250 episodes each at once: all 1000 there, no duplicates, one service', async () => {
  const memory = tmpFolder('concurrent');
  const writers = ['alpha', 'beta', 'gamma', 'delta'].map((p) => writer(memory, 250, p));
  const codes = await Promise.all(writers.map((w) => w.done));
  assert.deepEqual(codes, [0, 0, 0, 0], writers.map((w) => w.stderr()).join('\n'));
  const exported = await recallJson(memory, ['export']);
  assert.equal(exported.episodes.length, 1000);
  const texts = new Set(exported.episodes.map((e: { text: string }) => e.text));
  const ids = new Set(exported.episodes.map((e: { id: string }) => e.id));
  assert.equal(texts.size, 1000, 'no duplicate texts');
  assert.equal(ids.size, 1000, 'no duplicate ids');
  for (const w of writers) for (const ack of w.acks) assert.ok(texts.has(ack.slice(ack.indexOf(' ') + 1)));
  // Every writer raced to start a service; exactly one owns the folder.
  const log = fs.readFileSync(path.join(memory, 'service.log'), 'utf8');
  assert.equal((log.match(/listening on/g) ?? []).length, 1, log);
});

test('SIGKILL in the middle of a stream of writes loses no acknowledged write', async () => {
  const memory = tmpFolder('sigkill');
  const w = writer(memory, 400, 'stream');
  await waitFor(() => w.acks.length >= 100, 30_000, '100 acknowledged writes');
  const pid = lockOf(memory)!.pid;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !alive(pid), 5000, 'service death');
  const acknowledgedBeforeKill = [...w.acks];
  // The writer keeps going: its client restarts the service and retries once.
  assert.equal(await w.done, 0, w.stderr());
  const exported = await recallJson(memory, ['export']);
  const texts = new Set(exported.episodes.map((e: { text: string }) => e.text));
  for (const ack of acknowledgedBeforeKill) assert.ok(texts.has(ack.slice(ack.indexOf(' ') + 1)), `lost ${ack}`);
  assert.equal(texts.size, 400);
  assert.notEqual(lockOf(memory)?.pid, pid, 'a new service took over');
});

test('a journal with a torn last line still loads; the torn write is dropped', async () => {
  const memory = tmpFolder('torn');
  await recallOk(memory, ['remember', 'first durable note']);
  await recallOk(memory, ['remember', 'second durable note']);
  await recallOk(memory, ['service', 'stop']);
  fs.rmSync(path.join(memory, 'snapshot.sqlite'), { force: true });
  fs.appendFileSync(path.join(memory, 'journal.jsonl'), '{"type":"episodes.add","episodes":[{"id":"ep_3","te');
  const status = await recallJson(memory, ['status']);
  assert.equal(status.episodes, 2);
  // The next write lands on a clean line and survives another restart.
  await recallOk(memory, ['remember', 'third note after repair']);
  await recallOk(memory, ['service', 'stop']);
  fs.rmSync(path.join(memory, 'snapshot.sqlite'), { force: true });
  assert.equal((await recallJson(memory, ['status'])).episodes, 3);
  assert.match(fs.readFileSync(path.join(memory, 'service.log'), 'utf8'), /torn last line/);
});

test('a corrupt snapshot is rebuilt from the journal and the log says so', async () => {
  const memory = tmpFolder('corrupt');
  for (const t of ['alpha decision', 'beta decision', 'gamma decision']) await recallOk(memory, ['remember', t]);
  const rel = (await recallOk(memory, ['relate', 'Recall', 'uses', 'sql.js'])).trim();
  await recallOk(memory, ['correct', '--wrong', rel]);
  await recallOk(memory, ['service', 'stop']);
  const snap = path.join(memory, 'snapshot.sqlite');
  assert.ok(fs.statSync(snap).size > 0, 'stop flushed a snapshot');
  fs.writeFileSync(snap, Buffer.from('this is not an sqlite database at all'));
  const status = await recallJson(memory, ['status']);
  assert.equal(status.episodes, 3);
  assert.equal(status.relationships, 1);
  assert.equal(status.current_relationships, 0, 'the correction survived the rebuild');
  assert.match(fs.readFileSync(path.join(memory, 'service.log'), 'utf8'), /unusable.*rebuilding it from the journal/);
});

test('SIGTERM flushes a snapshot that covers the whole journal', async () => {
  const memory = tmpFolder('sigterm');
  await recallOk(memory, ['remember', 'a note before shutdown']);
  const pid = lockOf(memory)!.pid;
  process.kill(pid, 'SIGTERM');
  await waitFor(() => !alive(pid), 10_000, 'clean exit');
  assert.ok(fs.existsSync(path.join(memory, 'snapshot.sqlite')));
  assert.ok(!fs.existsSync(path.join(memory, 'service.lock')), 'lock released');
  const status = await recallJson(memory, ['status']);
  assert.equal(status.events_since_snapshot, 0, 'nothing left to replay');
  assert.equal(status.episodes, 1);
});

test('a stale lock left by a dead holder does not lock the memory out', async () => {
  const memory = tmpFolder('stale');
  fs.writeFileSync(path.join(memory, 'service.lock'), JSON.stringify({ pid: 999_999_999, started: 'long ago' }));
  const r = await recall(memory, ['remember', 'works despite a stale lock']);
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual(lockOf(memory)?.pid, 999_999_999);
});

test('a lock dated before the last boot is stale even when its pid now runs a service', async () => {
  // After a reboot a lock's pid can name another process; here, another memory's live service.
  const other = tmpFolder('other');
  await recall(other, ['remember', 'the other memory']);
  const otherPid = lockOf(other)!.pid;
  const memory = tmpFolder('rebooted');
  const beforeBoot = new Date(Date.now() - (os.uptime() + 3600) * 1000).toISOString();
  fs.writeFileSync(path.join(memory, 'service.lock'), JSON.stringify({ pid: otherPid, started: beforeBoot }));
  const r = await recall(memory, ['remember', 'works after a reboot']);
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual(lockOf(memory)?.pid, otherPid);
  assert.equal(lockOf(other)?.pid, otherPid);
  assert.ok(alive(otherPid), 'the other memory keeps its service');
});

/** Speaks the service's wire protocol by hand: one JSON message a line, answers matched by id. */
async function rawSession(memory: string): Promise<{ ask(method: string, params?: unknown): Promise<any>; close(): void }> {
  const socket = net.connect(socketPath(memory));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const waiting = new Map<number, (msg: any) => void>();
  let buf = '';
  socket.on('data', (chunk) => {
    buf += chunk.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg);
    }
  });
  let id = 0;
  return {
    ask: (method, params) =>
      new Promise((resolve) => {
        waiting.set(++id, resolve);
        socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      }),
    close: () => socket.destroy(),
  };
}

test('params are checked at the service door: a malformed request gets invalid_input naming the field, with what the method takes', async () => {
  const memory = tmpFolder('params');
  await recallOk(memory, ['remember', 'the service checks what it is sent']);
  const s = await rawSession(memory);
  try {
    const hello = await s.ask('hello', { surface: 'robot' });
    assert.equal(hello.error.code, RPC_ERRORS.memory);
    assert.equal(hello.error.data.code, 'invalid_input');
    assert.match(hello.error.message, /"surface"/);
    assert.match(hello.error.data.hint, /hello takes \{ surface: "cli" \| "extension" \| "mcp" \| "lm"/);
    assert.equal((await s.ask('ping')).error.code, RPC_ERRORS.invalidRequest, 'no method before hello');
    assert.deepEqual((await s.ask('hello', { surface: 'cli' })).result.memory, memory);

    const cases: [string, unknown, RegExp, RegExp][] = [
      [
        'query',
        { query: 42 },
        /"query"/,
        /query takes \{ query: string, limit\?: number, history\?: boolean, mode\?: "keyword" \| "vector" \| "hybrid", project\?: string, scope\?: "project" \| "all" \}/,
      ],
      [
        'search',
        { query: 'x', limit: '5' },
        /"limit"/,
        /search takes \{ query: string, limit\?: number, project\?: string, scope\?: "project" \| "all" \}/,
      ],
      [
        'ingest',
        { episodes: [{ text: 'fine' }, { text: ['not', 'text'] }] },
        /"episodes\.1\.text"/,
        /ingest takes \{ episodes: \{ text: string/,
      ],
      [
        'relate',
        { subject: 'a', predicate: 'b', object: 'c', prior: 'certain' },
        /"prior"/,
        /prior\?: "explicit" \| "inferred" \| "speculative"/,
      ],
      ['browse.episodesById', { ids: 'ep_1' }, /"ids"/, /ids: string\[\]/],
    ];
    for (const [method, params, field, hint] of cases) {
      const r = await s.ask(method, params);
      assert.equal(r.error?.code, RPC_ERRORS.memory, `${method}: ${JSON.stringify(r)}`);
      assert.equal(r.error.data.code, 'invalid_input', method);
      assert.match(r.error.message, new RegExp(`^Invalid params for ${method.replace('.', '\\.')}: `), method);
      assert.match(r.error.message, field, method);
      assert.match(r.error.data.hint, hint, method);
    }
    // Values are still the memory's to judge, with its own words; absent and null both mean "not given".
    assert.match(
      (await s.ask('query', { query: 'x', limit: 100_000 })).error.message,
      new RegExp(`limit must be a whole number from 1 to ${LIMITS.query}`),
    );
    assert.ok(Array.isArray((await s.ask('search', { query: 'service', limit: null })).result));
    assert.equal((await s.ask('frobnicate', {})).error.code, RPC_ERRORS.methodNotFound);
  } finally {
    s.close();
  }
  const status = await recallJson(memory, ['status']);
  assert.equal(status.episodes, 1, 'nothing malformed was stored');
  assert.equal(status.relationships, 0);
});
