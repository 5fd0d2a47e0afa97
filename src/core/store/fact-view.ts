/** A relationship row (joined with its ends' names) as every reader sees it: confidence derived, status named. */
import type { Check, CheckOutcome, CheckSetter } from '../model/checks.js';
import type { Authority, ConfidenceConfig, PriorKind } from '../model/config.js';
import { HOLDING_KINDS, isKnowledgeKind } from '../model/knowledge.js';
import type { FactStatus, FactView } from '../model/views.js';
import { confidenceOf, effectiveConfidence } from './confidence.js';
import type { Row } from './sqlite.js';

/** Scores and confidences as shown: four decimals. */
export const round = (x: number): number => Math.round(x * 1e4) / 1e4;

export function factView(r: Row, config: ConfidenceConfig, now: number, evidence: string[]): FactView {
  const prior = Number(r.prior);
  const agentOnly = Number(r.corroborated) === 1 && Number(r.corroborated_by_non_agent) === 0;
  const confidence = confidenceOf({ alpha: Number(r.alpha), beta: Number(r.beta) }, prior, agentOnly);
  const pinned = Number(r.pinned) === 1;
  const kind = isKnowledgeKind(r.kind) ? r.kind : undefined;
  // A decision, rule or preference holds until superseded or marked wrong: it does not fade with time.
  const holds = pinned || (kind !== undefined && HOLDING_KINDS.has(kind));
  const status: FactStatus =
    r.valid_to == null ? 'current' : r.ended_by === 'wrong' || r.ended_by === 'retracted' ? (r.ended_by as FactStatus) : 'superseded';
  return {
    id: String(r.id),
    subject: String(r.subject),
    predicate: String(r.predicate),
    object: String(r.object),
    confidence: round(confidence),
    effective_confidence: round(effectiveConfidence(confidence, Number(r.last_reinforced_ms), now, config, holds)),
    prior: r.prior_kind as PriorKind,
    authority: r.authority as Authority,
    evidence,
    valid_from: String(r.valid_from),
    valid_to: (r.valid_to as string | null) ?? null,
    status,
    pinned,
    ...(pinned && r.pinned_by ? { confirmed_by: String(r.pinned_by) } : {}),
    ended_reason: (r.ended_reason as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    learned_at: String(r.learned_at ?? r.valid_from),
    ...(kind ? { kind, statement: String(r.statement ?? '') } : {}),
    ...(r.check_spec ? { check: JSON.parse(String(r.check_spec)) as Check, check_by: r.check_by as CheckSetter } : {}),
    ...(r.outcomes ? { outcomes: JSON.parse(String(r.outcomes)) as Partial<Record<CheckOutcome, number>> } : {}),
  };
}
