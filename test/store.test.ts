/** The store on its own: Graph, keyword indexes and journal on a real sql.js database and folder. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { resolveConfig } from '../src/core/model/config';
import type { EpisodeRecord, EventBody, MemoryEvent } from '../src/core/model/events';
import { FTS_TABLES, ftsGeneration, mergeIndexSegments } from '../src/core/store/fts';
import { Graph } from '../src/core/store/graph';
import { entityKey, numericId } from '../src/core/store/ids';
import { Journal } from '../src/core/store/journal';
import { all, atomically, loadSqlJs, scalar, type Database } from '../src/core/store/sqlite';
import { tmpFolder } from './helpers';

const dbs: Database[] = [];
after(() => dbs.forEach((db) => db.close()));

/** A graph on a fresh database, and the database, which the store's own tests read beside it. */
async function freshStore(): Promise<{ graph: Graph; db: Database }> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  dbs.push(db);
  Graph.createSchema(db);
  return { graph: new Graph(db, resolveConfig()), db };
}

let seq = 0;
const AT = '2024-02-01T12:00:00.000Z';
function apply(graph: Graph, body: EventBody, authority: MemoryEvent['by']['authority'] = 'human'): void {
  graph.applyAll([{ ...body, seq: ++seq, at: AT, by: { authority } } as MemoryEvent]);
}

function episode(id: string, text: string, extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return { id, text, hash: `hash-${id}`, authority: 'user', time: '2024-01-01T00:00:00.000Z', ...extra };
}

const count = (db: Database, sql: string, params: unknown[] = []): number => Number(scalar(db, sql, params));
const matches = (db: Database, table: string, words: string): number[] =>
  all(db, `SELECT docid FROM ${table} WHERE ${table} MATCH ? ORDER BY docid`, [words]).map((r) => Number(r.docid));

test('more distinct statements than the statement cache holds keep working', async () => {
  const { db } = await freshStore();
  for (let i = 0; i < 600; i++) assert.equal(Number(all(db, `SELECT ${i} AS n`)[0]!.n), i);
});

test('a new schema has its version; a database without one reads as -1', async () => {
  const { db } = await freshStore();
  assert.ok(Graph.schemaVersion(db) > 0);
  const SQL = await loadSqlJs();
  const empty = new SQL.Database();
  dbs.push(empty);
  assert.equal(Graph.schemaVersion(empty), -1);
});

test('episodes: rows, mentions, keyword index, ids and the position of the last event', async () => {
  const { graph, db } = await freshStore();
  assert.equal(graph.nextId('ep'), 'ep_1');
  apply(graph, {
    type: 'episodes.add',
    episodes: [
      episode('ep_1', 'the billing service moved to Postgres', { speaker: 'dana', entities: ['Billing', 'Postgres'], redactions: 2 }),
      episode('ep_2', 'lunch was fine', { session: 's1' }),
    ],
  });
  assert.equal(graph.counts().episodes, 2);
  assert.equal(graph.nextId('ep'), 'ep_3');
  assert.equal(graph.nextId('ep', 2), 'ep_5');
  assert.equal(graph.getMeta('seq'), String(seq));
  assert.equal(graph.getMeta('last_write'), AT);
  assert.equal(graph.getMeta('redactions'), '2');
  assert.equal(graph.episodeIdByHash('hash-ep_2'), 'ep_2');
  assert.equal(graph.episodeIdByHash('nope'), undefined);
  assert.ok(graph.episodeExists('ep_1') && !graph.episodeExists('ep_3'));
  const [view] = graph.episodesByRowids([1]);
  assert.deepEqual(view!.entities, ['Billing', 'Postgres']);
  assert.equal(view!.speaker, 'dana');
  // The index holds the text and the speaker.
  assert.deepEqual(matches(db, 'episodes_fts', 'postgres'), [1]);
  assert.deepEqual(matches(db, 'episodes_fts', 'dana'), [1]);
  assert.equal(graph.entityView(graph.entityIdOf('billing')!)!.episodes, 1);
});

