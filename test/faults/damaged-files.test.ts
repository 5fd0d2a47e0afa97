/**
 * Damaged files at start-up: a journal cut in half or deleted beside an intact snapshot, snapshot
 * pages overwritten, temp files a crash left behind. What the intact copy holds is never lost, ids
 * go on from where they were, the damaged file is kept aside and the person is told.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { assertAllOnce, cleanup, recall, tmpMemory, withClient } from './kit';

after(cleanup);

const texts = (n: number, tag: string): string[] =>
  Array.from({ length: n }, (_, i) => `${tag} episode ${i} about the deploy of service ${i % 17}`);

/** A memory holding `n` episodes, stopped cleanly (so its snapshot covers the whole journal). */
async function stoppedMemory(tag: string, n: number): Promise<{ memory: string; stored: string[] }> {
  const memory = tmpMemory(tag);
  const stored = texts(n, tag);
  await withClient(memory, async (c) => {
    for (let i = 0; i < n; i += 100) await c.call('ingest', { episodes: stored.slice(i, i + 100).map((text) => ({ text, session: tag })) });
  });
  const stop = await recall(memory, ['service', 'stop']);
  assert.equal(stop.code, 0, stop.stderr);
  return { memory, stored };
}

async function afterRestart(memory: string, stored: string[], expectNote: RegExp): Promise<void> {
  const status = await withClient(memory, (c) => c.call('status', {}));
  assert.equal(status.episodes, stored.length, 'everything the snapshot held is there');
  assert.match(String((status as { recovered?: string }).recovered), expectNote, 'status tells the person');
  const text = (await recall(memory, ['status'])).stdout;
  assert.match(text, /recovered/, '`recall status` shows it');
  // Ids go on from where they were, and the next restart keeps everything.
  const next = await withClient(memory, (c) => c.call('remember', { text: 'written after the recovery' }));
  assert.equal(next.id, `ep_${stored.length + 1}`);
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  fs.rmSync(path.join(memory, 'snapshot.sqlite')); // and the fresh journal alone replays the new write
  await assertAllOnce(memory, ['written after the recovery']);
}

test('journal cut in half beside an intact snapshot: the snapshot is kept, the journal set aside', async () => {
  const { memory, stored } = await stoppedMemory('cut', 300);
  const journal = path.join(memory, 'journal.jsonl');
  const snapshot = fs.readFileSync(path.join(memory, 'snapshot.sqlite'));
  fs.truncateSync(journal, Math.floor(fs.statSync(journal).size / 2));
  const status = await withClient(memory, (c) => c.call('status', {}));
  assert.equal(status.episodes, 300);
  assert.ok(
    fs.statSync(path.join(memory, 'snapshot.sqlite')).size >= snapshot.length * 0.9,
    'the snapshot was not replaced by a smaller rebuild',
  );
  const aside = fs.readdirSync(memory).filter((f) => f.startsWith('journal.jsonl.damaged-'));
  assert.equal(aside.length, 1, 'the damaged journal is kept aside');
  assert.match(fs.readFileSync(path.join(memory, 'service.log'), 'utf8'), /recovery: journal\.jsonl was damaged/);
  await assertAllOnce(memory, stored);
  await afterRestart(memory, stored, /damaged.*kept the snapshot/);
});

test('journal deleted beside an intact snapshot: nothing lost, ids do not restart at ep_1', async () => {
  const { memory, stored } = await stoppedMemory('deleted', 250);
  fs.rmSync(path.join(memory, 'journal.jsonl'));
  await assertAllOnce(memory, stored);
  await afterRestart(memory, stored, /missing or empty.*kept the snapshot/);
});

