/**
 * Confidence: the arithmetic of confidence.ts, and the same numbers on the path that ships (facts
 * stored by the graph, read back through Memory, replayed from the journal).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { confidenceOf, effectiveConfidence, priorState, stateAfterEvidence } from '../src/core/store/confidence';
import { DEFAULT_CONFIG, resolveConfig, type Authority } from '../src/core/model/config';
import type { EventBody, MemoryEvent } from '../src/core/model/events';
import { Memory } from '../src/core/memory/memory';
import { Graph } from '../src/core/store/graph';
import { all, loadSqlJs } from '../src/core/store/sqlite';
import { tmpFolder } from './helpers';

const C = DEFAULT_CONFIG.confidence;
const DAY = 86_400_000;

test('priors: alpha = 10p, beta = 10(1-p) for explicit, inferred, speculative', () => {
  const explicit = priorState('explicit', C);
  assert.ok(Math.abs(explicit.alpha - 9) < 1e-9 && Math.abs(explicit.beta - 1) < 1e-9);
  const inferred = priorState('inferred', C);
  assert.ok(Math.abs(inferred.alpha - 6) < 1e-9 && Math.abs(inferred.beta - 4) < 1e-9);
  const speculative = priorState('speculative', C);
  assert.ok(Math.abs(speculative.alpha - 3) < 1e-9 && Math.abs(speculative.beta - 7) < 1e-9);
});

test('evidence adds its provenance weight to alpha (corroborating) or beta (contradicting)', () => {
  const s = priorState('inferred', C);
  const external = stateAfterEvidence(s, 'external', 1, C);
  assert.ok(Math.abs(external.alpha - 6.5) < 1e-9);
  const user = stateAfterEvidence(s, 'user', -1, C);
  assert.ok(Math.abs(user.beta - 4.8) < 1e-9);
  const agent = stateAfterEvidence(s, 'agent', 1, C);
  assert.ok(Math.abs(agent.alpha - 6.05) < 1e-9);
  // confidence = alpha / (alpha + beta)
  assert.ok(Math.abs(confidenceOf(external, 0.6, false) - 6.5 / 10.5) < 1e-9);
  assert.ok(C.provenanceWeights.external < C.provenanceWeights.user, "others' words (a repository's files) weigh less than the person's");
});

test("a model's own words never lift a fact above its prior, however often repeated", () => {
  let s = priorState('inferred', C);
  for (let i = 0; i < 1000; i++) s = stateAfterEvidence(s, 'agent', 1, C);
  assert.ok(s.alpha / (s.alpha + s.beta) > 0.6, 'the raw posterior moved');
  assert.equal(confidenceOf(s, 0.6, true), 0.6);
});

test('decay halves effective confidence every half-life, floored at 0.05, reset by reinforcement', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.ok(Math.abs(effectiveConfidence(0.8, now - 90 * DAY, now, C) - 0.4) < 1e-9);
  assert.ok(Math.abs(effectiveConfidence(0.8, now - 180 * DAY, now, C) - 0.2) < 1e-9);
  assert.equal(effectiveConfidence(0.8, now - 3650 * DAY, now, C), 0.05);
  assert.equal(effectiveConfidence(0.8, now, now, C), 0.8);
  assert.equal(effectiveConfidence(0.8, now - 3650 * DAY, now, C, true), 0.8, 'pinned facts do not decay');
  assert.equal(effectiveConfidence(0.03, now - 3650 * DAY, now, C), 0.03, 'the floor never lifts a fact');
});

test('every number is configurable and validated', () => {
  const c = resolveConfig({ confidence: { halfLifeDays: 30, provenanceWeights: { agent: 0.01 }, priors: { explicit: 0.95 } } });
  assert.equal(c.confidence.halfLifeDays, 30);
  assert.equal(c.confidence.provenanceWeights.agent, 0.01);
  assert.equal(c.confidence.provenanceWeights.user, 0.8);
  assert.equal(c.confidence.priors.explicit, 0.95);
  const now = Date.now();
  assert.ok(Math.abs(effectiveConfidence(0.8, now - 30 * DAY, now, c.confidence) - 0.4) < 1e-9);
  assert.throws(() => resolveConfig({ confidence: { priors: { explicit: 1.5 } } }), /between 0 and 1/);
  assert.throws(() => resolveConfig({ confidence: { halfLifeDays: 0 } }), /half-life/);
});

// ---- the path that ships: facts stored by the graph and read back --------------------------

/** The posterior computed here, apart from confidence.ts: prior mean p held with concentration c, plus evidence weights. */
function expected(c: number, p: number, corroborating: number[], contradicting: number[]): Posterior {
  const alpha = c * p + corroborating.reduce((a, w) => a + w, 0);
  const beta = c * (1 - p) + contradicting.reduce((a, w) => a + w, 0);
  return { alpha, beta, confidence: Math.round((alpha / (alpha + beta)) * 1e4) / 1e4 };
}

const AT = '2024-02-01T12:00:00.000Z';
let seq = 0;

interface Posterior {
  alpha: number;
  beta: number;
  confidence: number;
}

