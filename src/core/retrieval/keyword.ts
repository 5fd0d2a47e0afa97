/**
 * Keyword retrieval over FTS4, ranked by BM25 computed from matchinfo('pcnalx') — sql.js has no
 * FTS5, so the ranking function is ours. This is the offline floor every query stands on.
 *
 * Every number retrieval depends on lives in RETRIEVAL below: what the index holds, how BM25
 * weighs it, and how retrieval.ts re-ranks the keyword hits.
 */
import type { Database } from '../store/sqlite.js';
import { all, scalar } from '../store/sqlite.js';
import { ftsGeneration } from '../store/fts.js';
import { ftsAnd, ftsOr, queryTerms } from './text.js';

export type RetrievalMode = 'keyword' | 'vector' | 'hybrid';

export interface RetrievalConfig {
  bm25: { k1: number; b: number };
  /**
   * BM25 weight of each FTS column: the turn's text, and its speaker's name (a question naming
   * someone then also matches what they said).
   */
  columns: { text: number; speaker: number };
  query: {
    /** Drop function words from the question (text.ts STOP_WORDS). */
    stopWords: boolean;
  };
  /** Re-ranking multipliers: a keyword hit's score is multiplied by (1 + boost) for each that applies. */
  boosts: {
    /** The episode mentions an entity the question names (for a conversation turn: its speaker). */
    named: number;
    /** The episode's time falls within a calendar date the question names, give or take the slack. */
    dated: number;
    dateSlackDays: number;
  };
  /** Keyword hits fetched for re-ranking (more than asked for, so boosts can lift a lower hit). */
  candidates: number;
  /** Past this many rows matching the question's words, only its rarest words are searched (see wordsWorthScoring). */
  maxScoredRows: number;
  /**
   * A reply ("adoption agencies!") is found through the turn it answers: each of the top `from`
   * keyword hits lends `weight` x its score to the turns up to `before` / `after` it in its
   * session. `fetch` x the candidates are fetched first, so lent scores can lift a turn.
   */
  spread: { before: number; after: number; weight: number; from: number; fetch: number };
  /**
   * The channels each retrieval mode runs: `keyword` (BM25 over turns, entity names), `graph`
   * (entities the question names, the dates it names, facts around the top entities) and
   * `vector` (nearest turns, entities and facts by embedding, when a model is loaded).
   */
  modes: Record<RetrievalMode, { keyword: boolean; graph: boolean; vector: boolean }>;
  /** Episodes and entities: weighted reciprocal rank fusion of the channels' lists, each `depth` x limit long. */
  fusion: { k: number; keyword: number; vector: number; depth: number };
  /**
   * Facts: those of the top `seeds` entities (graph; the `perSeed` most recently reinforced of
   * each, so a hub entity costs no more than any other) and those nearest the question (vector),
   * fused by reciprocal rank with a small `k` (the first entity's facts lead), times effective
   * confidence; below `minConfidence` a fact is left out unless history is asked for.
   */
  facts: { seeds: number; perSeed: number; k: number; graph: number; vector: number; minConfidence: number };
}

export const RETRIEVAL: RetrievalConfig = {
  bm25: { k1: 1.2, b: 0.75 },
  columns: { text: 1, speaker: 0.5 },
  query: { stopWords: true },
  boosts: { named: 1, dated: 1, dateSlackDays: 7 },
  candidates: 50,
  maxScoredRows: 2000,
  spread: { before: 1, after: 2, weight: 0.4, from: 60, fetch: 3 },
  modes: {
    keyword: { keyword: true, graph: true, vector: false },
    vector: { keyword: false, graph: false, vector: true },
    hybrid: { keyword: true, graph: true, vector: true },
  },
  fusion: { k: 60, keyword: 1, vector: 1, depth: 3 },
  facts: { seeds: 5, perSeed: 50, k: 1, graph: 1, vector: 1, minConfidence: 0.15 },
};

export interface Bm25Params {
  k1: number;
  b: number;
  /** One weight per FTS column, in column order. */
  columnWeights: number[];
  /** One weight per query phrase, in MATCH order (1 when absent). */
  termWeights?: number[];
}

/**
 * BM25 from matchinfo 'pcnalx': p phrases, c columns, n rows, a[c] average column lengths,
 * l[c] this row's column lengths, x[3*p*c] (hits in row, hits in all rows, rows with hits).
 * Each column is scored as its own field and the fields summed with their weights.
 */
