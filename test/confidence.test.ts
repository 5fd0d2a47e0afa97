import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addEvidence, confidenceOf, effectiveConfidence, priorState } from '../src/core/store/confidence';
import { DEFAULT_CONFIG, resolveConfig } from '../src/core/model/config';

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
  const external = addEvidence(s, 'external', 1, C);
  assert.ok(Math.abs(external.alpha - 7) < 1e-9);
  const user = addEvidence(s, 'user', -1, C);
  assert.ok(Math.abs(user.beta - 4.8) < 1e-9);
  const agent = addEvidence(s, 'agent', 1, C);
  assert.ok(Math.abs(agent.alpha - 6.05) < 1e-9);
  // confidence = alpha / (alpha + beta)
  assert.ok(Math.abs(confidenceOf(external, 0.6, false) - 7 / 11) < 1e-9);
});

test("a model's own words never lift a fact above its prior, however often repeated", () => {
  let s = priorState('inferred', C);
  for (let i = 0; i < 1000; i++) s = addEvidence(s, 'agent', 1, C);
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
