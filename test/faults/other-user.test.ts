/**
 * A real second local user (made with useradd, removed afterwards; root only, skipped otherwise)
 * against one person's memory: it cannot plant the socket folder first, cannot connect to the
 * socket, cannot read the HTTP token, and HTTP without the token is refused; in a memory folder it
 * can write to, the token and config it plants are refused, not used.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { CLI, cleanup, lockOf, onCleanup, recall, tmpMemory, track, trackMemory, waitFor, withClient } from './kit';

after(cleanup);

const isRoot = process.getuid?.() === 0;
const skip = isRoot ? false : 'needs root to create a second local user (useradd)';

let made: { name: string; uid: number; gid: number } | undefined;

/** Creates a throwaway user (once per run), deleted at cleanup. */
function otherUser(): { name: string; uid: number; gid: number } {
  if (made) return made;
  const name = `recallf${process.pid % 100000}`;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name], { stdio: 'pipe' });
  onCleanup(() => execFileSync('userdel', [name], { stdio: 'pipe' }));
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  return (made = { name, uid, gid });
}

/** Runs a bit of Node as that user; its stdout is what it prints. */
function asUser(user: { uid: number; gid: number }, script: string, args: string[] = []): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, ['-e', script, ...args], { uid: user.uid, gid: user.gid, cwd: '/' }));
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