export function bm25(matchinfo: Uint8Array, params: Bm25Params): number {
  const m = new Uint32Array(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength / 4);
  const p = m[0]!;
  const c = m[1]!;
  const n = m[2]!;
  const avg = 2 + 1; // a[] starts after p, c, n
  const len = avg + c;
  const x = len + c;
  let score = 0;
  for (let i = 0; i < p; i++) {
    const tw = params.termWeights?.[i] ?? 1;
    if (tw === 0) continue;
    for (let j = 0; j < c; j++) {
      const w = params.columnWeights[j] ?? 1;
      if (w === 0) continue;
      const base = x + 3 * (i * c + j);
      const tf = m[base]!;
      if (tf === 0) continue;
      const df = m[base + 2]!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const norm = 1 - params.b + params.b * (m[len + j]! / Math.max(1, m[avg + j]!));
      score += tw * w * idf * ((tf * (params.k1 + 1)) / (tf + params.k1 * norm));
    }
  }
  return score;
}

/**
 * Weight sets for `recall_bm25`, by handle. SQL passes one small integer per row rather than
 * weight lists to convert and parse per row: on a broad query the ranking function runs for
 * thousands of rows, and its argument passing is most of its cost.
 */
const weightSets = new Map<number, Bm25Params>();
const weightHandles = new Map<string, number>();
let nextHandle = 1;

export function weightsHandle(columnWeights: number[], termWeights: number[] = []): number {
  const key = `${columnWeights.join(',')}|${termWeights.join(',')}`;
  let handle = weightHandles.get(key);
  if (handle === undefined) {
    if (weightSets.size >= 1024) (weightSets.clear(), weightHandles.clear()); // one per distinct query: bound it
    handle = nextHandle++;
    weightSets.set(handle, { ...RETRIEVAL.bm25, columnWeights, termWeights });
    weightHandles.set(key, handle);
  }
  return handle;
}

/**
 * Registers `recall_bm25(matchinfo(t, 'pcnalx'), weightsHandle(...))` on a database. k1 and b
 * come from RETRIEVAL unless overridden here.
 */
export function registerRanking(db: Database, override: Partial<Pick<Bm25Params, 'k1' | 'b'>> = {}): void {
  const merged = new Map<number, Bm25Params>();
  db.create_function('recall_bm25', (mi: Uint8Array, handle: number) => {
    let params = merged.get(handle);
    if (!params) {
      const set = weightSets.get(handle);
      if (!set) throw new Error(`recall_bm25: unknown weights handle ${handle}`);
      if (merged.size >= 1024) merged.clear();
      merged.set(handle, (params = { ...set, ...override }));
    }
    return bm25(mi, params);
  });
}

// ---- searching ------------------------------------------------------------------------------

export interface Hit {
  rowid: number;
  score: number;
}

export interface EpisodeFilter {
  since?: number;
  until?: number;
  session?: string;
  source?: string;
}

/** Top episodes for weighted keyword terms by BM25, optionally filtered. */
export function bm25Episodes(db: Database, terms: { term: string; weight: number }[], limit: number, filter: EpisodeFilter = {}): Hit[] {
  if (terms.length === 0) return [];
  const { where, params } = filterSql(filter);
  const { text, speaker } = RETRIEVAL.columns;
  const search = (words: { term: string; weight: number }[], every: boolean, fromRowid = 0): Hit[] =>
    all(
      db,
      `SELECT f.docid AS rowid, recall_bm25(matchinfo(episodes_fts, 'pcnalx'), ?) AS score
         FROM episodes_fts f ${where ? 'JOIN episodes e ON e.rowid = f.docid' : ''}
        WHERE episodes_fts MATCH ? AND f.docid >= ? ${where ? 'AND ' + where : ''}
        ORDER BY score DESC LIMIT ?`,
      [weightsHandle([text, speaker], words.map((t) => t.weight)), (every ? ftsAnd : ftsOr)(words.map((t) => t.term)), fromRowid, ...params, limit],
    ).map((r) => ({ rowid: Number(r.rowid), score: Number(r.score) }));
  const plan = searchPlan(db, terms);
  if (plan.rarestRows <= RETRIEVAL.maxScoredRows) return search(plan.words, false);
  // Every word is common (in a large memory, "how do we build it?"): BM25 barely tells such rows
  // apart, and scoring them all is what costs. Only the newest stored rows are scored, a window
  // expected to hold about maxScoredRows matches; rows holding every word first.
  const from = newestWindowStart(db, plan.rarestRows);
  for (const start of from > 0 ? [from, 0] : [0]) {
    const both = terms.length > 1 ? search(terms, true, start) : [];
    if (both.length >= limit) return both;
    const any = search(plan.words, false, start);
    if (any.length >= limit || start === 0) return any;
  }
  return [];
}

