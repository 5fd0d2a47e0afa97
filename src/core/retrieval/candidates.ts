/**
 * Stage two: episode candidates. BM25 over the turns (each indexed with its speaker and the words
 * of its code identifiers), a long turn scored the higher of itself and its best passage, and for
 * each date the question names the best matches inside it too, so the dated boost can lift a turn
 * its words alone rank below the candidates. This is the offline floor every query stands on.
 */
import { LIMITS } from '../model/limits.js';
import type { SearchIndex } from '../store/search-index.js';
import { dateWindows } from './dates.js';
import { bestPassages } from './passages.js';
import { DEFAULT_RECIPE, runs, type RetrievalRecipe } from './recipe.js';
import { queryTerms } from './text.js';
import type { DateMention, EpisodeFilter, Hit, QueryAnalysis, Term } from './types.js';

/** Top turns for a free-text query by BM25 (an episode listing's search), optionally filtered. */
export function searchEpisodes(
  index: SearchIndex,
  text: string,
  limit: number,
  filter: EpisodeFilter = {},
  recipe = DEFAULT_RECIPE,
): Hit[] {
  const terms = queryTerms(text, { stopWords: runs(recipe.analyse, 'stopWords') }).map((term) => ({ term, weight: 1 }));
  return searchTurns(index, terms, limit, recipe, filter);
}

/** The candidates for a question: `fetch` x as many as rescoring keeps, so what neighbours lend can lift a turn. */
export function episodeCandidates(
  index: SearchIndex,
  q: QueryAnalysis,
  limit: number,
  recipe: RetrievalRecipe,
  filter: EpisodeFilter,
): Hit[] {
  const { candidates } = recipe;
  const hits = searchTurns(index, q.search, Math.max(limit, candidates.count) * candidates.fetch, recipe, filter);
  return runs(candidates, 'dateWindows') ? withinDates(index, hits, q.search, q.dates, recipe, filter) : hits;
}

/**
 * Top turns for weighted keyword terms by BM25, optionally filtered. A long turn scores the
 * higher of its own BM25 and the recipe's passages weight times its best passage's (passages.ts).
 */
export function searchTurns(index: SearchIndex, asked: Term[], limit: number, recipe: RetrievalRecipe, filter: EpisodeFilter = {}): Hit[] {
  if (asked.length === 0) return [];
  // The question's own words come first; its spellings and slips are cut before them.
  const terms = asked.slice(0, LIMITS.matchTerms);
  const { candidates } = recipe;
  const { text, speaker, parts } = candidates.columns;
  // Rows holding each phrase come from the index's cache: matchinfo 'x' would count them again for every statement.
  const turns = (words: Term[], every: boolean, fromRowid: number): Hit[] => {
    const phrases = words.map(matchPhrase);
    return index.bm25Turns(
      matchOf(phrases, every),
      phrases,
      { ...candidates.bm25, columnWeights: [text, speaker, parts], termWeights: words.map((t) => t.weight) },
      { fromRowid, filter, limit },
    );
  };
  /** The best passage of each long turn among the first candidates (already through the filter), times the passages weight. */
  const passages = (words: Term[], every: boolean, among: Hit[]): Hit[] => {
    // A speaker's name is searched in the speaker column, which a passage is not part of.
    const plain = words.filter((t) => !t.column);
    if (!runs(candidates, 'passages') || plain.length === 0) return [];
    const { weight, minWords, maxWords } = candidates.passages;
    const phrases = plain.map(matchPhrase);
    const rows = index.phraseRows(phrases);
    const best = bestPassages(
      index,
      among.slice(0, candidates.count).map((h) => h.rowid),
      plain.map((t, i) => ({ ...t, rows: rows[i]![0]! })),
      matchOf(phrases, every),
      { shape: { minWords, maxWords }, bm25: candidates.bm25, column: text },
    );
    return [...best].map(([rowid, score]) => ({ rowid, score: weight * score }));
  };
  const search = (words: Term[], every: boolean, fromRowid = 0): Hit[] => {
    // Whole-turn BM25 finds every turn holding the words; what it misjudges is a long one's rank,
    // so only the first candidates are cut into passages.
    const found = turns(words, every, fromRowid);
    return higherOf(found, passages(words, every, found), limit);
  };
  const plan = searchPlan(index, terms, candidates.maxScoredRows);
  if (plan.rarestRows <= candidates.maxScoredRows) return search(plan.words, false);
  // Every word is common (in a large memory, "how do we build it?"): BM25 barely tells such rows
  // apart, and scoring them all is what costs. Only the newest stored rows are scored, a window
  // expected to hold about maxScoredRows matches; rows holding every word first.
  const from = newestWindowStart(index, plan.rarestRows, candidates.maxScoredRows);
  for (const start of from > 0 ? [from, 0] : [0]) {
    const both = terms.length > 1 ? search(terms, true, start) : [];
    if (both.length >= limit) return both;
    const any = search(plan.words, false, start);
    if (any.length >= limit || start === 0) return any;
  }
  return [];
}

/**
 * A date the question names also fetches the best keyword matches inside its window (give or take
 * the slack), so the dated boost can lift a turn that its words alone rank below the candidates.
 */
function withinDates(
  index: SearchIndex,
  hits: Hit[],
  terms: Term[],
  dates: DateMention[],
  recipe: RetrievalRecipe,
  filter: EpisodeFilter,
): Hit[] {
  if (dates.length === 0) return hits;
  const seen = new Set(hits.map((h) => h.rowid));
  // Within the caller's own time bounds too: a date never widens the filter.
  const more = dateWindows(dates, recipe.rescore.boosts).flatMap((w) => {
    const since = Math.max(w.since, filter.since ?? -Infinity);
    const until = Math.min(w.until, filter.until ?? Infinity);
    return since <= until ? searchTurns(index, terms, recipe.candidates.count, recipe, { ...filter, since, until }) : [];
  });
  for (const h of more) {
    if (seen.has(h.rowid)) continue;
    seen.add(h.rowid);
    hits.push(h);
  }
  return more.length > 0 ? hits.sort((a, b) => b.score - a.score) : hits;
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
function searchPlan(index: SearchIndex, terms: Term[], max: number): { words: Term[]; rarestRows: number } {
  const counted = terms.map((t) => ({ ...t, rows: index.matchingRows(t.term) }));
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
function newestWindowStart(index: SearchIndex, rows: number, max: number): number {
  const maxRowid = index.lastRowid();
  return Math.max(0, Math.floor(maxRowid - (max * maxRowid) / Math.max(1, rows)));
}
