/** Memory, the facade every surface uses, in-process on a real folder: writes, reads, replay, errors. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { MemoryError } from '../src/core/model/errors';
import { Memory } from '../src/core/memory/memory';
import { SNAPSHOT_FILE } from '../src/core/memory/journaled-graph';
import { JOURNAL_FILE } from '../src/core/model/folder-layout';
import { tmpFolder } from './helpers';

const person = { authority: 'human' as const, source: 'cli' };
const agent = { authority: 'agent' as const, source: 'mcp' };

test('remember and ingest store episodes once: a turn stored again is a duplicate', async () => {
  const m = await Memory.open(tmpFolder('memory'), { extract: false });
  const first = m.remember({ text: '  the deploy uses helm  ', time: '2024-03-01', session: 's1' }, person);
  assert.deepEqual(first, { id: 'ep_1', duplicate: false });
  assert.deepEqual(m.remember({ text: 'the deploy uses helm', time: '2024-03-01', session: 's1' }, person), {
    id: 'ep_1',
    duplicate: true,
  });
  const batch = m.ingest(
    [
      { text: 'staging deploys nightly', session: 's1', speaker: 'dana', time: '2024-03-02T10:00:00Z' },
      { text: 'staging deploys nightly', session: 's1', speaker: 'dana', time: '2024-03-02T10:00:00Z' },
      { text: 'an assistant turn', session: 's1', authority: 'agent', time: '2024-03-03T00:00:00Z' },
    ],
    person,
  );
  assert.equal(batch.added, 2);
  assert.equal(batch.skipped, 1);
  assert.deepEqual(
    batch.results.map((r) => r.id),
    ['ep_2', 'ep_2', 'ep_3'],
  );
  const [latest, middle, oldest] = m.episodes({});
  assert.equal(oldest!.text, 'the deploy uses helm', 'text is trimmed');
  assert.equal(oldest!.time, '2024-03-01T00:00:00.000Z', 'a bare date is midnight UTC');
  assert.equal(oldest!.authority, 'user', "a person's own note is user evidence");
  assert.equal(middle!.speaker, 'dana');
  assert.equal(latest!.authority, 'agent', "a surface may lower a turn's authority");
  assert.equal(m.seq, 2, 'one event per write');
  m.close();
});

test('episodes: newest first, by words, by time window, by session', async () => {
  const m = await Memory.open(tmpFolder('memory'), { extract: false });
  m.ingest(
    [
      { text: 'we chose Postgres for billing', session: 'a', time: '2024-01-05' },
      { text: 'the cache is Redis', session: 'a', time: '2024-02-05' },
      { text: 'billing runs nightly', session: 'b', time: '2024-03-05' },
    ],
    person,
  );
  assert.deepEqual(
    m.episodes({}).map((e) => e.id),
    ['ep_3', 'ep_2', 'ep_1'],
  );
  assert.deepEqual(
    m
      .episodes({ query: 'billing' })
      .map((e) => e.id)
      .sort(),
    ['ep_1', 'ep_3'],
  );
  assert.ok(m.episodes({ query: 'billing' }).every((e) => typeof e.score === 'number'));
  assert.deepEqual(
    m.episodes({ since: '2024-02-01', until: '2024-02-05' }).map((e) => e.id),
    ['ep_2'],
    'a bare upper date takes the whole day',
  );
  assert.deepEqual(
    m.episodes({ session: 'a', limit: 1 }).map((e) => e.id),
    ['ep_2'],
  );
  m.close();
});

test('relate, cite evidence, correct: facts as a person states and revises them', async () => {
  const m = await Memory.open(tmpFolder('memory'), { extract: false });
  const note = m.remember({ text: 'billing talks to Postgres' }, person).id;
  const { id } = m.relate({ subject: 'Billing', predicate: 'Uses', object: 'Postgres', evidence: [note] }, person);
  const fact = m.fact(id);
  assert.deepEqual(
    [fact.subject, fact.predicate, fact.object, fact.prior, fact.status],
    ['Billing', 'uses', 'Postgres', 'explicit', 'current'],
  );
  assert.deepEqual(fact.evidence, [note]);
  const contradicted = m.citeEvidence({ id, episode: note, polarity: -1 }, person);
  assert.ok(contradicted.confidence < fact.confidence);
  const wrong = m.correct({ id, verdict: 'wrong', reason: 'it moved' }, person);
  assert.equal(wrong.status, 'wrong');
  assert.equal(wrong.ended_reason, 'it moved');
  assert.deepEqual(m.query({ query: 'billing' }).facts, [], 'an ended fact leaves answers');
  assert.deepEqual(
    m.query({ query: 'billing', history: true }).facts.map((f) => f.id),
    [id],
    'and stays in history',
  );
  const confirmed = m.correct({ id, verdict: 'confirm' }, person);
  assert.equal(confirmed.status, 'current');
  assert.equal(confirmed.pinned, true);
  m.close();
});

test('a fact read again is reused, not duplicated: by the offline extractor and by a language model', async () => {
  const m = await Memory.open(tmpFolder('memory'));
  // The offline extractor reads facts from the turns it stores.
  const first = m.remember({ text: 'We use Redis for the session cache.', speaker: 'dana' }, person).id;
  const found = m.export().facts;
  assert.ok(found.length > 0, 'the extractor found a fact');
  const extracted = found[0]!;
  const second = m.remember({ text: 'Yes, we use Redis for the session cache, still.', speaker: 'dana' }, person).id;
  const again = m.fact(extracted.id);
  assert.equal(m.export().facts.length, found.length, 'no second relationship for the same fact');
  assert.deepEqual(again.evidence, [first, second], 'the later turn corroborates the fact');

  // A language model's reading reuses it too, cites each episode once, and asserts what is new.
  const triple = { subject: extracted.subject.toUpperCase(), predicate: extracted.predicate, object: extracted.object };
  const { ids } = m.recordExtraction(
    { episode: second, extractor: 'lm', facts: [triple, triple, { subject: 'Redis', predicate: 'runs on', object: 'Kubernetes' }] },
    agent,
  );
  assert.equal(ids[0], extracted.id);
  assert.equal(ids[1], extracted.id);
  assert.notEqual(ids[2], extracted.id);
  assert.equal(m.fact(extracted.id).evidence.length, 3, 'one citation of the episode for two readings of it');
  const fresh = m.fact(ids[2]!);
  assert.deepEqual([fresh.prior, fresh.authority, fresh.evidence], ['inferred', 'agent', [second]]);
  // Asserted twice in one call (different case): one relationship.
  const twice = m.recordExtraction(
    {
      episode: first,
      extractor: 'lm',
      facts: [
        { subject: 'Cache', predicate: 'is', object: 'warm' },
        { subject: 'cache', predicate: 'IS', object: 'Warm' },
      ],
    },
    agent,
  ).ids;
  assert.equal(twice[0], twice[1]);
  assert.deepEqual(m.fact(twice[0]!).evidence, [first]);
  m.close();
});

test("facts a language model extracted weigh as the agent's, even from a person's turn, and survive a reopen", async () => {
  const dir = tmpFolder('core');
  const m = await Memory.open(dir, { extract: false });
  const model = { authority: 'agent' as const, source: 'lm' };
  const { results } = m.ingest([{ text: 'We decided to move the billing service to Postgres 16.', speaker: 'dana' }], person);
  const episode = results[0]!.id;
  const { ids } = m.recordExtraction(
    {
      episode,
      extractor: 'copilot/gpt-4o',
      facts: [
        { subject: 'billing service', predicate: 'Uses', object: 'Postgres 16' },
        { subject: 'billing service', predicate: 'uses', object: 'postgres 16' },
      ],
    },
    model,
  );
  assert.equal(ids.length, 2);
  assert.equal(ids[0], ids[1], 'the same fact twice in one reading is one relationship');
  const fact = m.fact(ids[0]!);
  assert.equal(fact.authority, 'agent');
  assert.equal(fact.predicate, 'uses');
  assert.deepEqual(fact.evidence, [episode]);
  // The turn is the person's (user authority) but the reading is the model's: held at the inferred prior.
  assert.equal(fact.confidence, 0.6);
  // A second model reading of another turn corroborates the same fact instead of duplicating it.
  const second = m.ingest([{ text: 'billing now talks to Postgres 16 in staging', speaker: 'dana' }], person).results[0]!.id;
  assert.deepEqual(
    m.recordExtraction(
      { episode: second, extractor: 'copilot/gpt-4o', facts: [{ subject: 'Billing Service', predicate: 'uses', object: 'Postgres 16' }] },
      model,
    ).ids,
    [ids[0]],
  );
  assert.equal(m.fact(ids[0]!).confidence, 0.6, 'agent-only corroboration stays at the prior');
  assert.throws(() => m.recordExtraction({ episode: 'ep_999', extractor: 'x', facts: [] }, model), /No episode "ep_999"/);
  assert.throws(
    () => m.recordExtraction({ episode, extractor: 'x', facts: [{ subject: '', predicate: 'uses', object: 'y' }] }, model),
    /subject is empty/,
  );
  m.close();
  const reopened = await Memory.open(dir, { extract: false });
  assert.equal(reopened.fact(ids[0]!).authority, 'agent');
  assert.equal(reopened.fact(ids[0]!).evidence.length, 2);
  reopened.close();
});

test('traverse walks out from an entity hop by hop, and suggests names for a misspelt one', async () => {
  const m = await Memory.open(tmpFolder('memory'), { extract: false });
  m.relate({ subject: 'billing', predicate: 'uses', object: 'Postgres' }, person);
  m.relate({ subject: 'Postgres', predicate: 'runs on', object: 'Kubernetes' }, person);
  m.relate({ subject: 'Kubernetes', predicate: 'hosted by', object: 'AWS' }, person);
  const one = m.traverse({ entity: 'Billing' });
  assert.equal(one.root.name, 'billing');
  assert.deepEqual(
    one.facts.map((f) => [f.object, f.depth]),
    [['Postgres', 1]],
  );
  const two = m.traverse({ entity: 'billing', depth: 2 });
  assert.deepEqual(
    two.facts.map((f) => [f.object, f.depth]),
    [
      ['Postgres', 1],
      ['Kubernetes', 2],
    ],
  );
  assert.deepEqual(two.entities.map((e) => e.name).sort(), ['Kubernetes', 'Postgres', 'billing']);
  assert.throws(
    () => m.traverse({ entity: 'Kubernets' }),
    (err: unknown) => err instanceof MemoryError && err.code === 'not_found' && /Did you mean: Kubernetes/.test(err.hint ?? ''),
  );
  m.close();
});

test('forget erases an entity, its facts and the episodes only about it, from the graph and the journal', async () => {
  const dir = tmpFolder('memory');
  const m = await Memory.open(dir, { extract: false });
  m.ingest(
    [
      { text: 'the flamingo codename is secret', entities: ['Flamingo'], time: '2024-01-01' },
      { text: 'flamingo and billing share a queue', entities: ['Flamingo', 'Billing'], time: '2024-01-02' },
    ],
    person,
  );
  const rel = m.relate({ subject: 'Flamingo', predicate: 'uses', object: 'Kafka' }, person).id;
  const plan = m.forgetPlan('flamingo');
  assert.deepEqual(
    plan.episodes.map((e) => e.id),
    ['ep_1'],
  );
  assert.deepEqual(
    plan.relationships.map((r) => r.id),
    [rel],
  );
  assert.equal(plan.kept_episodes, 1);
  assert.equal(m.status().episodes, 2, 'the plan changes nothing');
  assert.throws(
    () => m.forget('Flamingo', agent),
    (err: unknown) => err instanceof MemoryError && err.code === 'forbidden',
  );
  m.forget('Flamingo', person);
  assert.equal(m.status().episodes, 1);
  assert.equal(m.status().relationships, 0);
  assert.deepEqual(m.episodes({ query: 'codename' }), []);
  assert.deepEqual(m.episodes({})[0]!.entities, ['Billing']);
  assert.doesNotMatch(fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8'), /codename/);
  assert.equal(m.pendingSnapshotEvents, 0, 'forgetting snapshots at once');
  m.close();
});

test('close and reopen replays to the same memory, from the snapshot or from the journal alone', async () => {
  const dir = tmpFolder('memory');
  const m = await Memory.open(dir);
  m.ingest([{ text: 'We moved billing to Postgres 16.', speaker: 'dana', time: '2024-01-01' }], person);
  const id = m.relate({ subject: 'billing', predicate: 'owned by', object: 'Dana', prior: 'speculative' }, person).id;
  m.snapshot();
  const covered = m.seq;
  m.remember({ text: 'Dana leads the billing team.', time: '2024-01-02' }, person);
  m.correct({ id, verdict: 'confirm' }, person);
  const before = m.export({ history: true });
  const seq = m.seq;
  m.close();

  const fromSnapshot = await Memory.open(dir);
  assert.deepEqual(
    fromSnapshot.openReport,
    { rebuilt: false, replayed: seq - covered, reason: undefined },
    'only the events after the snapshot',
  );
  assert.deepEqual(fromSnapshot.export({ history: true }), before);
  assert.equal(fromSnapshot.seq, seq);
  fromSnapshot.close({ snapshot: true });
  assert.ok(fs.existsSync(path.join(dir, SNAPSHOT_FILE)));

  fs.rmSync(path.join(dir, SNAPSHOT_FILE));
  const fromJournal = await Memory.open(dir);
  assert.equal(fromJournal.openReport.rebuilt, true);
  assert.deepEqual(fromJournal.export({ history: true }), before);
  fromJournal.close();

  // A snapshot that does not line up with the journal is rebuilt, with the reason said.
  fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), 'not a database');
  const logs: string[] = [];
  const repaired = await Memory.open(dir, {}, (msg) => logs.push(msg));
  assert.equal(repaired.openReport.rebuilt, true);
  assert.match(repaired.openReport.reason ?? '', /unusable/);
  assert.match(logs.join('\n'), /rebuilding it from the journal/);
  assert.deepEqual(repaired.export({ history: true }), before);
  repaired.close();
});

test('a snapshot taken mid-life reopens to the same answers', async () => {
  const dir = tmpFolder('core');
  const m = await Memory.open(dir);
  m.remember({ text: 'the deploy uses helm charts in the infra repo' }, person);
  m.snapshot();
  m.remember({ text: 'staging is deployed every night at 2am' }, person);
  const before = m.query({ query: 'when is staging deployed' }).episodes.map((e) => e.id);
  m.close();
  const again = await Memory.open(dir);
  assert.equal(again.openReport.replayed, 1, 'only the tail after the snapshot is replayed');
  assert.deepEqual(
    again.query({ query: 'when is staging deployed' }).episodes.map((e) => e.id),
    before,
  );
  again.close();
});

test('status and overview count what the memory holds', async () => {
  const dir = tmpFolder('memory');
  const m = await Memory.open(dir, { extract: false });
  m.ingest([{ text: 'billing uses postgres', entities: ['billing'], session: 's', time: '2024-05-01' }], person);
  m.relate({ subject: 'billing', predicate: 'uses', object: 'postgres' }, person);
  const s = m.status();
  assert.deepEqual(
    [s.episodes, s.entities, s.relationships, s.current_relationships, s.events_since_snapshot, s.snapshot_bytes, s.memory],
    [1, 2, 1, 1, 2, 0, dir],
  );
  assert.equal(s.journal_bytes, fs.statSync(path.join(dir, JOURNAL_FILE)).size);
  assert.ok(m.snapshotDue);
  m.snapshot();
  assert.equal(m.snapshotDue, false);
  assert.ok(m.status().snapshot_bytes > 0);
  const o = m.overview();
  assert.equal(o.entities[0]!.name, 'billing', 'the most connected entity first');
  assert.deepEqual(
    o.sessions.map((x) => [x.session, x.episodes]),
    [['s', 1]],
  );
  m.close();
});

test('bad input is a MemoryError with a code, and a hint where there is something to do', async () => {
  const m = await Memory.open(tmpFolder('memory'), { extract: false, maxTextChars: 50 });
  const note = m.remember({ text: 'a note' }, person).id;
  const rel = m.relate({ subject: 'a', predicate: 'b', object: 'c' }, person).id;
  const cases: [string, () => unknown, string, RegExp | undefined][] = [
    ['no episodes', () => m.ingest([], person), 'invalid_input', undefined],
    ['empty text', () => m.remember({ text: '   ' }, person), 'invalid_input', undefined],
    ['text too long', () => m.remember({ text: 'x'.repeat(51) }, person), 'invalid_input', /smaller episodes/],
    ['bad time', () => m.remember({ text: 'y', time: 'yesterday' }, person), 'invalid_input', /ISO date/],
    ['raised authority', () => m.remember({ text: 'z', authority: 'human' }, agent), 'forbidden', undefined],
    ['a model relates', () => m.relate({ subject: 'a', predicate: 'b', object: 'c' }, agent), 'forbidden', /recall/],
    [
      'unknown prior',
      () => m.relate({ subject: 'a', predicate: 'b', object: 'c', prior: 'sure' as never }, person),
      'invalid_input',
      /explicit/,
    ],
    [
      'missing evidence',
      () => m.relate({ subject: 'a', predicate: 'b', object: 'c', evidence: ['ep_99'] }, person),
      'not_found',
      /recall remember/,
    ],
    ['long name', () => m.relate({ subject: 'a'.repeat(201), predicate: 'b', object: 'c' }, person), 'invalid_input', undefined],
    ['not a fact id', () => m.fact('fact-1'), 'invalid_input', /rel_12/],
    ['no such fact', () => m.fact('rel_99'), 'not_found', /rel_12/],
    ['cite a missing episode', () => m.citeEvidence({ id: rel, episode: 'ep_99', polarity: 1 }, person), 'not_found', undefined],
    ['bad verdict', () => m.correct({ id: rel, verdict: 'maybe' as never }, person), 'invalid_input', undefined],
    ['a model corrects', () => m.correct({ id: rel, verdict: 'wrong' }, agent), 'forbidden', undefined],
    ['extract from nothing', () => m.recordExtraction({ episode: 'ep_99', extractor: 'lm', facts: [] }, agent), 'not_found', /ep_12/],
    [
      'facts not a list',
      () => m.recordExtraction({ episode: note, extractor: 'lm', facts: 'x' as never }, agent),
      'invalid_input',
      undefined,
    ],
    ['empty query', () => m.query({ query: ' ' }), 'invalid_input', undefined],
    ['query too long', () => m.query({ query: 'q'.repeat(10_001) }), 'invalid_input', /question itself/],
    ['limit out of range', () => m.query({ query: 'a', limit: 0 }), 'invalid_input', undefined],
    ['bad mode', () => m.query({ query: 'a', mode: 'fuzzy' as never }), 'invalid_input', undefined],
    ['vector without a model', () => m.query({ query: 'a', mode: 'vector' }), 'unavailable', /recall status/],
    ['since after until', () => m.episodes({ since: '2024-02-01', until: '2024-01-01' }), 'invalid_input', /Swap/],
    ['depth too deep', () => m.traverse({ entity: 'a', depth: 4 }), 'invalid_input', undefined],
    ['confidence floor', () => m.traverse({ entity: 'a', min_confidence: 2 }), 'invalid_input', undefined],
    ['unknown entity', () => m.forgetPlan('zzz'), 'not_found', /recall_search/],
  ];
  for (const [what, run, code, hint] of cases) {
    assert.throws(run, (err: unknown) => {
      assert.ok(err instanceof MemoryError, `${what}: ${String(err)}`);
      assert.equal(err.code, code, what);
      if (hint) assert.match(err.hint ?? '', hint, what);
      return true;
    });
  }
  assert.equal(m.seq, 2, 'nothing that failed was written');
  m.close();
});
