/**
 * Bayesian confidence of a relationship.
 * Pure functions, the one source of the arithmetic: the graph stores the alpha/beta these compute
 * and the time of last reinforcement; everything a reader sees is derived here.
 */
import type { Authority, ConfidenceConfig, PriorKind } from '../model/config.js';

const DAY_MS = 86_400_000;

export interface BetaState {
  alpha: number;
  beta: number;
}

/** The state a new fact starts from: its prior's mean, held with the configured concentration. */
export function priorState(kind: PriorKind, config: ConfidenceConfig): BetaState {
  const p = config.priors[kind];
  return { alpha: config.concentration * p, beta: config.concentration * (1 - p) };
}

/** The state after one piece of evidence: its provenance weight goes to alpha when it corroborates, to beta when it contradicts. */
export function stateAfterEvidence(state: BetaState, authority: Authority, polarity: 1 | -1, config: ConfidenceConfig): BetaState {
  const w = config.provenanceWeights[authority];
  return polarity > 0 ? { alpha: state.alpha + w, beta: state.beta } : { alpha: state.alpha, beta: state.beta + w };
}

/**
 * Posterior mean alpha / (alpha + beta).
 *
 * `agentOnly` is true when every corroborating piece of evidence came from the model itself:
 * what a model says about itself must never become strong evidence, so such a fact is held at
 * its prior however often the model repeats it.
 */
export function confidenceOf(state: BetaState, prior: number, agentOnly: boolean): number {
  const posterior = state.alpha / (state.alpha + state.beta);
  return agentOnly ? Math.min(posterior, prior) : posterior;
}

/** confidence x 0.5^(days since last reinforced / half-life), floored. Pinned facts do not decay. */
export function effectiveConfidence(
  confidence: number,
  lastReinforcedMs: number,
  nowMs: number,
  config: ConfidenceConfig,
  pinned = false,
): number {
  if (pinned) return confidence;
  const days = Math.max(0, nowMs - lastReinforcedMs) / DAY_MS;
  const decayed = confidence * Math.pow(0.5, days / config.halfLifeDays);
  // The floor bounds what time alone can take away; it never lifts a fact above its own confidence.
  return Math.max(Math.min(config.decayFloor, confidence), decayed);
}
