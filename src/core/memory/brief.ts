/**
 * The brief: the few things an agent should know before it starts a task, within a token budget.
 * Four kinds, each picked from a bounded set of candidates (never the whole memory):
 *   confirmed   current facts a person confirmed (pinned), most recently reinforced first;
 *   decisions   current facts with a decision predicate (`decided`, `chose`, `replaces`), newest
 *               valid_from first, and the person's own notes (`user` episodes without a role: what a
 *               person stored with `recall remember` or the editor, not turns of an imported chat);
 *   preferences current `prefers` facts (what the person likes: global memory once scoped);
 *   known       other current facts at high effective confidence;
 *   repository  decisions, preferences and well-held facts that rest on others' words (`external`
 *               evidence: a file in the repository others wrote) and not on the person's, in their
 *               own section naming the authors, never among the person's.
 * The kinds take turns, so a memory with hundreds of confirmed facts still shows its decisions.
 * Tokens are counted as characters / 4 (a common rule of thumb for English with BPE tokenisers;
 * no tokeniser is bundled), and the whole text, header included, stays within the budget.
 */
import { invalid } from '../model/errors.js';
import { BRIEF_MIN_TOKENS, LIMIT_DEFAULTS, LIMITS } from '../model/limits.js';
import type { EpisodeView, FactView } from '../model/views.js';
import { scopeOf } from '../model/project.js';
import { scopeSql } from '../store/graph.js';
import { all } from '../store/sqlite.js';
import type { JournaledGraph } from './journaled-graph.js';

/** Predicates the offline extractor and people use for a choice made. */
export const DECISION_PREDICATES = ['decided', 'chose', 'replaces'] as const;
/** Predicates for what someone likes. */
export const PREFERENCE_PREDICATES = ['prefers'] as const;
/** Effective confidence a fact needs to be "known" without a person's confirmation. */
export const BRIEF_MIN_CONFIDENCE = 0.8;
/** Characters of a note's text in a brief line. */
const NOTE_CHARS = 160;

export type BriefKind = 'confirmed' | 'decision' | 'preference' | 'known' | 'repository';
/** Authors named in the repository section's title; the rest are counted. */
const AUTHORS_SHOWN = 3;

/** The person's own word backs the fact: they asserted it, said it or confirmed it. */
const PERSONS_WORD = `(authority IN ('user', 'human') OR EXISTS (SELECT 1 FROM evidence v WHERE v.relationship_rowid = relationships.rowid
  AND v.polarity = 1 AND v.authority IN ('user', 'human')))`;
/** Others' words back it (a repository's files) and the person's do not. */
const OTHERS_WORD = `(NOT ${PERSONS_WORD} AND (authority = 'external' OR EXISTS (SELECT 1 FROM evidence v
  WHERE v.relationship_rowid = relationships.rowid AND v.polarity = 1 AND v.authority = 'external')))`;

export interface BriefInput {
  /** The connection's project: the brief reads it and the global memory; null: the global memory alone; absent: everything. */
  project?: string | null;
  budgetTokens?: number;
}

export interface Brief {
  project: string | null;
  /** The brief as a model or a SessionStart hook reads it. */
  text: string;
  /** Its size by the characters / 4 count; at most budget_tokens. */
  tokens: number;
  budget_tokens: number;
  /** The facts shown, each with the section it is under. */
  facts: (FactView & { section: BriefKind })[];
  notes: EpisodeView[];
  /** Candidates the budget left out. */
  left_out: number;
}

/** The token count a brief is held to: characters / 4, rounded up. */
export const approxTokens = (text: string): number => Math.ceil(text.length / 4);