for (const how of ['by its checksum', 'by SQLite page checks (no checksum beside it)']) {
  test(`snapshot pages overwritten: noticed on open ${how}, rebuilt from the journal, export works`, async () => {
    const { memory, stored } = await stoppedMemory('pages', 400);
    const snapshot = path.join(memory, 'snapshot.sqlite');
    if (how.startsWith('by SQLite')) fs.rmSync(`${snapshot}.check`);
    const fd = fs.openSync(snapshot, 'r+');
    const size = fs.fstatSync(fd).size;
    // Garbage over a stretch of pages in the middle, headers intact: it still opens as a database.
    fs.writeSync(fd, Buffer.alloc(16_384, 0x5a), 0, 16_384, Math.floor(size / 2 / 4096) * 4096);
    fs.closeSync(fd);
    await assertAllOnce(memory, stored);
    const log = fs.readFileSync(path.join(memory, 'service.log'), 'utf8');
    assert.match(log, /unusable \((it is damaged|database disk image is malformed).*rebuilding it from the journal/);
    const status = await withClient(memory, (c) => c.call('status', {}));
    assert.match(String((status as { recovered?: string }).recovered), /damaged|malformed/);
  });
}

test('temp files a crash left are removed at start-up', async () => {
  const memory = tmpMemory('leftovers');
  const leftover = path.join(memory, 'snapshot.sqlite.tmp-4242-deadbeef');
  fs.writeFileSync(leftover, 'a copy holding text that was later forgotten');
  const keep = path.join(memory, 'notes.txt');
  fs.writeFileSync(keep, 'not ours to remove');
  await withClient(memory, (c) => c.call('status', {}));
  assert.ok(!fs.existsSync(leftover), 'the crash leftover is gone');
  assert.ok(fs.existsSync(keep), 'other files stay');
});

test('a forget cut short before its snapshot still wins over the older snapshot', async () => {
  const memory = tmpMemory('forget');
  await withClient(memory, async (c) => {
    await c.call('remember', { text: 'Zanzibar secret plan for the launch', entities: ['Zanzibar'] });
    await c.call('remember', { text: 'an unrelated note about the build', entities: ['Build'] });
  });
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  const before = fs.readFileSync(path.join(memory, 'snapshot.sqlite'));
  assert.equal((await recall(memory, ['forget', 'Zanzibar', '--confirm'])).code, 0);
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  // As if the service died after rewriting the journal but before writing the new snapshot.
  fs.writeFileSync(path.join(memory, 'snapshot.sqlite'), before);
  const exported = await withClient(memory, (c) => c.call('export', {}));
  assert.deepEqual(
    exported.episodes.map((e) => e.text),
    ['an unrelated note about the build'],
    'the forgotten note did not come back',
  );
});

test('journal lines skipped on replay are counted in status and told beyond the log', async () => {
  const memory = tmpMemory('skipped');
  const stored = texts(5, 'skipped');
  await withClient(memory, async (c) => {
    for (const text of stored) await c.call('remember', { text }); // a journal line each
  });
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  fs.rmSync(path.join(memory, 'snapshot.sqlite')); // the journal alone is replayed
  const journal = path.join(memory, 'journal.jsonl');
  const lines = fs.readFileSync(journal, 'utf8').split('\n');
  lines[2] = '{' + 'x'.repeat(lines[2]!.length - 1); // a damaged line, same length, its newline kept
  fs.writeFileSync(journal, lines.join('\n'));
  const status = await withClient(memory, (c) => c.call('status', {}));
  assert.equal(status.skipped_journal_lines, 1);
  assert.match(String(status.recovered), /1 unreadable line\(s\) in journal\.jsonl skipped on replay/);
  assert.match((await recall(memory, ['status'])).stdout, /recovered .*skipped on replay/);
  assert.equal(status.episodes, stored.length - 1, 'what the line held is not there (and the status says so)');
  // Once a snapshot covers it the lines are no longer replayed; the note stays until the next recovery.
  assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
  const later = await withClient(memory, (c) => c.call('status', {}));
  assert.equal(later.skipped_journal_lines, 0);
  assert.match(String(later.recovered), /skipped on replay/);
});
