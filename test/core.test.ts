/** Memory end to end in-process, on a real folder: forgetting, snapshots, extracted facts, fused answers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { ensureOrigin } from '../src/core/store/ids';
import { tmpFolder } from './helpers';

const person = { authority: 'human' as const, source: 'test' };

test('forgetting an episode takes its words out of its neighbours too', async () => {
  const m = await Memory.open(tmpFolder('core'), { extract: false });
  m.ingest(
    [
      { text: 'we talked about the weather', session: 's', speaker: 'a', time: '2024-01-01T10:00:00Z' },
      { text: 'the flamingo codename is secret', session: 's', speaker: 'b', time: '2024-01-01T10:01:00Z', entities: ['Flamingo'] },
      { text: 'lunch was fine', session: 's', speaker: 'a', time: '2024-01-01T10:02:00Z' },
    ],
    person,
  );
  // The neighbouring turns are findable through the flamingo turn's words (context column).
  assert.ok(m.query({ query: 'flamingo codename' }).episodes.length >= 2);
  m.forget('Flamingo', person);
  const after = m.query({ query: 'flamingo codename' });
  assert.equal(after.episodes.length, 0, JSON.stringify(after.episodes.map((e) => e.text)));
  assert.equal(m.status().episodes, 2);
  m.close();
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

test('facts: the graph around the top entities and the nearest by embedding, fused, floored by confidence', async () => {
  const m = await Memory.open(tmpFolder('core'), { extract: false });
  const billing = m.relate({ subject: 'billing', predicate: 'uses', object: 'Postgres' }, person).id;
  const weak = m.relate({ subject: 'billing', predicate: 'runs on', object: 'Fridays', prior: 'speculative' }, person).id;
  const unrelated = m.relate({ subject: 'frontend', predicate: 'uses', object: 'Svelte' }, person).id;
  const note = m.remember({ text: 'billing does not run on Fridays' }, person).id;
  // Contradicted until its confidence is under the floor (0.15): left out of answers, kept in history.
  for (let i = 0; i < 15; i++) m.citeEvidence({ id: weak, episode: note, polarity: -1 }, person);
  assert.ok(m.fact(weak).effective_confidence < 0.15);
  const keyword = m.query({ query: 'billing' });
  assert.deepEqual(
    keyword.facts.map((f) => f.id),
    [billing],
    "graph: the named entity's facts, above the floor",
  );
  assert.deepEqual(
    m
      .query({ query: 'billing', history: true })
      .facts.map((f) => f.id)
      .sort(),
    [billing, weak].sort(),
  );
  // The vector channel's facts (rowids, best first, as the service computes them) join the graph's.
  const vectorHits = { episode: [], entity: [], fact: [{ rowid: Number(unrelated.slice(4)), score: 0.9 }] };
  const hybrid = m.query({ query: 'billing', mode: 'hybrid', vectorHits });
  assert.deepEqual(
    hybrid.facts.map((f) => f.id),
    [billing, unrelated],
  );
  assert.ok(hybrid.channels.includes('vector'));
  const vector = m.query({ query: 'billing', mode: 'vector', vectorHits });
  assert.deepEqual(
    vector.facts.map((f) => f.id),
    [unrelated],
    'vector mode: no graph channel',
  );
  assert.deepEqual(vector.entities, []);
  m.close();
});

test("a shared memory's facts come through the vector channel: hits are rowids, its ids are rel_<origin>_N", async () => {
  const dir = tmpFolder('core');
  const origin = ensureOrigin(dir);
  const m = await Memory.open(dir);
  m.relate({ subject: 'billing', predicate: 'runs on', object: 'Postgres' }, person);
  const id = m.relate({ subject: 'frontend', predicate: 'uses', object: 'Svelte' }, person).id;
  assert.match(id, new RegExp(`^rel_${origin}_\\d+$`));
  const [rowid] = m.rowidsOf('rel', [id]);
  assert.ok(rowid !== undefined);
  const vector = m.query({ query: 'anything', mode: 'vector', vectorHits: { episode: [], entity: [], fact: [{ rowid, score: 0.9 }] } });
  assert.deepEqual(
    vector.facts.map((f) => f.id),
    [id],
  );
  m.close();
});