interface Line {
  kind: BriefKind;
  text: string;
  fact?: FactView;
  note?: EpisodeView;
  /** Whose words a repository fact rests on (its external evidence's speakers). */
  authors?: string[];
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const day = (iso: string): string => iso.slice(0, 10);

function factLine(kind: BriefKind, f: FactView): Line {
  // A teammate's confirmation (team sync) is theirs, not this person's: it says whose.
  const how = f.pinned ? (f.confirmed_by ? `confirmed by ${f.confirmed_by}` : 'confirmed') : pct(f.effective_confidence);
  return { kind, fact: f, text: `- [${f.id}] ${f.subject} ${f.predicate} ${f.object} (${how}, since ${day(f.valid_from)})` };
}

function noteLine(e: EpisodeView): Line {
  const text = e.text.replace(/\s+/g, ' ').trim();
  return {
    kind: 'decision',
    note: e,
    text: `- [${e.id}] ${day(e.time)} note${e.author ? ` by ${e.author}` : ''}: ${text.length > NOTE_CHARS ? `${text.slice(0, NOTE_CHARS)}…` : text}`,
  };
}

const SECTION_TITLES: Record<BriefKind, string> = {
  confirmed: 'Confirmed by a person:',
  decision: 'Recent decisions:',
  preference: 'Preferences:',
  known: 'Known with high confidence:',
  repository: "From the repository's files, others' words, not the person's",
};

export function brief(mem: JournaledGraph, input: BriefInput = {}): Brief {
  const budget = input.budgetTokens ?? LIMIT_DEFAULTS.brief;
  if (!Number.isInteger(budget) || budget < BRIEF_MIN_TOKENS || budget > LIMITS.brief) {
    throw invalid(
      `The brief's budget must be a whole number of tokens from ${BRIEF_MIN_TOKENS} to ${LIMITS.brief}, got ${String(budget)}.`,
    );
  }
  const now = Date.now();
  const cap = LIMITS.briefCandidates;
  const scope = scopeSql('project', scopeOf(input.project, 'project'));
  const facts = (where: string, order: string, params: unknown[] = []): FactView[] =>
    all(mem.db, `SELECT id FROM relationships WHERE valid_to IS NULL AND ${scope.sql} AND ${where} ORDER BY ${order} LIMIT ?`, [
      ...scope.params,
      ...params,
      cap,
    ])
      .map((r) => mem.graph.factById(String(r.id), now))
      .filter((f): f is FactView => f !== undefined);
  // The person's kinds never hold a fact that rests on a repository's words alone: those are briefed as theirs.
  const persons = (where: string, order: string, params: unknown[] = []): FactView[] =>
    facts(`${where} AND NOT ${OTHERS_WORD}`, order, params);
  const inList = (list: readonly string[]): string => `predicate IN (${list.map(() => '?').join(', ')})`;

  const seen = new Set<string>();
  const fresh = (kind: BriefKind, list: FactView[]): Line[] =>
    list.filter((f) => !seen.has(f.id) && seen.add(f.id)).map((f) => factLine(kind, f));
  // A fact the person confirmed is theirs now, whoever said it first.
  const confirmed = fresh('confirmed', facts('pinned = 1', 'last_reinforced_ms DESC, rowid DESC'));
  const decided = fresh('decision', persons(inList(DECISION_PREDICATES), 'valid_from DESC, rowid DESC', [...DECISION_PREDICATES]));
  const notes = mem.graph
    .episodeViews(
      all(
        mem.db,
        `SELECT * FROM episodes WHERE authority = 'user' AND role IS NULL AND ${scope.sql} ORDER BY time_ms DESC, rowid DESC LIMIT ?`,
        [...scope.params, cap],
      ),
    )
    .map(noteLine);
  const preferred = fresh(
    'preference',
    persons(inList(PREFERENCE_PREDICATES), 'last_reinforced_ms DESC, rowid DESC', [...PREFERENCE_PREDICATES]),
  );
  // Recently reinforced facts decay least, so the highest effective confidences are among them.
  const known = fresh(
    'known',
    persons('pinned = 0', 'last_reinforced_ms DESC, rowid DESC').filter((f) => f.effective_confidence >= BRIEF_MIN_CONFIDENCE),
  ).sort((a, b) => b.fact!.effective_confidence - a.fact!.effective_confidence);
  // What a repository's files say, newest first: its choices and preferences, and what it holds firmly.
  const briefed: readonly string[] = [...DECISION_PREDICATES, ...PREFERENCE_PREDICATES];
  const repository = withAuthors(
    mem,
    fresh(
      'repository',
      facts(`pinned = 0 AND ${OTHERS_WORD}`, 'valid_from DESC, rowid DESC').filter(
        (f) => briefed.includes(f.predicate) || f.effective_confidence >= BRIEF_MIN_CONFIDENCE,
      ),
    ),
  );
  // Decisions: facts and notes by recency, newest first.
  const decisions = [...decided, ...notes].sort((a, b) => stamp(b).localeCompare(stamp(a)));

  const scopeName = input.project ? `project ${input.project}` : input.project === null ? 'your global memory' : 'all projects';
  const header = `Recall brief (${scopeName}); cite ids, ask recall_query for more.`;
  const queues = [confirmed, decisions, preferred, known, repository];
  const candidates = queues.reduce((n, q) => n + q.length, 0);
  const picked: Line[] = [];
  const size = (lines: Line[], more: number): number => approxTokens(render(header, lines, more));
  // Round-robin over the kinds, in order of weight, while the whole text (with its "more" footer) fits.
  let progress = true;
  while (progress) {
    progress = false;
    for (const q of queues) {
      const next = q[0];
      if (!next) continue;
      const remaining = candidates - picked.length - 1;
      if (size([...picked, next], remaining) > budget) {
        q.length = 0; // this kind's next line does not fit; shorter lines of other kinds may
        continue;
      }
      picked.push(q.shift()!);
      progress = true;
    }
  }
  const leftOut = candidates - picked.length;
  const text = candidates ? render(header, picked, leftOut) : `Recall brief (${scopeName}): nothing confirmed, decided or preferred yet.`;
  return {
    project: input.project ?? null,
    text,
    tokens: approxTokens(text),
    budget_tokens: budget,
    facts: picked.filter((l) => l.fact).map((l) => ({ ...l.fact!, section: l.kind })),
    notes: picked.filter((l) => l.note).map((l) => l.note!),
    left_out: leftOut,
  };
}

function stamp(l: Line): string {
  return l.fact ? l.fact.valid_from : l.note!.time;
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

/** The repository section's title: whose words they are, the first few named. */
function repositoryTitle(lines: Line[]): string {
  const authors = [...new Set(lines.flatMap((l) => l.authors ?? []))];
  const named = authors.slice(0, AUTHORS_SHOWN).join(', ');
  const more = authors.length > AUTHORS_SHOWN ? ` and ${authors.length - AUTHORS_SHOWN} more` : '';
  return `${SECTION_TITLES.repository}${authors.length ? ` (authors: ${named}${more})` : ''}:`;
}

function render(header: string, lines: Line[], more: number): string {
  const out = [header];
  for (const kind of Object.keys(SECTION_TITLES) as BriefKind[]) {
    const of = lines.filter((l) => l.kind === kind);
    if (of.length) out.push(kind === 'repository' ? repositoryTitle(of) : SECTION_TITLES[kind], ...of.map((l) => l.text));
  }
  if (more > 0) out.push(`(+${more} more)`);
  return out.join('\n');
}
