/**
 * What Recall asks a language model about the knowledge items one project already holds: which of
 * them say the same thing in other words ("Use prepared statements and parameterized queries" and,
 * further down the same file, "Use parameterized queries to prevent SQL injection"). No comparison
 * of words tells such pairs from two rules that share words (docs/BENCHMARKS.md); a model can. It
 * only proposes: a person picks which pairs to join (Same As), as a person's word outranks a model's.
 *
 * The answer is read defensively, as the extraction's is: prose and code fences around the JSON
 * are ignored, and a pair is kept only when both ids were shown, differ, are of one family (a rule
 * is never the same as a fact) and neither is already joined in another pair.
 */
import { sameFamily, type KnowledgeKind } from '../model/knowledge.js';
import { answerEntries } from './extraction-prompt.js';
import { redactSecrets } from './redact.js';

export const JOIN_LIMITS = {
  /** Items shown in one request: a project's rules and decisions first, as its brief has them. */
  items: 80,
  /** A longer statement is cut (its opening says what it is about). */
  statementChars: 300,
  /** Longest answer read; the rest is not waited for. */
  responseChars: 20_000,
} as const;

/** An item as the model is shown it. */
export interface JoinCandidate {
  id: string;
  kind: KnowledgeKind;
  statement: string;
}

/** A pair the model proposes: `id` says what `as` says (the one kept). */
export interface ProposedJoin {
  id: string;
  as: string;
}

export function buildJoinPrompt(items: readonly JoinCandidate[]): string {
  const lines = items.slice(0, JOIN_LIMITS.items).map((i) => {
    const said = redactSecrets(i.statement.replace(/\s+/g, ' ').trim()).text.slice(0, JOIN_LIMITS.statementChars);
    return `[${i.id}] (${i.kind}) ${said}`;
  });
  return [
    "These are the knowledge items one software project's memory holds: rules, decisions, preferences, facts and lessons, each with its id and kind.",
    'Find the pairs where two items say the same thing in other words: the same rule or choice, or the same fact, so that keeping both would say it twice.',
    'Two items that share words but ask for different things are not the same ("Use camelCase for functions" and "Use PascalCase for components" are two rules). A rule is never the same as a fact or a lesson.',
    'For each pair, keep the clearer or more complete item as "as"; the other is "id".',
    'Answer with JSON only, no prose: {"same": [{"id": "<the item said again>", "as": "<the item kept>"}]}. If no two items say the same, answer {"same": []}.',
    '',
    ...lines,
  ].join('\n');
}

/**
 * The pairs proposed in a model's answer that hold (see the file's comment), or undefined when the
 * answer holds no JSON at all.
 */
export function readJoinAnswer(answer: string, items: readonly JoinCandidate[]): ProposedJoin[] | undefined {
  const list = typeof answer === 'string' ? answerEntries(answer.slice(0, JOIN_LIMITS.responseChars), ['same']) : undefined;
  if (!list) return undefined;
  const shown = new Map(items.slice(0, JOIN_LIMITS.items).map((i) => [i.id, i]));
  const used = new Set<string>();
  const out: ProposedJoin[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const o = entry as Record<string, unknown>;
    const id = typeof o.id === 'string' ? o.id.trim() : '';
    const as = typeof o.as === 'string' ? o.as.trim() : '';
    const a = shown.get(id);
    const b = shown.get(as);
    if (!a || !b || id === as || !sameFamily(a.kind, b.kind) || used.has(id) || used.has(as)) continue;
    used.add(id);
    used.add(as);
    out.push({ id, as });
  }
  return out;
}