/**
 * The words to search and score with. Scoring every row that shares a common word with the
 * question is what costs at scale, so past RETRIEVAL.maxScoredRows matching rows only the
 * rarest words are kept (from the rarest up, while their rows stay under the bound; always at
 * least one). A common word has a low IDF: what it would add to a score is small.
 * `rarestRows`: rows matching the rarest word.
 */
function searchPlan(db: Database, terms: { term: string; weight: number }[]): { words: { term: string; weight: number }[]; rarestRows: number } {
  const max = RETRIEVAL.maxScoredRows;
  const counted = terms.map((t) => ({ ...t, rows: matchingRows(db, t.term) }));
  const rarestRows = Math.min(...counted.map((c) => c.rows));
  if (counted.reduce((n, c) => n + c.rows, 0) <= max) return { words: terms, rarestRows };
  counted.sort((a, b) => a.rows - b.rows);
  const kept: { term: string; weight: number }[] = [];
  let rows = 0;
  for (const c of counted) {
    if (kept.length > 0 && rows + c.rows > max) break;
    kept.push({ term: c.term, weight: c.weight });
    rows += c.rows;
  }
  return { words: kept, rarestRows };
}

/** First rowid of the newest rows expected to hold about maxScoredRows of a word's `rows` matches. */
function newestWindowStart(db: Database, rows: number): number {
  const maxRowid = Number(scalar(db, 'SELECT MAX(rowid) FROM episodes') ?? 0);
  return Math.max(0, Math.floor(maxRowid - (RETRIEVAL.maxScoredRows * maxRowid) / Math.max(1, rows)));
}

// Rows per word, cached until the index changes (indexEpisode / unindexEpisode clear it).
const rowCounts = new WeakMap<Database, { generation: number; counts: Map<string, number> }>();

function matchingRows(db: Database, term: string): number {
  const generation = ftsGeneration(db);
  let cached = rowCounts.get(db);
  if (cached?.generation !== generation) rowCounts.set(db, (cached = { generation, counts: new Map() }));
  const counts = cached.counts;
  let n = counts.get(term);
  if (n === undefined) {
    if (counts.size > 10_000) counts.clear();
    n = Number(scalar(db, 'SELECT COUNT(*) FROM episodes_fts WHERE episodes_fts MATCH ?', [ftsOr([term])]));
    counts.set(term, n);
  }
  return n;
}

/** Top episodes for a free-text query by BM25, optionally filtered. */
export function keywordEpisodes(db: Database, text: string, limit: number, filter: EpisodeFilter = {}): Hit[] {
  const terms = queryTerms(text, RETRIEVAL.query).map((term) => ({ term, weight: 1 }));
  return bm25Episodes(db, terms, limit, filter);
}

/** Entities whose name or summary matches the query. */
export function keywordEntities(db: Database, text: string, limit: number): Hit[] {
  const terms = queryTerms(text);
  if (terms.length === 0) return [];
  return all(
    db,
    `SELECT docid AS rowid, recall_bm25(matchinfo(entities_fts, 'pcnalx'), ?) AS score
       FROM entities_fts WHERE entities_fts MATCH ? ORDER BY score DESC LIMIT ?`,
    [weightsHandle([2, 1]), ftsOr(terms), limit],
  ).map((r) => ({ rowid: Number(r.rowid), score: Number(r.score) }));
}

export function filterSql(filter: EpisodeFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.since !== undefined) (clauses.push('e.time_ms >= ?'), params.push(filter.since));
  if (filter.until !== undefined) (clauses.push('e.time_ms <= ?'), params.push(filter.until));
  if (filter.session !== undefined) (clauses.push('e.session = ?'), params.push(filter.session));
  if (filter.source !== undefined) (clauses.push('e.source = ?'), params.push(filter.source));
  return { where: clauses.join(' AND '), params };
}