test('entities: created once, found by key or alias, retyped, summary indexed', async () => {
  const { graph, db } = await freshStore();
  apply(graph, {
    type: 'entity.upsert',
    name: '  Redis ',
    entityType: 'technology',
    aliases: ['redis-server'],
    summary: 'in-memory store',
  });
  const id = graph.entityIdOf('REDIS')!;
  assert.equal(graph.entityIdOf('Redis-Server'), id, 'an alias names the same entity, whatever its case');
  assert.equal(entityKey('  Redis '), 'redis');
  assert.deepEqual(graph.entityView(id), {
    name: 'Redis',
    type: 'technology',
    aliases: ['redis-server'],
    summary: 'in-memory store',
    episodes: 0,
    relationships: 0,
  });
  assert.deepEqual(matches(db, 'entities_fts', 'memory'), [id]);
  apply(graph, { type: 'entity.upsert', name: 'redis-server', entityType: 'package', summary: 'a cache' });
  assert.equal(graph.counts().entities, 1, 'upserting by alias changes the entity, adds none');
  assert.equal(graph.entityType('redis'), 'package');
  assert.deepEqual(matches(db, 'entities_fts', 'memory'), [], 'the old summary left the index');
  assert.deepEqual(matches(db, 'entities_fts', 'cache'), [id]);
});

test('facts: asserted with the entities they need, found again while current, corrected', async () => {
  const { graph } = await freshStore();
  apply(graph, { type: 'episodes.add', episodes: [episode('ep_1', 'billing uses postgres')] });
  const id = graph.nextId('rel');
  apply(graph, {
    type: 'relationship.assert',
    id,
    subject: 'Billing',
    predicate: 'uses',
    object: 'Postgres',
    prior: 'explicit',
    evidence: ['ep_1'],
  });
  assert.equal(graph.nextId('rel'), 'rel_2');
  assert.equal(graph.counts().entities, 2);
  // Reuse-or-assert looks facts up by subject, predicate and object, names case-insensitively.
  assert.equal(graph.findCurrentRelationship('billing', 'uses', 'POSTGRES'), id);
  assert.equal(graph.findCurrentRelationship('billing', 'runs on', 'postgres'), undefined);
  assert.equal(graph.findCurrentRelationship('billing', 'uses', 'mysql'), undefined);
  const fact = graph.factById(id)!;
  assert.deepEqual(
    [fact.subject, fact.predicate, fact.object, fact.status, fact.authority],
    ['Billing', 'uses', 'Postgres', 'current', 'human'],
  );
  assert.deepEqual(fact.evidence, ['ep_1']);
  assert.deepEqual(
    graph.factsOf(graph.entityIdOf('postgres')!).map((f) => f.id),
    [id],
  );

  apply(graph, { type: 'relationship.correct', id, verdict: 'wrong', reason: 'moved to MySQL' });
  const wrong = graph.factById(id)!;
  assert.equal(wrong.status, 'wrong');
  assert.equal(wrong.valid_to, AT);
  assert.equal(wrong.ended_reason, 'moved to MySQL');
  assert.equal(graph.findCurrentRelationship('billing', 'uses', 'postgres'), undefined, 'an ended fact is not reused');
  assert.deepEqual(graph.factsOf(graph.entityIdOf('billing')!), []);
  assert.deepEqual(
    graph.factsOf(graph.entityIdOf('billing')!, { history: true }).map((f) => f.id),
    [id],
  );
  assert.equal(graph.counts().current_relationships, 0);

  apply(graph, { type: 'relationship.correct', id, verdict: 'confirm' });
  const confirmed = graph.factById(id)!;
  assert.equal(confirmed.status, 'current');
  assert.equal(confirmed.pinned, true);
  assert.equal(confirmed.valid_to, null);
});