/** A graph on its own database holding a user, an external and an agent turn, and `stored`: a fact's posterior as stored, and its confidence as read. */
async function graphWith(config: ReturnType<typeof resolveConfig>): Promise<{ graph: Graph; stored: (id: string) => Posterior }> {
  const db = new (await loadSqlJs()).Database();
  Graph.createSchema(db);
  const graph = new Graph(db, config);
  const episodes = (['user', 'external', 'agent'] as const).map((authority, i) => ({
    id: `ep_${i + 1}`,
    text: `turn ${i + 1}`,
    hash: `h${i}`,
    authority,
    time: AT,
  }));
  graph.applyAll([{ type: 'episodes.add', episodes, seq: ++seq, at: AT, by: { authority: 'user' } }]);
  const stored = (id: string): Posterior => {
    const row = all(db, 'SELECT alpha, beta FROM relationships WHERE id = ?', [id])[0]!;
    return { alpha: Number(row.alpha), beta: Number(row.beta), confidence: graph.factById(id)!.confidence };
  };
  return { graph, stored };
}

const apply = (graph: Graph, body: EventBody, authority: Authority = 'human'): void =>
  graph.applyAll([{ ...body, seq: ++seq, at: AT, by: { authority } } as MemoryEvent]);

function assertState(actual: Posterior, want: Posterior, what: string): void {
  assert.ok(Math.abs(actual.alpha - want.alpha) < 1e-9, `${what}: alpha ${actual.alpha}, expected ${want.alpha}`);
  assert.ok(Math.abs(actual.beta - want.beta) < 1e-9, `${what}: beta ${actual.beta}, expected ${want.beta}`);
  assert.equal(actual.confidence, want.confidence, what);
}

test("the graph stores each fact's prior and evidence as the Beta posterior, weighed by who gave it", async () => {
  // Numbers unlike the defaults, so a constant hard-coded anywhere on the path shows.
  const config = resolveConfig({
    confidence: { concentration: 7, priors: { inferred: 0.55 }, provenanceWeights: { user: 0.7, external: 1.3, human: 4 } },
  });
  const w = config.confidence.provenanceWeights;
  const { graph, stored } = await graphWith(config);
  apply(graph, {
    type: 'relationship.assert',
    id: 'rel_1',
    subject: 'a',
    predicate: 'uses',
    object: 'b',
    prior: 'inferred',
    evidence: ['ep_1'],
  });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7], []), 'asserted with a user turn as evidence');
  apply(graph, { type: 'relationship.evidence', id: 'rel_1', episode: 'ep_2', polarity: -1 });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7], [1.3]), 'contradicted by an external turn');
  apply(graph, { type: 'relationship.evidence', id: 'rel_1', episode: 'ep_3', polarity: 1 });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7, w.agent], [1.3]), 'corroborated by an agent turn');
  // A language model's reading weighs as the agent's, whoever spoke the turn.
  apply(graph, { type: 'relationship.evidence', id: 'rel_1', episode: 'ep_1', polarity: 1, extractedBy: 'lm' });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7, w.agent, w.agent], [1.3]), "a model's reading of a user turn");
  apply(graph, { type: 'relationship.correct', id: 'rel_1', verdict: 'confirm' });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7, w.agent, w.agent, 4], [1.3]), 'confirmed by a person');
  apply(graph, { type: 'relationship.correct', id: 'rel_1', verdict: 'wrong' });
  assertState(stored('rel_1'), expected(7, 0.55, [0.7, w.agent, w.agent, 4], [1.3, 4]), 'marked wrong by a person');
  // Each prior starts where its mean says.
  for (const [i, prior] of (['explicit', 'inferred', 'speculative'] as const).entries()) {
    apply(graph, { type: 'relationship.assert', id: `rel_${i + 2}`, subject: 'x', predicate: `p${i}`, object: 'y', prior });
    assertState(stored(`rel_${i + 2}`), expected(7, config.confidence.priors[prior], [], []), `a new ${prior} fact`);
  }
});

test("through the graph too, a model's own corroboration never lifts a fact above its prior", async () => {
  const { graph, stored } = await graphWith(resolveConfig());
  apply(
    graph,
    { type: 'relationship.assert', id: 'rel_1', subject: 'a', predicate: 'uses', object: 'b', prior: 'inferred', assertedBy: 'agent' },
    'agent',
  );
  for (let i = 0; i < 50; i++) apply(graph, { type: 'relationship.evidence', id: 'rel_1', episode: 'ep_3', polarity: 1 }, 'agent');
  const agentOnly = stored('rel_1');
  assert.ok(agentOnly.alpha / (agentOnly.alpha + agentOnly.beta) > 0.6, 'the stored posterior moved');
  assert.equal(agentOnly.confidence, 0.6);
  // One turn of a user's lifts the hold: the posterior shows.
  apply(graph, { type: 'relationship.evidence', id: 'rel_1', episode: 'ep_1', polarity: 1 });
  assertState(stored('rel_1'), expected(10, 0.6, [...Array(50).fill(0.05), 0.8], []), 'corroborated by a user turn');
});

test("through Memory: a fact's confidence follows its evidence and replays to the same value", async () => {
  const dir = tmpFolder('confidence');
  const person = { authority: 'human' as const, source: 'test' };
  let m = await Memory.open(dir, { extract: false });
  const note = m.remember({ text: 'billing is written in Go' }, person).id;
  const id = m.relate({ subject: 'billing', predicate: 'written in', object: 'Go', prior: 'speculative', evidence: [note] }, person).id;
  m.citeEvidence({ id, episode: note, polarity: -1 }, person);
  m.citeEvidence({ id, episode: note, polarity: 1 }, person);
  // A person's note is `user` evidence.
  const want = expected(10, 0.3, [0.8, 0.8], [0.8]).confidence;
  assert.equal(m.fact(id).confidence, want);
  m.close();
  fs.rmSync(path.join(dir, 'snapshot.sqlite'), { force: true });
  m = await Memory.open(dir, { extract: false });
  assert.equal(m.fact(id).confidence, want, 'replayed from the journal');
  m.close();
});
