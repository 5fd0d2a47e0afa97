/**
 * SIGKILL at random moments while two clients write (between writes, mid-append, mid-snapshot):
 * every acknowledged write is there once afterwards, and every writer finishes.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { alive, assertAllOnce, cleanup, lockOf, ROOT, spawn, tmpMemory, track, waitFor } from './kit';

after(cleanup);

function writer(memory: string, n: number, prefix: string): { acks: string[]; done: Promise<number>; stderr: () => string } {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures/writer.ts'), memory, String(n), prefix], {
      cwd: ROOT,
      env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' },
    }),
  );
  const acks: string[] = [];
  let buf = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (buf + d.toString()).split('\n');
    buf = lines.pop()!;
    for (const l of lines) if (l.startsWith('ack ')) acks.push(l.slice(l.indexOf(' ', 4) + 1));
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return { acks, done, stderr: () => err };
}

test('random SIGKILLs during writes and snapshots lose nothing acknowledged and double nothing', async () => {
  const memory = tmpMemory('kills');
  const perWriter = 1500;
  const writers = [writer(memory, perWriter, 'alpha'), writer(memory, perWriter, 'beta')];
  let kills = 0;
  let finished = false;
  void Promise.all(writers.map((w) => w.done)).then(() => (finished = true));
  for (let round = 0; round < 6 && !finished; round++) {
    const target = writers[0]!.acks.length + writers[1]!.acks.length + 10 + Math.floor(Math.random() * 40);
    await waitFor(() => finished || writers[0]!.acks.length + writers[1]!.acks.length >= target, 60_000, `${target} acknowledged writes`);
    if (finished) break;
    // Mostly right away; in two rounds after a pause long enough for an idle snapshot to begin
    // (only two, so the writers do not finish before the kills have landed on a fast machine).
    const pause = round === 1 || round === 4 ? 1_900 + Math.random() * 400 : Math.random() * 50;
    await new Promise((r) => setTimeout(r, pause));
    const pid = lockOf(memory)?.pid;
    if (pid && alive(pid)) {
      process.kill(pid, 'SIGKILL');
      kills++;
      await waitFor(() => !alive(pid), 10_000, 'the service to die');
    }
  }
  const codes = await Promise.all(writers.map((w) => w.done));
  assert.deepEqual(codes, [0, 0], writers.map((w) => w.stderr()).join('\n'));
  const acknowledged = writers.flatMap((w) => w.acks);
  assert.equal(acknowledged.length, 2 * perWriter);
  assert.ok(kills >= 3, `only ${kills} kills landed`);
  const exported = await assertAllOnce(memory, acknowledged);
  assert.equal(exported.episodes.length, 2 * perWriter);
  process.stdout.write(`# ${kills} SIGKILLs during ${2 * perWriter} writes: all acknowledged writes present once\n`);
});
