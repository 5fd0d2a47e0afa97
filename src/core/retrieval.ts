/**
 * Answering a question: which episodes, entities and facts are the best evidence for it.
 *
 * Episodes: BM25 over FTS4 (each turn indexed with its speaker and neighbouring turns, see
 * search.ts) gives candidates; they are then re-ranked by what the question says beyond its
 * keywords — the entities it names (graph: entity -> episodes mentioning it) and the calendar
 * dates it names (episode time). Every weight is in RETRIEVAL (search.ts).
 * Facts: those of the entities the question names.
 */
import { all, numericId as rowidOf, type EntityView, type EpisodeView, type FactView, type Graph } from './graph.js';
import { bm25Episodes, keywordEntities, RETRIEVAL, type Hit } from './search.js';
import type { Database } from './sqlite.js';
import { dateMentions, queryTerms, type DateMention } from './text.js';

export interface Retrieved {
  facts: FactView[];
  entities: EntityView[];
  episodes: EpisodeView[];
  /** Which retrieval channels ran, and why any did not. */
  channels: string[];
}

export interface RetrieveOptions {
  text: string;
  limit: number;
  history?: boolean;
  now: number;
}

/** What the question says: its keywords, the entities it names, the dates it names. */
export interface QueryAnalysis {
  terms: { term: string; weight: number }[];
  named: number[];
  dates: DateMention[];
}

export function analyseQuery(db: Database, text: string): QueryAnalysis {
  const dates = dateMentions(text);
  const named = namedEntities(db, text);
  // Date words are matched against episode times, not against the words of turns.
  let words = RETRIEVAL.query.dropDates ? dates.reduce((t, d) => t.replace(d.text, ' '), text) : text;
  // Names the graph resolved are matched through its mentions, not as words.
  if (RETRIEVAL.query.dropNamed) for (const n of named.keys) words = words.replace(new RegExp(`\\b${escapeRegExp(n)}\\b`, 'gi'), ' ');
  const terms = queryTerms(words, RETRIEVAL.query).map((term) => ({ term, weight: 1 }));
  return { terms, named: named.ids, dates };
}

export function retrieve(db: Database, graph: Graph, opts: RetrieveOptions): Retrieved {
  const { text, limit, now } = opts;
  const q = analyseQuery(db, text);
  const episodeHits = rankEpisodes(db, q, limit);
  const entityIds = entitiesInText(db, text, limit, q.named);
  const facts = new Map<string, FactView>();
  for (const [rank, id] of entityIds.entries()) {
    for (const f of graph.factsOf(id, { history: opts.history, now })) {
      const score = f.effective_confidence / (1 + rank);
      const prev = facts.get(f.id);
      if (!prev || (prev.score ?? 0) < score) facts.set(f.id, { ...f, score: round(score) });
    }
  }
  const episodes = graph.episodesByRowids(episodeHits.map((h) => h.rowid));
  const episodeScore = new Map(episodeHits.map((h) => [h.rowid, h.score]));
  const channels = ['keyword'];
  if (q.named.length > 0) channels.push('entities');
  if (q.dates.length > 0) channels.push('dates');
  return {
    facts: [...facts.values()].sort((a, b) => (b.score ?? 0) - (a.score ?? 0)).slice(0, limit),
    entities: entityIds.map((id) => graph.entityView(id)).filter((e): e is EntityView => e !== undefined),
    episodes: episodes.map((e) => ({ ...e, score: round(episodeScore.get(rowidOf(e.id)) ?? 0) })),
    channels,
  };
}

/**
 * Keyword candidates re-ranked by the entities and dates the question names; then, with
 * pseudo-relevance feedback on, once more with the words the best of them share.
 */
export function rankEpisodes(db: Database, q: QueryAnalysis, limit: number): Hit[] {
  const first = rankOnce(db, q, limit);
  const { docs, terms, weight } = RETRIEVAL.feedback;
  if (docs <= 0 || terms <= 0 || first.length === 0) return first;
  const expansion = feedbackTerms(db, q, first.slice(0, docs), terms);
  if (expansion.length === 0) return first;
  return rankOnce(db, { ...q, terms: [...q.terms, ...expansion.map((t) => ({ term: t.term, weight: weight * t.weight }))] }, limit);
}

/**
 * Words that the top hits share and the question lacks, weighted by how much of the feedback
 * they carry (score-weighted frequency) times how rare they are in the whole memory (idf):
 * the vocabulary of the answer the question did not use.
 */
