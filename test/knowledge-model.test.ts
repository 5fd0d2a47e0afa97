/**
 * Knowledge items in the graph, on a real sql.js store: a later decision on the same subject
 * supersedes the earlier (by when each was said, and never a person's by an agent's), a rule stands
 * beside another rule, and decisions, rules and preferences do not fade with time.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { resolveConfig, type Authority } from '../src/core/model/config';
import type { EpisodeRecord, EventBody, MemoryEvent } from '../src/core/model/events';
import type { KnowledgeKind } from '../src/core/model/knowledge';
import { JournaledGraph } from '../src/core/memory/journaled-graph';
import { KnowledgeWriter } from '../src/core/memory/knowledge';
import { Graph } from '../src/core/store/graph';
import { loadSqlJs, type Database } from '../src/core/store/sqlite';

const dbs: Database[] = [];
after(() => dbs.forEach((db) => db.close()));

async function freshGraph(): Promise<Graph> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  dbs.push(db);
  Graph.createSchema(db);
  return new Graph(db, resolveConfig({ confidence: { halfLifeDays: 1 } }));
}

let seq = 0;
const NOW = '2026-12-01T12:00:00.000Z';
const apply = (graph: Graph, body: EventBody, authority: Authority = 'human'): void =>
  graph.applyAll([{ ...body, seq: ++seq, at: NOW, by: { authority } } as MemoryEvent]);

/** A turn said at `time` by someone of `authority`, and the item read from it. */
function said(
  graph: Graph,
  n: number,
  time: string,
  item: { kind: KnowledgeKind; subject: string; object: string; statement: string },
  authority: Authority = 'user',
): string {
  const episode: EpisodeRecord = { id: `ep_${n}`, text: item.statement, hash: `h${n}`, authority, time };
  apply(graph, { type: 'episodes.add', episodes: [episode] });
  const id = `rel_${n}`;
  apply(graph, {
    type: 'relationship.assert',
    id,
    subject: item.subject,
    predicate: item.kind,
    object: item.object,
    prior: 'inferred',
    evidence: [episode.id],
    assertedBy: authority,
    kind: item.kind,
    statement: item.statement,
  });
  return id;
}

test('a later decision on the same subject supersedes the earlier; an older one imported later ends at once', async () => {
  const g = await freshGraph();
  const postgres = said(g, 1, '2026-03-01T00:00:00.000Z', {
    kind: 'decision',
    subject: 'database',
    object: 'Postgres',
    statement: 'We use Postgres for the database.',
  });
  const sqlite = said(g, 2, '2026-06-01T00:00:00.000Z', {
    kind: 'decision',
    subject: 'database',
    object: 'SQLite',
    statement: 'Switch the database to SQLite.',
  });
  assert.equal(g.factById(postgres)!.status, 'superseded');
  assert.equal(g.factById(postgres)!.valid_to, '2026-06-01T00:00:00.000Z');
  assert.equal(g.factById(sqlite)!.status, 'current');
  assert.equal(g.factById(sqlite)!.statement, 'Switch the database to SQLite.');
  assert.equal(g.factById(sqlite)!.kind, 'decision');
  // An old transcript read now: its decision was already overtaken.
  const mysql = said(g, 3, '2025-01-01T00:00:00.000Z', { kind: 'decision', subject: 'database', object: 'MySQL', statement: 'Use MySQL.' });
  assert.equal(g.factById(mysql)!.status, 'superseded');
  assert.equal(g.factById(sqlite)!.status, 'current');
});

test("an agent's later decision does not end a person's; a rule stands beside another rule", async () => {
  const g = await freshGraph();
  const person = said(g, 1, '2026-03-01T00:00:00.000Z', {
    kind: 'decision',
    subject: 'queue',
    object: 'SQS',
    statement: 'We go with SQS.',
  });
  const agent = said(
    g,
    2,
    '2026-04-01T00:00:00.000Z',
    { kind: 'decision', subject: 'queue', object: 'Kafka', statement: "I'll switch the queue to Kafka." },
    'agent',
  );
  assert.equal(g.factById(person)!.status, 'current');
  assert.equal(g.factById(agent)!.status, 'current');
  const a = said(g, 3, '2026-03-01T00:00:00.000Z', {
    kind: 'rule',
    subject: 'logging',
    object: 'database URL',
    statement: 'Never log the database URL.',
  });
  const b = said(g, 4, '2026-05-01T00:00:00.000Z', {
    kind: 'rule',
    subject: 'logging',
    object: 'tokens',
    statement: 'Never log tokens either.',
  });
  assert.deepEqual([g.factById(a)!.status, g.factById(b)!.status], ['current', 'current']);
});

test('decisions, rules and preferences hold with time; facts and lessons fade (half-life 1 day here)', async () => {
  const g = await freshGraph();
  const old = '2025-08-01T00:00:00.000Z';
  const rule = said(g, 1, old, { kind: 'rule', subject: 'repos', object: 'owner/name', statement: 'From now on name repos owner/name.' });
  const lesson = said(g, 2, old, {
    kind: 'lesson',
    subject: 'CI',
    object: 'cache',
    statement: 'CI failed because the cache was stale; clearing it fixed it.',
  });
  const r = g.factById(rule)!;
  const l = g.factById(lesson)!;
  assert.equal(r.effective_confidence, r.confidence, 'a rule does not decay');
  assert.ok(l.effective_confidence < l.confidence / 2, 'a lesson fades');
});

test('the same rule said again is new evidence for the item held, not a second item', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-knowledge-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const mem = await JournaledGraph.open(dir, resolveConfig(), () => {});
  after(() => mem.close());
  const by = { authority: 'human' as const };
  const turns = ['Never log the database URL.', 'Again: never log the database URL!', 'Do not log the database URL, ever.'];
  mem.commit(
    [
      {
        type: 'episodes.add',
        episodes: turns.map((text, i) => ({ id: `ep_${i + 1}`, text, hash: `h${i}`, authority: 'user' as const, time: NOW })),
      },
    ],
    by,
  );
  const first = new KnowledgeWriter(mem);
  const rule = { kind: 'rule' as const, subject: 'database URL', assertedBy: 'user' as const, project: null };
  const a = first.read({ ...rule, statement: turns[0]!, evidence: 'ep_1' });
  const b = first.read({ ...rule, statement: turns[1]!, evidence: 'ep_2' });
  assert.equal(b.id, a.id, 'in one batch');
  assert.equal(b.event?.type, 'relationship.evidence');
  mem.commit([a.event!, b.event!], by);
  const c = new KnowledgeWriter(mem).read({ ...rule, statement: 'Never, ever log the database URL.', evidence: 'ep_3' });
  assert.equal(c.id, a.id, 'against what is held');
  mem.commit([c.event!], by);
  assert.deepEqual(mem.graph.factById(a.id)!.evidence.sort(), ['ep_1', 'ep_2', 'ep_3']);
  const other = new KnowledgeWriter(mem).read({ ...rule, statement: 'Always use parameterised queries.', evidence: 'ep_3' });
  assert.notEqual(other.id, a.id, 'a different rule is a different item');
  assert.throws(() => new KnowledgeWriter(mem).read({ ...rule, statement: 'x'.repeat(501) }), /keep it under 500/);
});
