/**
 * The brief: the few things an agent should know before it starts a task, within a token budget.
 * Its sections, each picked from a bounded set of candidates (never the whole memory):
 *   rule        current rule items (a convention or instruction someone set);
 *   decision    decision items, plain facts with a decision predicate (`decided`, `chose`,
 *               `replaces`) and the person's own notes (`user` episodes without a role: what a
 *               person stored with `recall remember` or the editor, not turns of an imported chat,
 *               nor a note stored with a kind: its item says it);
 *   preference  preference items and `prefers` facts;
 *   confirmed   other plain facts a person confirmed (pinned: a confirmed choice stays a decision),
 *               most recently reinforced first;
 *   fact        durable project-fact items, and lesson items in `lesson`, freshest first (they fade);
 *   known       other plain facts at high effective confidence;
 *   repository  items and well-held facts that rest on others' words (`external` evidence: a file in
 *               the repository others wrote) and not on the person's, in their own section naming
 *               the authors, never among the person's; grouped by kind under "Their rules:" and so on.
 * A line names its kind by the title above it, not each line again.
 * Within a section what a person confirmed comes first, then the person's own word before an
 * agent's, then the newest (what was said at once, a file's items, in the order said). The
 * sections take turns, so a memory with hundreds of rules still shows its decisions; what the
 * budget leaves out is named in a footer (brief-text.ts), not only counted.
 * Tokens are counted as characters / 4 (a common rule of thumb for English with BPE tokenisers;
 * no tokeniser is bundled), a Chinese, Japanese or Korean character as a whole token (they take
 * about one each), and the whole text, header and footer included, stays within the budget.
 */
import { invalid } from '../model/errors.js';
import { BRIEF_MIN_TOKENS, LIMIT_DEFAULTS, LIMITS } from '../model/limits.js';
import type { EpisodeView, FactView } from '../model/views.js';
import { scopeOf } from '../model/project.js';
import { scopeSql } from '../store/graph.js';
import { all } from '../store/sqlite.js';
import {
  factLine,
  footer,
  GROUPS,
  noteLine,
  renderBody,
  SECTIONS,
  shortestFooter,
  sizeOf,
  type BriefGroup,
  type BriefSection,
  type Line,
} from './brief-text.js';
import type { JournaledGraph } from './journaled-graph.js';

export type { BriefSection };

/** Predicates the offline extractor and people use for a choice made. */
export const DECISION_PREDICATES = ['decided', 'chose', 'replaces'] as const;
/** Predicates for what someone likes. */
export const PREFERENCE_PREDICATES = ['prefers'] as const;
/** Effective confidence a plain fact needs to be "known" without a person's confirmation. */
export const BRIEF_MIN_CONFIDENCE = 0.8;
/** The footer naming what was left out: this share of the budget is kept for it, at most FOOTER_CHARS characters. */
const FOOTER_SHARE = 0.15;
const FOOTER_CHARS = 240;

/** The person's own word backs the fact: they asserted it, said it or confirmed it. */
const PERSONS_WORD = `(authority IN ('user', 'human') OR EXISTS (SELECT 1 FROM evidence v WHERE v.relationship_rowid = relationships.rowid
  AND v.polarity = 1 AND v.authority IN ('user', 'human')))`;
/** Others' words back it (a repository's files) and the person's do not. */
const OTHERS_WORD = `(NOT ${PERSONS_WORD} AND (authority = 'external' OR EXISTS (SELECT 1 FROM evidence v
  WHERE v.relationship_rowid = relationships.rowid AND v.polarity = 1 AND v.authority = 'external')))`;
/** Confirmed first, then the person's own word, then the newest said; what was said at once (a file's items) in the order said. */
const WEIGHED = `pinned DESC, (authority IN ('user', 'human')) DESC, valid_from DESC, rowid ASC`;
/** Fading kinds: confirmed first, then the freshest (the highest effective confidences are among them). */
const FRESHEST = 'pinned DESC, last_reinforced_ms DESC, rowid ASC';

export interface BriefInput {
  /** The connection's project: the brief reads it and the global memory; null: the global memory alone; absent: everything. */
  project?: string | null;
  budgetTokens?: number;
}

export interface Brief {
  project: string | null;
  /** The brief as a model or a SessionStart hook reads it. */
  text: string;
  /** Its size by the count above (characters / 4, a wide character a token); at most budget_tokens. */
  tokens: number;
  budget_tokens: number;
  /** The facts shown, each with the section it is under. */
  facts: (FactView & { section: BriefSection })[];
  notes: EpisodeView[];
  /** Candidates the budget left out. */
  left_out: number;
  /** The first words of those the footer names (the rest it counts). */
  left_out_titles: string[];
}

/** The token count a brief is held to: characters / 4, rounded up. */
export const approxTokens = (text: string): number => Math.ceil(sizeOf(text) / 4);