test('forgetting removes the rows, the index entries and the ids stay used', async () => {
  const { graph, db } = await freshStore();
  apply(graph, {
    type: 'episodes.add',
    episodes: [
      episode('ep_1', 'the flamingo codename is secret', { entities: ['Flamingo'] }),
      episode('ep_2', 'flamingo and billing share a queue', { entities: ['Flamingo', 'Billing'] }),
    ],
  });
  apply(graph, { type: 'entity.upsert', name: 'Flamingo', aliases: ['project-f'], summary: 'a codename' });
  apply(graph, {
    type: 'relationship.assert',
    id: 'rel_1',
    subject: 'Flamingo',
    predicate: 'uses',
    object: 'Kafka',
    prior: 'explicit',
    evidence: ['ep_1'],
  });
  const flamingo = graph.entityIdOf('flamingo')!;
  assert.deepEqual(graph.episodesOnlyAbout(flamingo), [{ id: 'ep_1', text: 'the flamingo codename is secret' }]);

  const generation = ftsGeneration(db);
  apply(graph, { type: 'entity.forget', name: 'Flamingo', episodes: ['ep_1'], relationships: ['rel_1'] });
  assert.ok(ftsGeneration(db) > generation, 'readers of the index see it changed');
  assert.equal(graph.entityIdOf('flamingo'), undefined);
  assert.equal(graph.entityIdOf('project-f'), undefined, 'its aliases go with it');
  assert.equal(graph.factById('rel_1'), undefined);
  assert.equal(count(db, 'SELECT COUNT(*) FROM evidence'), 0);
  assert.equal(count(db, 'SELECT COUNT(*) FROM mentions WHERE entity_id = ?', [flamingo]), 0);
  assert.equal(count(db, 'SELECT COUNT(*) FROM episodes WHERE id = ?', ['ep_1']), 0);
  assert.deepEqual(matches(db, 'episodes_fts', 'codename'), [], 'the erased episode left the index');
  assert.deepEqual(matches(db, 'episodes_fts', 'queue'), [2], 'the episode that mentions something else stays');
  assert.deepEqual(matches(db, 'entities_fts', 'codename'), []);
  assert.deepEqual(matches(db, 'entities_fts', 'flamingo'), []);
  // Billing stays (a kept turn names it); Kafka, left with nothing by the erased fact, goes with it.
  assert.ok(graph.entityIdOf('billing') !== undefined);
  assert.equal(graph.entityIdOf('kafka'), undefined);
  assert.equal(graph.nextId('rel'), 'rel_2', 'a forgotten id is never handed out again');
  graph.compactAfterErasure();
  assert.deepEqual(matches(db, 'episodes_fts', 'queue'), [2]);
  // Replaying the rewritten journal: the erased events are gone, the forget event keeps their ids used.
  const { graph: replayed } = await freshStore();
  apply(replayed, { type: 'entity.forget', name: 'Flamingo', episodes: ['ep_1'], relationships: ['rel_1'] });
  assert.deepEqual([replayed.nextId('ep'), replayed.nextId('rel')], ['ep_2', 'rel_2']);
});

test('keyword index segments merge until nothing is left to merge', async () => {
  const { graph, db } = await freshStore();
  // Many small writes leave many segments.
  for (let i = 1; i <= 80; i++) apply(graph, { type: 'episodes.add', episodes: [episode(`ep_${i}`, `turn ${i} about caching`)] });
  let steps = 0;
  while (mergeIndexSegments(db, 'episodes_fts')) assert.ok(++steps < 1000);
  assert.ok(steps > 0, 'there was something to merge');
  assert.equal(mergeIndexSegments(db, 'episodes_fts'), false);
  for (const table of FTS_TABLES) while (mergeIndexSegments(db, table));
  assert.equal(matches(db, 'episodes_fts', 'caching').length, 80);
});

test('atomically undoes everything written when the work throws, and nests', async () => {
  const { graph, db } = await freshStore();
  assert.throws(() =>
    atomically(db, () => {
      apply(graph, { type: 'episodes.add', episodes: [episode('ep_1', 'kept only if nothing fails')] });
      throw new Error('the journal append failed');
    }),
  );
  assert.equal(graph.counts().episodes, 0);
  assert.equal(graph.getMeta('seq'), undefined);
  atomically(db, () => {
    apply(graph, { type: 'episodes.add', episodes: [episode('ep_1', 'outer')] });
    assert.throws(() =>
      atomically(db, () => {
        apply(graph, { type: 'episodes.add', episodes: [episode('ep_2', 'inner')] });
        throw new Error('inner');
      }),
    );
  });
  assert.deepEqual(
    all(db, 'SELECT id FROM episodes').map((r) => r.id),
    ['ep_1'],
  );
});