test('another local user cannot plant the socket folder, reach the socket, read the token or use HTTP without it', { skip }, async () => {
  const user = otherUser();
  const base = tmpMemory('other-user');
  fs.chmodSync(base, 0o755); // others may look in, as in a home folder
  const tmp = path.join(base, 'tmp');
  fs.mkdirSync(tmp);
  fs.chmodSync(tmp, 0o1777); // a shared temp folder, like /tmp

  // 1. The other user creates the socket folder the service would use first, private to itself.
  const memory = path.join(base, 'a-folder-name-long-enough-to-push-the-socket-path-over-the-limit', 'and-one-more-level-of-it');
  fs.mkdirSync(memory, { recursive: true, mode: 0o700 });
  const planted = path.join(tmp, `recall-${process.getuid!()}`);
  const plant = await asUser(user, `require('fs').mkdirSync(process.argv[1], { mode: 0o700 }); console.log('planted')`, [planted]);
  assert.match(plant.out, /planted/, plant.out);
  const env = { TMPDIR: tmp, XDG_RUNTIME_DIR: '' };
  const hijacked = await recall(memory, ['remember', 'a note the other user must not see'], env);
  assert.equal(hijacked.code, 1, 'refused rather than listening in a folder the other user owns');
  assert.match(hijacked.stderr, /belongs to another user/);
  assert.deepEqual(fs.readdirSync(planted), [], 'no socket in the planted folder');

  // 2. A private runtime folder: the service runs; the other user cannot connect to its socket.
  const runtime = path.join(base, 'runtime');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const ok = await recall(memory, ['remember', 'a note the other user must not see'], { ...env, XDG_RUNTIME_DIR: runtime });
  assert.equal(ok.code, 0, ok.stderr);
  const socket = lockOf(memory)!.socket!;
  const connectScript = `require('net').connect(process.argv[1]).on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
  const tried = await asUser(user, connectScript, [socket]);
  assert.doesNotMatch(tried.out, /CONNECTED/);
  assert.match(tried.out, /EACCES|ENOENT/, tried.out);
  // The memory's own socket folder too (a short memory path puts the socket inside the 0700 folder).
  const near = tmpMemory('other-user-near');
  fs.chmodSync(path.dirname(near), 0o1777);
  await withClient(near, (c) => c.call('status', {}));
  const nearTried = await asUser(user, connectScript, [lockOf(near)!.socket!]);
  assert.doesNotMatch(nearTried.out, /CONNECTED/);

  // 3. HTTP: the token file is unreadable to the other user, and requests without it are refused.
  const port = await freePort();
  const mcp = track(
    spawn(process.execPath, [CLI, '--memory', near, 'mcp', '--http', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  let mcpLog = '';
  mcp.stderr!.on('data', (d: Buffer) => (mcpLog += d.toString()));
  await waitFor(() => fs.existsSync(path.join(near, 'mcp-http.token')) && /listening|http:\/\//i.test(mcpLog), 20_000, 'the HTTP server');
  const tokenFile = path.join(near, 'mcp-http.token');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  assert.equal(fs.statSync(near).mode & 0o777, 0o700);
  const read = await asUser(
    user,
    `try { require('fs').readFileSync(process.argv[1]); console.log('READ') } catch (e) { console.log(e.code) }`,
    [tokenFile],
  );
  assert.match(read.out, /EACCES/, read.out);
  const httpScript = `fetch('http://127.0.0.1:' + process.argv[1] + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(process.argv[2] ? { authorization: 'Bearer ' + process.argv[2] } : {}) }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) }).then((r) => console.log('STATUS', r.status), (e) => console.log('ERR', e.message))`;
  for (const token of [undefined, 'a-guess']) {
    const r = await asUser(user, httpScript, token ? [String(port), token] : [String(port)]);
    assert.match(r.out, /STATUS 401/, `${token ?? 'no token'}: ${r.out}`);
  }
  mcp.kill('SIGTERM');
});

test('in a memory folder another user can write to, the token and config it plants are refused, not used', { skip }, async () => {
  const user = otherUser();
  const base = tmpMemory('planted');
  fs.chmodSync(base, 0o755);
  const memory = trackMemory(path.join(base, 'shared-mem'));
  fs.mkdirSync(memory);
  fs.chmodSync(memory, 0o777); // as a careless chmod, or a shared mount, leaves it
  // The other user's "sync server": a listener that counts who connects.
  let contacted = 0;
  const loot = net.createServer((s) => (contacted++, s.destroy()));
  await new Promise<void>((resolve) => loot.listen(0, '127.0.0.1', resolve));
  onCleanup(() => loot.close());
  const lootPort = (loot.address() as net.AddressInfo).port;
  const plantScript = `const fs = require('fs'), [dir, port] = process.argv.slice(1);
    fs.writeFileSync(dir + '/mcp-http.token', 'attacker-known-token\\n');
    fs.writeFileSync(dir + '/config.json', JSON.stringify({ sync: { postgres: 'postgres://recall@127.0.0.1:' + port + '/postgres', table: 'loot' } }));
    console.log('planted')`;
  const plant = await asUser(user, plantScript, [memory, String(lootPort)]);
  assert.match(plant.out, /planted/, plant.out);

  // The person stores a note and serves the memory over HTTP: both refuse the folder.
  const note = await recall(memory, ['remember', "the victim's private note", '--global'], { RECALL_SYNC_PASSWORD: 'x' });
  assert.equal(note.code, 1, `refused: ${note.stdout}`);
  assert.match(note.stderr, new RegExp(`${memory}.*other users can write`));
  const port = await freePort();
  const mcp = track(
    spawn(process.execPath, [CLI, '--memory', memory, 'mcp', '--http', '--port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RECALL_MCP_TOKEN: '', RECALL_SYNC_PASSWORD: 'x' },
    }),
  );
  let mcpLog = '';
  mcp.stderr!.on('data', (d: Buffer) => (mcpLog += d.toString()));
  let exited = false;
  mcp.once('exit', () => (exited = true));
  await waitFor(() => exited || /MCP over HTTP at/.test(mcpLog), 20_000, 'the HTTP server to start or refuse');
  const episodesScript = `fetch('http://127.0.0.1:' + process.argv[1] + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer attacker-known-token' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'recall_episodes', arguments: { scope: 'all' } } }) }).then(async (r) => console.log('STATUS', r.status, await r.text()), (e) => console.log('ERR', e.message))`;
  const stolen = await asUser(user, episodesScript, [String(port)]);
  assert.doesNotMatch(stolen.out, /STATUS 200/, stolen.out);
  assert.doesNotMatch(stolen.out, /private note/);
  await waitFor(() => exited, 10_000, 'the HTTP server to exit');
  assert.match(mcpLog, /other users can write/);

  // Closing the folder is not enough while the planted files are there: each is named, with whose it is.
  fs.chmodSync(memory, 0o700);
  const again = await recall(memory, ['remember', "the victim's private note", '--global'], { RECALL_SYNC_PASSWORD: 'x' });
  assert.equal(again.code, 1);
  assert.match(again.stderr, new RegExp(`(mcp-http\\.token|config\\.json).*uid ${user.uid}`));
  // Gone, the memory works, and the planted sync server was never contacted.
  fs.rmSync(path.join(memory, 'mcp-http.token'));
  fs.rmSync(path.join(memory, 'config.json'));
  const fixed = await recall(memory, ['remember', "the victim's private note", '--global']);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(contacted, 0, 'the planted sync server is never contacted');
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