export function brief(mem: JournaledGraph, input: BriefInput = {}): Brief {
  const budget = input.budgetTokens ?? LIMIT_DEFAULTS.brief;
  if (!Number.isInteger(budget) || budget < BRIEF_MIN_TOKENS || budget > LIMITS.brief) {
    throw invalid(
      `The brief's budget must be a whole number of tokens from ${BRIEF_MIN_TOKENS} to ${LIMITS.brief}, got ${String(budget)}.`,
    );
  }
  const queues = candidates(mem, input.project);
  const scopeName = input.project ? `project ${input.project}` : input.project === null ? 'your global memory' : 'all projects';
  const header = `Recall brief (${scopeName}); cite ids, ask recall_query for more.`;
  const count = queues.reduce((n, q) => n + q.length, 0);
  if (count === 0) return empty(`Recall brief (${scopeName}): nothing confirmed, decided or preferred yet.`, input.project, budget);

  const chars = budget * 4; // in quarter tokens (sizeOf)
  const room = Math.max(shortestFooter(count).length, Math.min(FOOTER_CHARS, Math.floor(chars * FOOTER_SHARE)));
  const fits = (lines: Line[], more: number): boolean => sizeOf(renderBody(header, lines)) + (more > 0 ? 1 + room : 0) <= chars;
  // Round-robin over the sections, in order of weight, while the whole text (with room for its footer) fits.
  const waiting = queues.map((q) => [...q]);
  const picked: Line[] = [];
  let progress = true;
  while (progress) {
    progress = false;
    for (const q of waiting) {
      const next = q[0];
      if (!next) continue;
      if (!fits([...picked, next], count - picked.length - 1)) {
        q.length = 0; // this section's next line does not fit; shorter lines of other sections may
        continue;
      }
      picked.push(q.shift()!);
      progress = true;
    }
  }
  const body = renderBody(header, picked);
  const chosen = new Set(picked);
  const left = interleave(queues.map((q) => q.filter((l) => !chosen.has(l))));
  const named = left.length ? footer(left, Math.max(room, Math.min(FOOTER_CHARS, chars - sizeOf(body) - 1))) : undefined;
  const text = named ? `${body}\n${named.text}` : body;
  return {
    project: input.project ?? null,
    text,
    tokens: approxTokens(text),
    budget_tokens: budget,
    facts: picked.filter((l) => l.fact).map((l) => ({ ...l.fact!, section: l.section })),
    notes: picked.filter((l) => l.note).map((l) => l.note!),
    left_out: left.length,
    left_out_titles: named?.named ?? [],
  };
}

function empty(text: string, project: string | null | undefined, budget: number): Brief {
  return {
    project: project ?? null,
    text,
    tokens: approxTokens(text),
    budget_tokens: budget,
    facts: [],
    notes: [],
    left_out: 0,
    left_out_titles: [],
  };
}

