/**
 * Knowledge items: what people state and agents learn that should be known before a task, held
 * as facts of the graph (journaled, synced, corrected, anchored, forgotten like every fact), each
 * with its kind and the statement in the words of whoever said it.
 */

/** decision: a choice made; rule: a convention or instruction set; preference: what someone likes; fact: a durable project fact (stack, how to build, where things live); lesson: a problem, its cause and its fix. */
export const KNOWLEDGE_KINDS = ['decision', 'rule', 'preference', 'fact', 'lesson'] as const;
export type KnowledgeKind = (typeof KNOWLEDGE_KINDS)[number];

/** Kinds that hold until superseded, contradicted or marked wrong: their confidence does not decay with time. */
export const HOLDING_KINDS: ReadonlySet<KnowledgeKind> = new Set(['decision', 'rule', 'preference']);

/** Kinds a later item on the same subject supersedes (a rule stands beside another rule on it). */
export const SUPERSEDING_KINDS: ReadonlySet<KnowledgeKind> = new Set(['decision', 'preference']);

export const isKnowledgeKind = (v: unknown): v is KnowledgeKind =>
  typeof v === 'string' && (KNOWLEDGE_KINDS as readonly string[]).includes(v);
