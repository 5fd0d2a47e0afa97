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

/**
 * Kinds one statement can be read as, by one source or another: what the person set (a memory file's
 * rule, a turn's decision) is one family; what was found out is the other.
 */
export const FAMILY: Record<KnowledgeKind, readonly KnowledgeKind[]> = {
  rule: ['rule', 'decision', 'preference'],
  decision: ['rule', 'decision', 'preference'],
  preference: ['rule', 'decision', 'preference'],
  fact: ['fact', 'lesson'],
  lesson: ['fact', 'lesson'],
};

/** Whether one statement could be read as either kind (see FAMILY). */
export const sameFamily = (a: KnowledgeKind, b: KnowledgeKind): boolean => FAMILY[a].includes(b);

export const isKnowledgeKind = (v: unknown): v is KnowledgeKind =>
  typeof v === 'string' && (KNOWLEDGE_KINDS as readonly string[]).includes(v);
