/**
 * Keyword search over FTS4: episodes and entities ranked by BM25 (ranking.ts), with the weights
 * of the query's recipe (recipes.ts). This is the offline floor every query stands on.
 */
import type { Database } from '../store/sqlite.js';
import { all, scalar } from '../store/sqlite.js';
import { ftsGeneration } from '../store/fts.js';
import { bestPassages } from './passages.js';
import { weightsHandle } from './ranking.js';
import { DEFAULT_RECIPE, type RetrievalConfig } from './recipes.js';
import { LIMITS } from '../model/limits.js';
import type { ProjectScope } from '../model/project.js';
import { ftsOr, queryTerms } from './text.js';

/** A keyword of a question, its BM25 weight, and (for a speaker's name) the one column it is searched in. */
export interface Term {
  term: string;
  weight: number;
  column?: 'speaker';
}

export interface Hit {
  rowid: number;
  score: number;
}

export interface EpisodeFilter {
  since?: number;
  until?: number;
  session?: string;
  source?: string;
  /** Only these projects' episodes (project.ts ProjectScope); absent: every project's. */
  scope?: ProjectScope;
}

/**
 * Top episodes for weighted keyword terms by BM25, optionally filtered. A long turn scores the
 * higher of its own BM25 and the recipe's passages weight times its best passage's (passages.ts).
 */
export function bm25Episodes(db: Database, asked: Term[], limit: number, recipe: RetrievalConfig, filter: EpisodeFilter = {}): Hit[] {
  if (asked.length === 0) return [];
  // The question's own words come first; its spellings, slips and feedback words are cut before them.
  const terms = asked.slice(0, LIMITS.matchTerms);
  const { where, params } = filterSql(filter);
  const { text, speaker, parts } = recipe.columns;
  // Rows holding each phrase come from a cache: matchinfo 'x' would count them again for every statement.
  const turns = (words: Term[], every: boolean, fromRowid: number): Hit[] => {
    const phrases = words.map(matchPhrase);
    return all(
      db,
      `SELECT f.docid AS rowid, recall_bm25(matchinfo(episodes_fts, 'pcnaly'), ?) AS score
         FROM episodes_fts f ${where ? 'JOIN episodes e ON e.rowid = f.docid' : ''}
        WHERE episodes_fts MATCH ? AND f.docid >= ? ${where ? 'AND ' + where : ''}
        ORDER BY score DESC LIMIT ?`,
      [
        weightsHandle({
          ...recipe.bm25,
          columnWeights: [text, speaker, parts],
          termWeights: words.map((t) => t.weight),
          rowsWithHits: phraseRows(db, phrases).flat(),
        }),
        matchOf(phrases, every),
        fromRowid,
        ...params,
        limit,
      ],
    ).map((r) => ({ rowid: Number(r.rowid), score: Number(r.score) }));
  };
  /** The best passage of each long turn among the first candidates (already through the filter), times the passages weight. */
  const passages = (words: Term[], every: boolean, among: Hit[]): Hit[] => {
    // A speaker's name is searched in the speaker column, which a passage is not part of.
    const plain = words.filter((t) => !t.column);
    const { weight, minWords, maxWords } = recipe.passages;
    if (weight === 0 || plain.length === 0) return [];
    const phrases = plain.map(matchPhrase);
    const rows = phraseRows(db, phrases);
    const best = bestPassages(
      db,
      among.slice(0, recipe.candidates).map((h) => h.rowid),
      plain.map((t, i) => ({ ...t, rows: rows[i]![0]! })),
      matchOf(phrases, every),
      { shape: { minWords, maxWords }, bm25: recipe.bm25, column: text },
    );
    return [...best].map(([rowid, score]) => ({ rowid, score: weight * score }));
  };
  const search = (words: Term[], every: boolean, fromRowid = 0): Hit[] => {
    // Whole-turn BM25 finds every turn holding the words; what it misjudges is a long one's rank,
    // so only the first candidates are cut into passages.
    const candidates = turns(words, every, fromRowid);
    return higherOf(candidates, passages(words, every, candidates), limit);
  };
  const plan = searchPlan(db, terms, recipe.maxScoredRows);
  if (plan.rarestRows <= recipe.maxScoredRows) return search(plan.words, false);
  // Every word is common (in a large memory, "how do we build it?"): BM25 barely tells such rows
  // apart, and scoring them all is what costs. Only the newest stored rows are scored, a window
  // expected to hold about maxScoredRows matches; rows holding every word first.
  const from = newestWindowStart(db, plan.rarestRows, recipe.maxScoredRows);
  for (const start of from > 0 ? [from, 0] : [0]) {
    const both = terms.length > 1 ? search(terms, true, start) : [];
    if (both.length >= limit) return both;
    const any = search(plan.words, false, start);
    if (any.length >= limit || start === 0) return any;
  }
  return [];
}

