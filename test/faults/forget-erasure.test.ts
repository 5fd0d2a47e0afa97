/**
 * Forgetting leaves no copy on disk: once `recall forget --confirm` returns, no file in the memory
 * folder or the socket's folder holds the forgotten text (journal, snapshot, keyword index, temp
 * files a crash left, a journal a recovery set aside), and the vector files hold no vector of the
 * forgotten episode. The embedder is the tiny generated test model (no real model can be fetched here).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { numericId } from '../../src/core/store/ids';
import { cleanup, connect, lockOf, recall, ROOT, tmpMemory, waitFor, withClient } from './kit';

after(cleanup);

const MARKER = 'QX7-ZEPHYRINE-UNIQUE-MARKER';

test('after forget --confirm returns, the forgotten text is in no file and its vector in no vector file', async () => {
  const model = tmpMemory('forget-model');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
  const memory = tmpMemory('forget-erase');
  fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify({ embeddings: { enabled: true, modelPath: model } }));

  const forgotten = await withClient(memory, async (c) => {
    const ep = await c.call('remember', { text: `Zephyrine keeps the ${MARKER} in the vault`, entities: ['Zephyrine'] });
    await c.call('remember', { text: 'the billing service runs Postgres 16', entities: ['billing'] });
    await c.call('remember', { text: 'Dana owns the settlement module', entities: ['Dana'] });
    await c.call('relate', { subject: 'Zephyrine', predicate: 'guards', object: 'the vault', evidence: [ep.id] });
    return ep.id;
  });
  // Wait for the vectors, so there is one of the forgotten episode to erase.
  await waitFor(() => vectorIds(path.join(memory, 'vectors.bin')).has(numericId(forgotten)), 60_000, 'the episode to be embedded');
  await withClient(memory, (c) => c.call('shutdown', {})).catch(() => undefined);
  await waitFor(() => lockOf(memory) === undefined, 10_000, 'the service to stop');
  // Copies a crash or a recovery could have left: a snapshot's temp file, a journal set aside.
  const journalText = fs.readFileSync(path.join(memory, 'journal.jsonl'), 'utf8');
  fs.writeFileSync(path.join(memory, 'journal.jsonl.damaged-2026-01-01T00-00-00-000Z'), journalText + '{"torn line with ' + MARKER + '\n');
  assert.ok(containing(memory, MARKER).length >= 3, 'the marker is on disk before the forget (the check can fail)');

  // A service with its vector files open (the usual case); one still loading its model deletes them instead.
  const client = await connect(memory);
  const deadline = Date.now() + 60_000;
  while (!/^ready/.test((await client.call('status', {})).embedder) && Date.now() < deadline)
    await new Promise((res) => setTimeout(res, 200));
  const r = await recall(memory, ['forget', 'Zephyrine', '--confirm']);
  client.close();
  assert.equal(r.code, 0, r.stderr);
  // The snapshot temp file is planted after the service started (start-up removes leftovers too).
  const leftovers = containing(memory, MARKER);
  assert.deepEqual(leftovers, [], `files still holding the forgotten text: ${leftovers.join(', ')}`);
  const vectors = vectorIds(path.join(memory, 'vectors.bin'));
  assert.ok(vectors.size > 0 && !vectors.has(numericId(forgotten)), 'the vector file kept, without the forgotten episode');

  // What was not forgotten is all still there.
  const exported = await withClient(memory, (c) => c.call('export', {}));
  assert.deepEqual(exported.episodes.map((e) => e.text).sort(), [
    'Dana owns the settlement module',
    'the billing service runs Postgres 16',
  ]);
});

test('a temp file a crash left is removed when forget runs, not only at start-up', async () => {
  const memory = tmpMemory('forget-temp');
  await withClient(memory, async (c) => {
    await c.call('remember', { text: `Quillon notes ${MARKER}`, entities: ['Quillon'] });
    await c.call('remember', { text: 'something else entirely', entities: ['Other'] });
    // Planted while the service runs: as if a snapshot write of this very service had been cut short.
    fs.writeFileSync(path.join(memory, 'snapshot.sqlite.tmp-12345-deadbeef'), `copy of ${MARKER}`);
    await c.call('forget', { entity: 'Quillon' });
  });
  assert.deepEqual(containing(memory, MARKER), []);
});

test('the other end of a forgotten fact, left with nothing, goes with the forget: listed in its plan, gone live and after a rebuild', async () => {
  const memory = tmpMemory('forget-orphan');
  const orphan = 'ZFMARK-5 tea';
  await withClient(memory, async (c) => {
    await c.call('remember', { text: 'Zebrafoo prefers green tea in the afternoon', entities: ['Zebrafoo'] });
    await c.call('relate', { subject: 'Zebrafoo', predicate: 'prefers', object: orphan });
    await c.call('relate', { subject: 'Zebrafoo', predicate: 'uses', object: 'Postgres' });
    await c.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres' });
  });
  const plan = await recall(memory, ['forget', 'Zebrafoo']);
  assert.match(plan.stdout, /1 other entit\(ies\) left with nothing else: ZFMARK-5 tea/);
  assert.equal((await recall(memory, ['forget', 'Zebrafoo', '--confirm'])).code, 0);
  const live = await withClient(memory, (c) => c.call('search', { query: orphan }));
  assert.deepEqual(
    live.map((e) => e.name),
    [],
    'the orphan is gone from the live graph',
  );
  assert.deepEqual(containing(memory, 'ZFMARK-5'), [], 'and from every file');
  // The journal alone says the same: a rebuild without the snapshot has neither, and keeps Postgres.
  await withClient(memory, (c) => c.call('shutdown', {})).catch(() => undefined);
  await waitFor(() => lockOf(memory) === undefined, 10_000, 'the service to stop');
  fs.rmSync(path.join(memory, 'snapshot.sqlite'));
  const rebuilt = await withClient(memory, (c) => c.call('export', {}));
  assert.deepEqual(rebuilt.entities.map((e) => e.name).sort(), ['Postgres', 'billing']);
});

/** Regular files under `dir` (and the socket's folder) whose bytes contain `text`. */
function containing(dir: string, text: string): string[] {
  const found: string[] = [];
  const dirs = [dir];
  const sock = lockOf(dir)?.socket;
  if (sock) dirs.push(path.dirname(sock));
  const needle = Buffer.from(text);
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && fs.readFileSync(p).includes(needle)) found.push(p);
    }
  };
  for (const d of dirs) if (fs.existsSync(d)) walk(d);
  return found;
}

/** Ids of the live `add` records in a vector file (file-format.ts: header, then fixed-size records). */
function vectorIds(file: string): Set<number> {
  const ids = new Set<number>();
  if (!fs.existsSync(file)) return ids;
  const buf = fs.readFileSync(file);
  if (buf.length < 40) return ids;
  const recordBytes = buf.readUInt32LE(16);
  const modelIdBytes = buf.readUInt32LE(20);
  const header = 40 + Math.ceil(modelIdBytes / 8) * 8;
  for (let at = header; at + recordBytes <= buf.length; at += recordBytes) {
    const id = buf.readDoubleLE(at + 8);
    if (buf[at] === 1) ids.add(id);
    else ids.delete(id);
  }
  return ids;
}
