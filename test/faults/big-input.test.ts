/** Input too big for a command line: `recall remember -` takes the text on standard input. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { CLI, cleanup, spawn, tmpMemory, track, withClient } from './kit';

after(cleanup);

test('remember - reads the text from standard input, well past the command line limit', async () => {
  const memory = tmpMemory('stdin');
  // Over the 128 KB a single argument may hold (E2BIG), and not one repeated line: distinct words.
  const text = Array.from({ length: 30_000 }, (_, i) => `word${i}`).join(' ');
  assert.ok(Buffer.byteLength(text) > 200 * 1024);
  const child = track(
    spawn(process.execPath, [CLI, '--memory', memory, 'remember', '-', '--json'], {
      env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' },
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(text);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, stderr);
  const { id } = JSON.parse(stdout);
  const stored = await withClient(memory, (c) => c.call('browse.episodesById', { ids: [id] }));
  assert.equal(stored[0]?.text, text);
});
