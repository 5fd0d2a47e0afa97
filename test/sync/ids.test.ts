/**
 * Ids across memories and applying other memories' events, on real memory folders (no server):
 * what the PostgreSQL tests rely on, checked where a failure is easy to read.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory/memory';
import type { MemoryEvent } from '../../src/core/model/events';
import { canonicalId, ensureOrigin, isId, mapEventIds } from '../../src/core/store/ids';
import { tmpFolder } from '../helpers';

const all = { shares: (): boolean => true };
const person = { authority: 'human' as const, source: 'test' };

/** Another memory's events in their travelling form, as a pull hands them over. */
function remote(origin: string, events: MemoryEvent[]): MemoryEvent[] {
  return events.map((e) => ({ ...mapEventIds(e, (_p, id) => canonicalId(id, origin)), origin, originSeq: e.seq }));
}

function journal(dir: string): MemoryEvent[] {
  return fs
    .readFileSync(path.join(dir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

test('a memory minted ep_N before sharing keeps those ids; after, ids carry its origin and both spellings resolve', async () => {
  const dir = tmpFolder('ids');
  let m = await Memory.open(dir);
  const old = m.remember({ text: 'the deploy uses blue-green switching' }, person).id;
  const fact = m.relate({ subject: 'deploy', predicate: 'uses', object: 'blue-green' }, person).id;
  assert.deepEqual([old, fact], ['ep_1', 'rel_1']);
  m.close();
  const origin = ensureOrigin(dir);
  m = await Memory.open(dir);
  const fresh = m.remember({ text: 'the deploy window is Tuesday' }, person).id;
  assert.equal(fresh, `ep_${origin}_2`);
  assert.ok(isId('ep', fresh) && isId('ep', old) && !isId('rel', fresh) && !isId('ep', 'ep_0'));
  assert.equal(m.fact(`rel_${origin}_1`).id, 'rel_1', 'the travelling spelling of an old id names the same fact');
  assert.equal(m.rowidsOf('ep', [`ep_${origin}_1`, old, fresh]).length, 3);
  m.close();
});

test("another memory's events apply once, survive a rebuild from the journal, and a forget keeps them counted", async () => {
  const a = tmpFolder('ids');
  const b = tmpFolder('ids');
  const originA = ensureOrigin(a);
  ensureOrigin(b);
  const ma = await Memory.open(a);
  ma.remember({ text: 'Flamingo is the codename of the billing UI', entities: ['Flamingo'] }, person);
  ma.remember({ text: 'the billing UI ships in June', entities: ['billing'] }, person);
  const eventsA = remote(originA, journal(a));
  ma.close();

  let mb = await Memory.open(b);
  const first = mb.applyRemote(eventsA, all).applied;
  assert.equal(first, eventsA.length);
  assert.equal(mb.applyRemote(eventsA, all).applied, 0, 'the same pull again changes nothing');
  assert.equal(mb.status().episodes, 2);
  assert.equal(mb.originSeq(originA), eventsA[eventsA.length - 1]!.originSeq);
  // The same turn stored here too is one episode, and A's id for it still resolves.
  mb.remember({ text: 'the billing UI ships in June', entities: ['billing'] }, person);
  assert.equal(mb.status().episodes, 2);
  const forget = mb.forget('Flamingo', person);
  assert.equal(forget.episodes.length, 1);
  mb.close();
  // Without the snapshot: a rebuild from the rewritten journal still knows A's events were applied.
  fs.rmSync(path.join(b, 'snapshot.sqlite'));
  mb = await Memory.open(b);
  assert.equal(mb.applyRemote(eventsA, all).applied, 0, 'a forgotten episode does not come back with the next pull');
  assert.equal(mb.status().episodes, 1);
  assert.ok(!fs.readFileSync(path.join(b, 'journal.jsonl'), 'utf8').includes('codename'));
  mb.close();
});

test('verdicts from two memories meet in either order: both kept as evidence, the later decides', async () => {
  const a = tmpFolder('ids');
  const originA = ensureOrigin(a);
  const ma = await Memory.open(a);
  const id = ma.relate({ subject: 'api', predicate: 'uses', object: 'GraphQL' }, person).id;
  const assertEvents = remote(originA, journal(a));
  ma.close();
  const at = (ms: number): string => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  const verdict = (origin: string, seq: number, verdict: 'wrong' | 'confirm', when: string): MemoryEvent => ({
    type: 'relationship.correct',
    id,
    verdict,
    seq,
    at: when,
    by: person,
    origin,
    originSeq: seq,
  });
  const early = verdict('zzzzzzzzzzzz', 1, 'wrong', at(1000));
  const late = verdict('yyyyyyyyyyyy', 1, 'confirm', at(2000));
  for (const order of [
    [early, late],
    [late, early],
  ]) {
    const m = await Memory.open(tmpFolder('ids'));
    m.applyRemote(assertEvents, all);
    m.applyRemote(order, all);
    const f = m.fact(id);
    assert.equal(f.status, 'current', 'the later confirm decides');
    assert.equal(f.pinned, true);
    m.close();
  }
});

test('the same turn stored by two memories is one episode; the other id names it', async () => {
  const a = tmpFolder('ids');
  const originA = ensureOrigin(a);
  const ma = await Memory.open(a);
  const idA = ma.remember({ text: 'CI runs on self-hosted runners', session: 's1' }, person).id;
  const fact = ma.relate({ subject: 'CI', predicate: 'runs on', object: 'self-hosted runners', evidence: [idA] }, person).id;
  const eventsA = remote(originA, journal(a));
  ma.close();
  const b = tmpFolder('ids');
  ensureOrigin(b);
  const mb = await Memory.open(b);
  const idB = mb.remember({ text: 'CI runs on self-hosted runners', session: 's1' }, person).id;
  mb.applyRemote(eventsA, all);
  assert.equal(mb.status().episodes, 1);
  assert.deepEqual(mb.rowidsOf('ep', [idA]), mb.rowidsOf('ep', [idB]));
  assert.deepEqual(mb.fact(fact).evidence, [idB], "A's evidence points at B's copy of the turn");
  mb.close();
});
