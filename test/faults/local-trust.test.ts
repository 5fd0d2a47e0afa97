/**
 * The person's own files, against another local user who can write where the memory lives, and
 * against a slip: a memory folder (or its token, config, journal) that others can write to is
 * refused with the fix named; `export --out` never writes into the memory folder. Runs as any
 * user (the same attack by a real second user is in other-user.test.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { CLI, cleanup, recall, spawn, tmpMemory, track, trackMemory, waitFor } from './kit';

after(cleanup);

const skip = process.platform === 'win32' ? 'Unix permissions' : false;
const quoted = (s: string): RegExp => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** A TCP listener standing in for a sync server: counts who connects, answers nothing. */
async function listener(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n, close: () => server.close() };
}

test('a memory folder that other users can write to is refused, naming the folder and the fix', { skip }, async () => {
  const memory = tmpMemory('shared-folder');
  fs.chmodSync(memory, 0o777);
  const r = await recall(memory, ['remember', 'a private note']);
  assert.equal(r.code, 1, `refused: ${r.stdout}${r.stderr}`);
  assert.match(r.stderr, quoted(memory));
  assert.match(r.stderr, /other users can write/);
  assert.match(r.stderr, quoted(`chmod 700 ${memory}`));
  assert.equal(fs.existsSync(path.join(memory, 'journal.jsonl')), false, 'nothing written into it');

  // The fix it names works.
  fs.chmodSync(memory, 0o700);
  const fixed = await recall(memory, ['remember', 'a private note']);
  assert.equal(fixed.code, 0, fixed.stderr);
});

test('a folder inside one others can write to without the sticky bit is refused (they could replace it)', { skip }, async () => {
  const base = tmpMemory('open-parent');
  fs.chmodSync(base, 0o777);
  const memory = trackMemory(path.join(base, 'memory'));
  fs.mkdirSync(memory, { mode: 0o700 });
  const r = await recall(memory, ['remember', 'a private note']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, quoted(base));
  assert.match(r.stderr, /sticky/);
  // A sticky folder (as /tmp) lets nobody rename or remove what others made in it.
  fs.chmodSync(base, 0o1777);
  const fixed = await recall(memory, ['remember', 'a private note']);
  assert.equal(fixed.code, 0, fixed.stderr);
});

test('an HTTP token file others can write to is refused, and the token in it is not accepted', { skip }, async () => {
  const memory = tmpMemory('shared-token');
  const token = path.join(memory, 'mcp-http.token');
  fs.writeFileSync(token, 'planted-token\n');
  fs.chmodSync(token, 0o666);
  const port = await freePort();
  const mcp = track(
    spawn(process.execPath, [CLI, '--memory', memory, 'mcp', '--http', '--port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RECALL_MCP_TOKEN: '' },
    }),
  );
  let stderr = '';
  mcp.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  mcp.once('exit', () => (exited = true));
  await waitFor(() => exited || /MCP over HTTP at/.test(stderr), 20_000, 'the HTTP server to start or refuse');
  const status = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { authorization: 'Bearer planted-token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  }).then(
    (res) => res.status,
    () => 'no server',
  );
  assert.notEqual(status, 200, 'the planted token opens nothing');
  await waitFor(() => exited, 10_000, 'the HTTP server to exit');
  assert.match(stderr, quoted(token));
  assert.match(stderr, /other users can write/);
  assert.match(stderr, quoted(`chmod 600 ${token}`));
});

test('a config.json others can write to is refused before its sync server is contacted', { skip }, async () => {
  const memory = tmpMemory('shared-config');
  const server = await listener();
  try {
    const config = path.join(memory, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ sync: { postgres: `postgres://loot@127.0.0.1:${server.port}/postgres`, table: 'loot' } }));
    fs.chmodSync(config, 0o666);
    const r = await recall(memory, ['remember', 'a private note'], { RECALL_SYNC_PASSWORD: 'x' });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, quoted(config));
    assert.match(r.stderr, quoted(`chmod 600 ${config}`));
    assert.equal(server.connections(), 0, 'the planted sync server is never contacted');
  } finally {
    server.close();
  }
});

test('a journal others can write to is refused', { skip }, async () => {
  const memory = tmpMemory('shared-journal');
  assert.equal((await recall(memory, ['remember', 'a private note'])).code, 0);
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  const journal = path.join(memory, 'journal.jsonl');
  fs.chmodSync(journal, 0o666);
  const r = await recall(memory, ['query', 'private note']);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stderr, quoted(journal));
  fs.chmodSync(journal, 0o600);
  assert.equal((await recall(memory, ['query', 'private note'])).code, 0);
});

test('export refuses to write into the memory folder, however the path is spelt', async () => {
  const memory = tmpMemory('export-into');
  assert.equal((await recall(memory, ['remember', 'the note that must survive the export'])).code, 0);
  const journal = path.join(memory, 'journal.jsonl');
  const before = fs.readFileSync(journal);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-export-out-'));
  try {
    fs.symlinkSync(journal, path.join(outside, 'link-to-journal.json'));
    fs.symlinkSync(memory, path.join(outside, 'link-to-memory'));
    fs.symlinkSync(path.join(memory, 'export.json'), path.join(outside, 'dangling.json'));
    fs.mkdirSync(path.join(memory, 'sub'));
    fs.symlinkSync(path.join(memory, 'sub'), path.join(outside, 'link-to-sub'));
    fs.linkSync(journal, path.join(outside, 'hard-link.json'));
    const targets = [
      journal,
      `${memory}/not-there/../journal.jsonl`,
      path.join(memory, 'export.json'),
      path.join(outside, 'link-to-journal.json'),
      path.join(outside, 'link-to-memory', 'snapshot.sqlite'),
      path.join(outside, 'dangling.json'),
      // The system goes through the link, then up: into the memory folder, whatever the spelling says.
      `${outside}/link-to-sub/../export.json`,
      path.join(outside, 'hard-link.json'),
    ];
    for (const out of targets) {
      const r = await recall(memory, ['export', '--out', out]);
      assert.equal(r.code, 1, `${out}: ${r.stderr}`);
      assert.match(r.stderr, /inside the memory folder/, out);
      assert.ok(fs.readFileSync(journal).equals(before), `${out}: the journal is untouched`);
    }
    assert.equal(fs.existsSync(path.join(memory, 'export.json')), false);
    // Outside the folder it writes, and the memory still reads its journal after a restart.
    const good = path.join(outside, 'export.json');
    assert.equal((await recall(memory, ['export', '--out', good])).code, 0);
    assert.match(fs.readFileSync(good, 'utf8'), /the note that must survive the export/);
    assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
    const q = await recall(memory, ['episodes', 'survive', '--json']);
    assert.equal(q.code, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout).length, 1);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