test('numericId reads the rowid out of an id and refuses anything else', () => {
  assert.equal(numericId('ep_12'), 12);
  assert.equal(numericId('rel_3'), 3);
  assert.throws(() => numericId('rel_x'), /not a valid id/);
  assert.throws(() => numericId('ep_0'), /not a valid id/);
});

const event = (n: number, name = `e${n}`): MemoryEvent => ({ type: 'entity.upsert', name, seq: n, at: AT, by: { authority: 'user' } });

test('journal: a torn tail longer than one read-back chunk is cut; reads start where asked', () => {
  const file = path.join(tmpFolder('store'), 'journal.jsonl');
  let j = Journal.open(file);
  j.append([event(1), event(2)]);
  const afterTwo = j.position;
  j.append([event(3)]);
  j.close();
  fs.appendFileSync(file, `{"type":"entity.upsert","name":"${'x'.repeat(200_000)}`);
  const logs: string[] = [];
  j = Journal.open(file, (m) => logs.push(m));
  assert.match(logs.join('\n'), /dropped a torn last line \(200\d+ bytes/);
  assert.equal(fs.statSync(file).size, j.position, 'the file is cut back on open');
  assert.deepEqual(
    j.readFrom(0).events.map((e) => e.seq),
    [1, 2, 3],
  );
  assert.deepEqual(
    j.readFrom(afterTwo).events.map((e) => e.seq),
    [3],
  );
  j.append([event(4)]);
  assert.deepEqual(
    j.readFrom(afterTwo).events.map((e) => e.seq),
    [3, 4],
  );
  j.close();
});

test('journal: a damaged line in the middle is skipped and counted, never fatal', () => {
  const file = path.join(tmpFolder('store'), 'journal.jsonl');
  fs.writeFileSync(file, `${JSON.stringify(event(1))}\n{not json}\n${JSON.stringify(event(2))}\n`);
  const j = Journal.open(file);
  const { events, corruptLines } = j.readFrom(0);
  assert.deepEqual(
    events.map((e) => e.seq),
    [1, 2],
  );
  assert.equal(corruptLines, 1);
  j.close();
});

test('journal: rewrite keeps, changes or drops events and appends carry on after it', () => {
  const file = path.join(tmpFolder('store'), 'journal.jsonl');
  const j = Journal.open(file);
  j.append([event(1, 'keep'), event(2, 'drop'), event(3, 'rename')]);
  j.rewrite((e) => (e.type !== 'entity.upsert' || e.name === 'keep' ? e : e.name === 'drop' ? null : { ...e, name: 'renamed' }));
  j.append([event(4, 'later')]);
  assert.equal(j.position, fs.statSync(file).size);
  const names = j.readFrom(0).events.map((e) => (e.type === 'entity.upsert' ? e.name : e.type));
  assert.deepEqual(names, ['keep', 'renamed', 'later']);
  assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /"drop"/);
  j.close();
});

test('all() gives the rows getAsObject gives, a repeated or __proto__ column included', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    for (const sql of [
      "SELECT 1 AS a, 'x' AS b, 2 AS a UNION ALL SELECT 3, NULL, 4",
      'SELECT 1 AS __proto__, 2 AS b',
      'SELECT 1 WHERE 0',
    ]) {
      const stmt = db.prepare(sql);
      const expected: unknown[] = [];
      while (stmt.step()) expected.push(stmt.getAsObject());
      stmt.free();
      const rows = all(db, sql);
      assert.deepEqual(rows, expected);
      for (const r of rows) assert.equal(Object.getPrototypeOf(r), Object.prototype);
    }
  } finally {
    db.close();
  }
});