function feedbackTerms(db: Database, q: QueryAnalysis, top: Hit[], n: number): { term: string; weight: number }[] {
  // fts3tokenize gives the index's own stems; fts4aux gives each stem's document count.
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stems USING fts3tokenize(porter);
           CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_terms USING fts4aux(main, episodes_fts);`);
  const stem = (w: string): string => String(all(db, 'SELECT token FROM temp.recall_stems WHERE input = ?', [w])[0]?.token ?? w);
  const asked = new Set(q.terms.map((t) => stem(t.term)));
  const texts = new Map(all(db, `SELECT rowid, text FROM episodes WHERE rowid IN (${top.map(() => '?').join(',')})`, top.map((h) => h.rowid)).map((r) => [Number(r.rowid), String(r.text)]));
  const total = top.reduce((s, h) => s + h.score, 0) || 1;
  const mass = new Map<string, { word: string; mass: number }>();
  for (const h of top) {
    const words = queryTerms(texts.get(h.rowid) ?? '').filter((w) => w.length > 2 && !/^\d+$/.test(w));
    for (const w of words) {
      const s = stem(w);
      if (asked.has(s)) continue;
      const m = mass.get(s) ?? { word: w, mass: 0 };
      m.mass += h.score / total;
      mass.set(s, m);
    }
  }
  const n0 = Number(all(db, "SELECT documents FROM temp.recall_terms WHERE term = '' AND col = '*'")[0]?.documents ?? 0) || Number(all(db, 'SELECT COUNT(*) AS n FROM episodes')[0]!.n);
  const scored = [...mass.entries()].map(([s, m]) => {
    const df = Number(all(db, "SELECT documents FROM temp.recall_terms WHERE term = ? AND col = '*'", [s])[0]?.documents ?? 0);
    return { term: m.word, weight: m.mass * Math.log(1 + (n0 - df + 0.5) / (df + 0.5)) };
  });
  scored.sort((a, b) => b.weight - a.weight);
  const best = scored.slice(0, n);
  const max = best[0]?.weight ?? 1;
  return best.map((t) => ({ term: t.term, weight: t.weight / max }));
}

function rankOnce(db: Database, q: QueryAnalysis, limit: number): Hit[] {
  const { boosts, candidates } = RETRIEVAL;
  const hits = bm25Episodes(db, q.terms, Math.max(limit, candidates));
  if (hits.length === 0) return [];
  const ids = hits.map((h) => h.rowid);
  const marks = (ids: number[]): string => ids.map(() => '?').join(',');
  const mentioning = new Set(
    q.named.length === 0
      ? []
      : all(db, `SELECT DISTINCT episode_rowid AS r FROM mentions WHERE episode_rowid IN (${marks(ids)}) AND entity_id IN (${marks(q.named)})`, [
          ...ids,
          ...q.named,
        ]).map((r) => Number(r.r)),
  );
  const slack = boosts.dateSlackDays * 864e5;
  const dated = new Set(
    q.dates.length === 0
      ? []
      : all(db, `SELECT rowid AS r, time_ms AS t FROM episodes WHERE rowid IN (${marks(ids)})`, ids)
          .filter((r) => q.dates.some((d) => Number(r.t) >= d.start - slack && Number(r.t) < d.end + slack))
          .map((r) => Number(r.r)),
  );
  return hits
    .map((h) => ({
      rowid: h.rowid,
      score: h.score * (mentioning.has(h.rowid) ? 1 + boosts.named : 1) * (dated.has(h.rowid) ? 1 + boosts.dated : 1),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** Entities named in the text: exact names and aliases, on word boundaries (ids, and the names as found). */
export function namedEntities(db: Database, text: string): { ids: number[]; keys: string[] } {
  const ids: number[] = [];
  const keys: string[] = [];
  const lower = ` ${text.toLowerCase()} `;
  const named = all(
    db,
    `SELECT id, key FROM entities WHERE instr(?, key) > 0
     UNION SELECT entity_id AS id, key FROM aliases WHERE instr(?, key) > 0`,
    [lower, lower],
  );
  for (const r of named) {
    const key = String(r.key);
    const at = lower.indexOf(key);
    const before = lower[at - 1] ?? ' ';
    const after = lower[at + key.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after) && !ids.includes(Number(r.id))) (ids.push(Number(r.id)), keys.push(key));
  }
  return { ids, keys };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Entities named in the text first, then by keyword rank. */
export function entitiesInText(db: Database, text: string, limit: number, named = namedEntities(db, text).ids): number[] {
  const ids = [...named];
  for (const hit of keywordEntities(db, text, limit)) if (!ids.includes(hit.rowid)) ids.push(hit.rowid);
  return ids.slice(0, limit);
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;
