/**
 * Who can get between a client and its service: a socket folder another user made or can write
 * to is refused, and a listener that cannot prove it owns the memory is told nothing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { processInfo } from '../../src/service/rpc/proof';
import { cleanup, connect, lockOf, onCleanup, recall, tmpMemory, trackMemory } from './kit';

after(cleanup);

/** A memory folder deep enough that its socket cannot live inside it (Unix paths stop near 104 bytes). */
function deepMemory(base: string): string {
  const dir = path.join(base, 'a-folder-name-long-enough-to-push-the-socket-path-over-the-limit', 'and-one-more-level-of-it');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return trackMemory(dir);
}

test('a socket folder another user owns, or others can write to, is refused', async () => {
  const base = tmpMemory('sockdir');
  const tmp = path.join(base, 'tmp');
  fs.mkdirSync(tmp, { mode: 0o700 });
  const memory = deepMemory(base);
  const shared = path.join(tmp, `recall-${process.getuid!()}`);
  const env = { TMPDIR: tmp, XDG_RUNTIME_DIR: '' };

  fs.mkdirSync(shared, { mode: 0o777 });
  fs.chmodSync(shared, 0o777);
  const open = await recall(memory, ['remember', 'a note for nobody else'], env);
  assert.equal(open.code, 1, 'refused');
  assert.match(open.stderr, /No private folder for the memory service's socket/);
  assert.deepEqual(fs.readdirSync(shared), [], 'no socket in the open folder');

  if (process.getuid!() === 0) {
    // Made by another user first, even with a private mode.
    fs.chmodSync(shared, 0o700);
    fs.chownSync(shared, 65534, 65534);
    const foreign = await recall(memory, ['remember', 'a note for nobody else'], env);
    assert.equal(foreign.code, 1, 'refused');
    assert.match(foreign.stderr, /belongs to another user/);
  }

  // $XDG_RUNTIME_DIR, private, comes first and is used.
  const runtime = path.join(base, 'runtime');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const ok = await recall(memory, ['remember', 'a note through the runtime folder'], { ...env, XDG_RUNTIME_DIR: runtime });
  assert.equal(ok.code, 0, ok.stderr);
  const socket = lockOf(memory)!.socket!;
  assert.ok(socket.startsWith(path.join(runtime, 'recall') + path.sep), socket);
  assert.equal(fs.statSync(path.dirname(socket)).mode & 0o777, 0o700);
  // A client with another environment finds the service through the lock.
  const again = await recall(memory, ['status', '--json'], { TMPDIR: tmp, XDG_RUNTIME_DIR: '' });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).episodes, 1);
});

test('a listener that cannot prove it owns the memory is told nothing', async () => {
  const memory = tmpMemory('impostor');
  const heard: string[] = [];
  const impostor = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        heard.push(line);
        const msg = JSON.parse(line) as { id: number };
        socket.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { version: 'dev', pid: process.pid, memory } }) + '\n');
      }
    });
  });
  await new Promise<void>((resolve) => impostor.listen(path.join(memory, 'service.sock'), resolve));
  onCleanup(() => impostor.close());
  // A lock as a real owner writes it: the impostor does not know its nonce.
  fs.writeFileSync(
    path.join(memory, 'service.lock'),
    JSON.stringify({
      pid: process.pid,
      started: 'now',
      nonce: 'a secret the impostor never saw',
      ticks: processInfo(process.pid)?.startTicks,
    }),
    { mode: 0o600 },
  );
  await assert.rejects(
    connect(memory).then((c) => c.call('remember', { text: 'private note' })),
    /could not prove it owns the folder/,
  );
  assert.ok(heard.length > 0, 'the client did reach the listener');
  for (const line of heard) assert.equal(JSON.parse(line).method, 'hello', `only hello was sent: ${line}`);
  assert.ok(!heard.some((l) => l.includes('private note')));
});