/** Each turn of either list at its higher score, best first. */
function higherOf(turns: Hit[], passages: Hit[], limit: number): Hit[] {
  if (passages.length === 0) return turns;
  const best = new Map(turns.map((h) => [h.rowid, h.score]));
  for (const h of passages) if (h.score > (best.get(h.rowid) ?? 0)) best.set(h.rowid, h.score);
  return [...best]
    .map(([rowid, score]) => ({ rowid, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** FTS4 MATCH text for phrases: all required, or any. */
const matchOf = (phrases: string[], every: boolean): string => phrases.join(every ? ' ' : ' OR ');

/**
 * FTS4 MATCH text for a term (terms are ORed, or all required), quoted; a speaker's name only in the
 * speaker column (FTS4 takes a column filter on a bare word only, so only a plain lower-case word gets one).
 */
function matchPhrase(t: Term): string {
  return t.column && /^[\p{Ll}\p{N}]+$/u.test(t.term) ? `${t.column}:${t.term}` : `"${t.term.replace(/"/g, '')}"`;
}

/**
 * The words to search and score with. Scoring every row that shares a common word with the
 * question is what costs at scale, so past `max` (the recipe's maxScoredRows) matching rows only the
 * rarest words are kept (from the rarest up, while their rows stay under the bound; always at
 * least one). A common word has a low IDF: what it would add to a score is small.
 * `rarestRows`: rows matching the rarest word.
 */
function searchPlan(db: Database, terms: Term[], max: number): { words: Term[]; rarestRows: number } {
  const counted = terms.map((t) => ({ ...t, rows: matchingRows(db, t.term) }));
  const rarestRows = Math.min(...counted.map((c) => c.rows));
  if (counted.reduce((n, c) => n + c.rows, 0) <= max) return { words: terms, rarestRows };
  counted.sort((a, b) => a.rows - b.rows);
  const kept: Term[] = [];
  let rows = 0;
  for (const c of counted) {
    if (kept.length > 0 && rows + c.rows > max) break;
    kept.push({ term: c.term, weight: c.weight, column: c.column });
    rows += c.rows;
  }
  return { words: kept, rarestRows };
}

/** First rowid of the newest rows expected to hold about `max` of a word's `rows` matches. */
function newestWindowStart(db: Database, rows: number, max: number): number {
  const maxRowid = Number(scalar(db, 'SELECT MAX(rowid) FROM episodes') ?? 0);
  return Math.max(0, Math.floor(maxRowid - (max * maxRowid) / Math.max(1, rows)));
}

// Rows per word, and per phrase and column, cached until the index changes (indexEpisode / unindexEpisode clear it).
const rowCounts = new WeakMap<Database, { generation: number; counts: Map<string, number>; columns: Map<string, number[]> }>();

function countsOf(db: Database): { counts: Map<string, number>; columns: Map<string, number[]> } {
  const generation = ftsGeneration(db);
  let cached = rowCounts.get(db);
  if (cached?.generation !== generation) rowCounts.set(db, (cached = { generation, counts: new Map(), columns: new Map() }));
  return cached;
}

/**
 * For each MATCH phrase, the rows of the episodes index holding it in each column (text, speaker, parts):
 * what matchinfo 'x' reports besides a row's own hits. Phrases not cached are counted together,
 * by 'x' itself, on the first row matching any of them.
 */
function phraseRows(db: Database, phrases: string[]): number[][] {
  const { columns } = countsOf(db);
  if (columns.size > 10_000) columns.clear();
  const missing = [...new Set(phrases.filter((p) => !columns.has(p)))];
  if (missing.length > 0) {
    const mi = scalar(db, "SELECT matchinfo(episodes_fts, 'pcx') FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT 1", [
      missing.join(' OR '),
    ]) as Uint8Array | undefined;
    // p, c, then (hits in row, hits in all rows, rows with hits) per phrase and column.
    const m = mi ? new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength / 4) : undefined;
    const c = m ? m[1]! : EPISODE_COLUMNS;
    missing.forEach((p, i) =>
      columns.set(
        p,
        Array.from({ length: c }, (_, j) => (m ? m[2 + 3 * (i * c + j) + 2]! : 0)),
      ),
    );
  }
  return phrases.map((p) => columns.get(p)!);
}

/** Columns of episodes_fts: text, speaker, parts. */
const EPISODE_COLUMNS = 3;

/** Rows of the episodes index that hold a word (cached until the index changes). */
export function matchingRows(db: Database, term: string): number {
  return cachedCount(db, term, () => Number(scalar(db, 'SELECT COUNT(*) FROM episodes_fts WHERE episodes_fts MATCH ?', [ftsOr([term])])));
}

/** Rows in the episodes index (cached as matchingRows is; '' is no word). */
export function indexedRows(db: Database): number {
  return cachedCount(db, '', () => Number(scalar(db, 'SELECT COUNT(*) FROM episodes')));
}

function cachedCount(db: Database, key: string, count: () => number): number {
  const { counts } = countsOf(db);
  let n = counts.get(key);
  if (n === undefined) {
    if (counts.size > 10_000) counts.clear();
    n = count();
    counts.set(key, n);
  }
  return n;
}

/** Top episodes for a free-text query by BM25, optionally filtered. */
export function keywordEpisodes(db: Database, text: string, limit: number, filter: EpisodeFilter = {}, recipe = DEFAULT_RECIPE): Hit[] {
  const terms = queryTerms(text, recipe.query).map((term) => ({ term, weight: 1 }));
  return bm25Episodes(db, terms, limit, recipe, filter);
}

/** Entities whose name or summary matches the query. */
export function keywordEntities(db: Database, text: string, limit: number, recipe = DEFAULT_RECIPE): Hit[] {
  const terms = queryTerms(text);
  if (terms.length === 0) return [];
  return all(
    db,
    `SELECT docid AS rowid, recall_bm25(matchinfo(entities_fts, 'pcnalx'), ?) AS score
       FROM entities_fts WHERE entities_fts MATCH ? ORDER BY score DESC LIMIT ?`,
    [weightsHandle({ ...recipe.bm25, columnWeights: [recipe.entityColumns.name, recipe.entityColumns.summary] }), ftsOr(terms), limit],
  ).map((r) => ({ rowid: Number(r.rowid), score: Number(r.score) }));
}

export function filterSql(filter: EpisodeFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.since !== undefined) {
    clauses.push('e.time_ms >= ?');
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    clauses.push('e.time_ms <= ?');
    params.push(filter.until);
  }
  if (filter.session !== undefined) {
    clauses.push('e.session = ?');
    params.push(filter.session);
  }
  if (filter.source !== undefined) {
    clauses.push('e.source = ?');
    params.push(filter.source);
  }
  if (filter.scope !== undefined) {
    clauses.push('(e.project IS NULL OR e.project = ?)');
    params.push(filter.scope.project);
  }
  return { where: clauses.join(' AND '), params };
}
