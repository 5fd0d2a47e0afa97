/**
 * A full disk: the memory folder on a 2 MB tmpfs, filled until writes fail. Every write that was
 * acknowledged survives (no fragment of a failed append glues onto the next one), the failures
 * say "disk is full", the service outlives its own log failing, and after space is freed and
 * the service killed and restarted everything acknowledged is there once.
 * Needs `mount` (root, as in CI); skipped with a message elsewhere.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { MemoryError } from '../../src/core/model/errors';
import { alive, assertAllOnce, cleanup, connect, killService, lockOf, onCleanup, tmpMemory, withClient } from './kit';

after(cleanup);

const PROMPT_MS = 10_000;

function mountTmpfs(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return ((err as { stderr?: Buffer }).stderr?.toString() || (err as Error).message).trim();
  }
}

/** Unique text of a varying length, so some appends are cut short part-way rather than refused whole. */
const note = (i: number): string =>
  (`disk note ${i}: ` + `pipeline step ${i} configured with option ${i * 7} `.repeat(20 + ((i * 37) % 90))).trim();

test('a full disk: acknowledged writes survive, failures say so, nothing doubled', async (t) => {
  const mountPoint = tmpMemory('tmpfs');
  const refused = mountTmpfs(mountPoint, '2m');
  if (refused !== undefined) {
    process.stdout.write(`# disk-full test skipped: cannot mount a tmpfs here (${refused})\n`);
    t.skip(`cannot mount a tmpfs: ${refused}`);
    return;
  }
  const memory = path.join(mountPoint, 'memory');
  onCleanup(() => {
    const pid = lockOf(memory)?.pid;
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50; i++) {
      try {
        execFileSync('umount', [mountPoint], { stdio: 'pipe' });
        return;
      } catch {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); // the killed service may still hold files
      }
    }
    execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
  });
  fs.mkdirSync(memory, { mode: 0o700 });
  const acknowledged: string[] = [];
  const client = await connect(memory);
  await client.call('remember', { text: 'the first note, before the disk fills' });
  acknowledged.push('the first note, before the disk fills');
  const filler = path.join(mountPoint, 'filler');
  fs.writeFileSync(filler, Buffer.alloc(1_300_000, 1));
  const pid = lockOf(memory)!.pid;

  let failures = 0;
  let i = 0;
  for (; i < 2_000 && failures < 15; i++) {
    try {
      await client.call('remember', { text: note(i) });
      acknowledged.push(note(i));
    } catch (err) {
      assert.ok(err instanceof MemoryError, `a clear error, not ${(err as Error).message}`);
      assert.match(err.message, /disk is full/);
      failures++;
    }
  }
  assert.ok(failures > 0, `the disk never filled after ${i} writes`);
  assert.ok(acknowledged.length > 1, 'some writes got through before it filled');
  // Its own log is on the full disk too: the service is still the same, and answers.
  assert.equal((await client.call('status', {})).service_pid, pid);
  client.close();

  // Restarting on the full disk answers or fails at once, saying why; it never hangs.
  await killService(memory);
  const started = Date.now();
  const onFull = await withClient(memory, (c) => c.call('status', {})).then(
    () => 'started',
    (err: Error) => err.message,
  );
  assert.ok(Date.now() - started < PROMPT_MS, `a start on the full disk took ${Date.now() - started} ms`);
  if (onFull !== 'started') assert.match(onFull, /ENOSPC|disk is full|no space/i);

  fs.rmSync(filler);
  await withClient(memory, async (c) => {
    for (let j = 0; j < 10; j++) {
      await c.call('remember', { text: `after freeing space ${j}` });
      acknowledged.push(`after freeing space ${j}`);
    }
  });
  await killService(memory);
  // Every journal line is whole: no fragment of a failed append is left in the file.
  const lines = fs.readFileSync(path.join(memory, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a damaged line: ${line.slice(0, 80)}`);
  await assertAllOnce(memory, acknowledged);
  process.stdout.write(
    `# disk full: ${acknowledged.length} acknowledged writes all present once; ${failures} refused with "disk is full"; start on the full disk: ${onFull.slice(0, 120)}\n`,
  );
  await killService(memory);
});