/** The candidate lines of each section, in SECTIONS order, each list at most a few hundred long. */
function candidates(mem: JournaledGraph, project: string | null | undefined): Line[][] {
  const now = Date.now();
  const cap = LIMITS.briefCandidates;
  const scope = scopeSql('project', scopeOf(project, 'project'));
  const facts = (where: string, order: string, params: unknown[] = []): FactView[] =>
    all(mem.db, `SELECT id FROM relationships WHERE valid_to IS NULL AND ${scope.sql} AND ${where} ORDER BY ${order} LIMIT ?`, [
      ...scope.params,
      ...params,
      cap,
    ])
      .map((r) => mem.graph.factById(String(r.id), now))
      .filter((f): f is FactView => f !== undefined);
  // The person's sections never hold what rests on a repository's words alone, unless the person confirmed it.
  const persons = (where: string, order: string, params: unknown[] = []): FactView[] =>
    facts(`${where} AND (pinned = 1 OR NOT ${OTHERS_WORD})`, order, params);
  const items = (kind: string, order = WEIGHED): FactView[] => persons('kind = ?', order, [kind]);
  const plain = (list: readonly string[]): FactView[] =>
    persons(`kind IS NULL AND predicate IN (${list.map(() => '?').join(', ')})`, WEIGHED, [...list]);

  const seen = new Set<string>();
  const fresh = (section: BriefSection, list: FactView[]): Line[] =>
    list
      .filter((f) => !seen.has(f.id) && seen.add(f.id))
      .map((f) => factLine(section, f, section === 'repository' ? groupOf(f) : undefined));
  // A plain fact the person confirmed is theirs now, whoever said it first; a choice or a liking stays in its section.
  const sectioned: readonly string[] = [...DECISION_PREDICATES, ...PREFERENCE_PREDICATES];
  const confirmed = fresh(
    'confirmed',
    facts(
      `pinned = 1 AND kind IS NULL AND predicate NOT IN (${sectioned.map(() => '?').join(', ')})`,
      'last_reinforced_ms DESC, rowid DESC',
      [...sectioned],
    ),
  );
  const rules = fresh('rule', items('rule'));
  // A note stored with a kind is its item's evidence: the item says it (or, ended, no longer holds), not the note again.
  const notes = mem.graph
    .episodeViews(
      all(
        mem.db,
        `SELECT * FROM episodes WHERE authority = 'user' AND role IS NULL AND ${scope.sql} AND NOT EXISTS (SELECT 1 FROM evidence v
           JOIN relationships r ON r.rowid = v.relationship_rowid WHERE v.episode_id = episodes.id AND r.kind IS NOT NULL)
         ORDER BY time_ms DESC, rowid DESC LIMIT ?`,
        [...scope.params, cap],
      ),
    )
    .map(noteLine);
  const decisions = [...fresh('decision', items('decision')), ...fresh('decision', plain(DECISION_PREDICATES)), ...notes].sort(weighed);
  const preferences = [...fresh('preference', items('preference')), ...fresh('preference', plain(PREFERENCE_PREDICATES))].sort(weighed);
  const fading = (kind: 'fact' | 'lesson'): Line[] => fresh(kind, items(kind, FRESHEST)).sort(byConfidence);
  const projectFacts = fading('fact');
  const lessons = fading('lesson');
  // Recently reinforced facts decay least, so the highest effective confidences are among them.
  const known = fresh(
    'known',
    persons('pinned = 0 AND kind IS NULL', 'last_reinforced_ms DESC, rowid DESC').filter(
      (f) => f.effective_confidence >= BRIEF_MIN_CONFIDENCE,
    ),
  ).sort(byConfidence);
  // What a repository's files say: its items, its choices and preferences, and what it holds firmly; rules first.
  const others = (where: string): FactView[] => facts(`pinned = 0 AND ${OTHERS_WORD} AND ${where}`, 'valid_from DESC, rowid ASC');
  const repository = withAuthors(
    mem,
    fresh('repository', [
      ...others('kind IS NOT NULL'),
      ...others('kind IS NULL').filter((f) => sectioned.includes(f.predicate) || f.effective_confidence >= BRIEF_MIN_CONFIDENCE),
    ]).sort((a, b) => GROUPS.indexOf(a.group!) - GROUPS.indexOf(b.group!) || stamp(b).localeCompare(stamp(a))),
  );
  const bySection: Record<BriefSection, Line[]> = {
    rule: rules,
    decision: decisions,
    preference: preferences,
    confirmed,
    fact: projectFacts,
    lesson: lessons,
    known,
    repository,
  };
  return SECTIONS.map((s) => bySection[s]);
}

function stamp(l: Line): string {
  return l.fact ? l.fact.valid_from : l.note!.time;
}

/** Confirmed, then the person's own (their notes are), then an agent's; newest first within each. */
function weighed(a: Line, b: Line): number {
  const weight = (l: Line): number => (l.fact?.pinned ? 0 : !l.fact || ['user', 'human'].includes(l.fact.authority) ? 1 : 2);
  return weight(a) - weight(b) || stamp(b).localeCompare(stamp(a));
}

function byConfidence(a: Line, b: Line): number {
  return Number(b.fact!.pinned) - Number(a.fact!.pinned) || b.fact!.effective_confidence - a.fact!.effective_confidence;
}

/** A repository fact's group: its kind, or a plain choice's or liking's; any other plain fact is held firmly. */
function groupOf(f: FactView): BriefGroup {
  if (f.kind) return f.kind;
  if ((DECISION_PREDICATES as readonly string[]).includes(f.predicate)) return 'decision';
  return (PREFERENCE_PREDICATES as readonly string[]).includes(f.predicate) ? 'preference' : 'known';
}

/** The left-out lines of every section, taking turns as the sections do: the footer names a few of each. */
function interleave(lists: Line[][]): Line[] {
  const out: Line[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i++) for (const l of lists) if (l[i]) out.push(l[i]!);
  return out;
}

/** The repository facts with the speakers of their external evidence: a file's authors, as ingest named them. */
function withAuthors(mem: JournaledGraph, lines: Line[]): Line[] {
  if (lines.length === 0) return lines;
  const ids = lines.map((l) => l.fact!.id);
  const rows = all(
    mem.db,
    `SELECT DISTINCT r.id AS id, e.speaker AS speaker FROM relationships r JOIN evidence v ON v.relationship_rowid = r.rowid
     JOIN episodes e ON e.id = v.episode_id
     WHERE v.authority = 'external' AND v.polarity = 1 AND e.speaker IS NOT NULL AND r.id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  for (const l of lines) l.authors = rows.filter((r) => r.id === l.fact!.id).map((r) => String(r.speaker));
  return lines;
}
