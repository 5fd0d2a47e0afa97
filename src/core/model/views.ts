/** What readers get back: the shapes of episodes, entities and facts as every surface shows them. */
import type { Check, CheckOutcome, CheckSetter } from './checks.js';
import type { CodeStatus } from './code-anchors.js';
import type { Authority, PriorKind } from './config.js';
import type { KnowledgeKind } from './knowledge.js';

export interface EpisodeView {
  id: string;
  text: string;
  speaker: string | null;
  role: string | null;
  authority: Authority;
  source: string | null;
  session: string | null;
  ref: string | null;
  time: string;
  entities: string[];
  score?: number;
  /** The project it belongs to; null: the person's own (global) memory. */
  project?: string | null;
  /** The teammate whose memory wrote it (team sync); absent: this memory's own. */
  author?: string;
}

export interface EntityView {
  name: string;
  type: string;
  aliases: string[];
  summary: string;
  episodes: number;
  relationships: number;
  score?: number;
}

/** retracted: the memory file it was read from no longer says it. */
export type FactStatus = 'current' | 'wrong' | 'superseded' | 'retracted';

/** A person's verdicts on a fact: wrong, confirmed, or (a knowledge item) the same as another. */
export const CORRECTIONS = ['wrong', 'confirm', 'same'] as const;
/** A person's correction of a fact; `as` names the item a `same` one says the same as. */
export interface Correction {
  id: string;
  verdict: (typeof CORRECTIONS)[number];
  reason?: string;
  as?: string;
}

export interface FactView {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  effective_confidence: number;
  prior: PriorKind;
  authority: Authority;
  evidence: string[];
  valid_from: string;
  valid_to: string | null;
  status: FactStatus;
  pinned: boolean;
  /** The teammate who confirmed it (team sync); absent when this memory's person did, or nobody. */
  confirmed_by?: string;
  ended_reason: string | null;
  score?: number;
  /** The project it belongs to; null: global. */
  project?: string | null;
  /** When memory learned it (valid_from is when it held). */
  learned_at?: string;
  /** Whether the code the fact names is as it was (absent when it names none, or was not checked). */
  code?: CodeStatus;
  /** A knowledge item's kind (decision, rule, preference, fact, lesson) and its statement; absent on a plain fact. */
  kind?: KnowledgeKind;
  statement?: string;
  /** A rule's check and who set it (a person, its statement's reading, another memory); absent without one. */
  check?: Check;
  check_by?: CheckSetter;
  /** How the hooks' decisions on calls it was about went (absent when none was recorded). */
  outcomes?: Partial<Record<CheckOutcome, number>>;
}
