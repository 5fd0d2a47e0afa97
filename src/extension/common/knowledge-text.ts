/**
 * How facts and knowledge items read on every surface (the trees, the graph view, `@recall`): an
 * item by its kind and statement, a plain fact by its triple; a person's confirmation as
 * "confirmed", never a percentage; items listed by kind, rules and decisions first. vscode-free:
 * the graph's webview script and node tests use it as the extension does.
 */
import type { Check, CheckOutcome, CheckSetter } from '../../core/model/checks.js';
import { KNOWLEDGE_KINDS, type KnowledgeKind } from '../../core/model/knowledge.js';
import type { FactView } from '../../core/model/views.js';

type Said = Pick<FactView, 'subject' | 'predicate' | 'object' | 'kind' | 'statement'>;

/** The order items are listed in: what holds and is easiest to break unknowingly first (a Record, so a new kind must be placed). */
const RANK: Record<KnowledgeKind, number> = { rule: 0, decision: 1, preference: 2, fact: 3, lesson: 4 };
export const KIND_ORDER: readonly KnowledgeKind[] = [...KNOWLEDGE_KINDS].sort((a, b) => RANK[a] - RANK[b]);

/** A heading per kind. */
export const KIND_TITLES: Record<KnowledgeKind, string> = {
  rule: 'Rules',
  decision: 'Decisions',
  preference: 'Preferences',
  fact: 'Project facts',
  lesson: 'Lessons learned',
};

export const pct = (x: number): string => `${Math.round(x * 100)}%`;

const flat = (text: string, max: number): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** "confirmed" (a person's confirmation is certainty), else the effective confidence. */
export const confidenceText = (f: Pick<FactView, 'pinned' | 'effective_confidence'>): string =>
  f.pinned ? 'confirmed' : pct(f.effective_confidence);

/** What a fact says: "rule: Never log the database URL." for an item, "Recall uses sql.js" for a plain fact. */
export const factSaying = (f: Said, max = 120): string =>
  f.kind ? `${f.kind}: ${flat(f.statement ?? '', max)}` : `${f.subject} ${f.predicate} ${f.object}`;

/** Facts grouped under their kind, in KIND_ORDER; plain facts (no kind) last, under `kind: undefined`. Order within a group is kept. */
export function byKind<T extends Pick<FactView, 'kind'>>(facts: T[]): { kind?: KnowledgeKind; facts: T[] }[] {
  const groups = [...KIND_ORDER, undefined].map((kind) => ({ kind, facts: facts.filter((f) => f.kind === kind) }));
  return groups.filter((g) => g.facts.length > 0).map((g) => (g.kind ? g : { facts: g.facts }));
}

/** What hooks decided on a rule, most telling first (a Record, so a new outcome must be placed). */
const OUTCOME_RANK: Record<CheckOutcome, number> = { blocked: 0, asked: 1, overridden: 2, complied: 3 };
const OUTCOME_ORDER = (Object.keys(OUTCOME_RANK) as CheckOutcome[]).sort((a, b) => OUTCOME_RANK[a] - OUTCOME_RANK[b]);
const CHECK_PARTS = ['command', 'path', 'tool', 'url'] as const;
const SETTERS: Record<CheckSetter, string> = { person: 'you', statement: 'its words', peer: "a teammate's memory" };

/** "blocked 2, asked 1, complied 5"; empty when hooks decided nothing on it yet. */
export function outcomesText(f: Pick<FactView, 'outcomes'>): string {
  const o = f.outcomes ?? {};
  return OUTCOME_ORDER.filter((k) => (o[k] ?? 0) > 0)
    .map((k) => `${k} ${o[k]}`)
    .join(', ');
}

/** "command git push --force* (set by you)". Written here, not with checks.ts's describeCheck, since the graph's page script runs in a browser. */
export function checkText(c: Check, by?: CheckSetter): string {
  const parts = CHECK_PARTS.filter((k) => c[k]?.length).map((k) => `${k} ${c[k]!.join(' or ')}`);
  return `${parts.join('; ')}${c.instead ? ` (instead: ${c.instead})` : ''} (set by ${SETTERS[by ?? 'statement']})`;
}

/** "check: command git push --force* (set by you) · hooks: blocked 2", or '' for an item with neither. */
export function checkLine(f: Pick<FactView, 'check' | 'check_by' | 'outcomes'>): string {
  const outcomes = outcomesText(f);
  return [f.check ? `check: ${checkText(f.check, f.check_by)}` : '', outcomes ? `hooks: ${outcomes}` : ''].filter(Boolean).join(' · ');
}
