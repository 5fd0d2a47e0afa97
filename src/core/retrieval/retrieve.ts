/**
 * Answering a question: which episodes, entities and facts are the best evidence for it.
 *
 * Episodes: BM25 over FTS4 gives candidates (each turn indexed with its speaker); each hit lends
 * part of its score to the turns around it, and they are re-ranked by what the question says besides its
 * words — the entities it names (graph: entity -> the episodes that mention it) and the calendar
 * dates it names (episode times). Entities: those the question names, then keyword and vector
 * matches fused (fusion.ts). Facts: the graph around the top entities and the nearest facts by
 * embedding, fused, times effective confidence; the turns the top facts cite are fused into the
 * episodes (evidence.ts). Which channels run, and every weight, come from the query's recipe
 * (recipes.ts).
 */
import { round, type Graph } from '../store/graph.js';
import { all } from '../store/sqlite.js';
import { CJK_CHAR } from '../store/index-text.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { bm25Episodes, indexedRows, keywordEntities, matchingRows, type EpisodeFilter, type Hit, type Term } from './keyword.js';
import { speakerTerms } from './names.js';
import { diversify } from './diversify.js';
import { feedbackTerms } from './feedback.js';
import type { Database } from '../store/sqlite.js';
import { fuseChannels, fuseEpisodes, fusionDepth, type VectorHits } from './fusion.js';
import { evidenceEpisodes } from './evidence.js';
import { typoTerms } from './typos.js';
import { formTerms } from './forms.js';
import { stemOf } from './stems.js';
import { spread } from './spread.js';
import { DEFAULT_RECIPE, type RetrievalConfig } from './recipes.js';
import { dateMentions, queryTerms, type DateMention } from './text.js';
import { relativeDates } from './relative-dates.js';
import type { ProjectScope } from '../model/project.js';
import { SCOPE_OVERFETCH } from '../model/limits.js';

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
  /** What the embedding model found, when one is loaded (the service computes them). */
  vectorHits?: VectorHits;
  /** Which channels run and how they are weighed. Default: DEFAULT_RECIPE (vector fused in when its hits came). */
  recipe?: RetrievalConfig;
  /** Whose memory answers: a project and the global memory; absent: every project. */
  scope?: ProjectScope;
}

/** What a question says: its keywords, the entities it names (ids), the calendar dates it names. */
export interface QueryAnalysis {
  terms: Term[];
  named: number[];
  dates: DateMention[];
}

/** A question's words, the entities it names and the dates it names; `now` (ms) reads "yesterday" and "last week" too. */
export function analyseQuery(db: Database, text: string, recipe: RetrievalConfig, now?: number): QueryAnalysis {
  const terms = queryTerms(text, recipe.query).map((term) => ({ term, weight: 1 }));
  const named = namedEntities(db, text);
  const dates = [...dateMentions(text, () => yearsSpanned(db)), ...(now === undefined ? [] : relativeDates(text, now))];
  return { terms: recipe.query.aliases ? speakerTerms(db, terms, named) : terms, named, dates };
}

/** Where the dated boost applies for each date: its span, widened by the recipe's slack for its kind. */
const dateWindows = (dates: DateMention[], boosts: RetrievalConfig['boosts']): { since: number; until: number }[] =>
  dates.map((d) => {
    const slack = (d.relative ? boosts.relativeSlackDays : boosts.dateSlackDays) * 864e5;
    return { since: d.start - slack, until: d.end + slack };
  });

/** The first and last year of the memory's turns; none in an empty memory. */
function yearsSpanned(db: Database): { first: number; last: number } | undefined {
  const span = all(db, 'SELECT MIN(time_ms) AS first, MAX(time_ms) AS last FROM episodes')[0];
  if (span?.first === null || span?.first === undefined) return undefined;
  return { first: new Date(Number(span.first)).getUTCFullYear(), last: new Date(Number(span.last)).getUTCFullYear() };
}

/** The keyword and graph half of a question's retrieval: what needs no embedding. */
export interface KeywordLists {
  analysis: QueryAnalysis;
  episodes?: Hit[];
  entities?: Hit[];
}

/**
 * Runs the keyword channel for a question (BM25 over turns with the graph's boosts, entity
 * names) — the costly half of a query, which the service runs while the question is embedded.
 */
export function keywordLists(
  db: Database,
  text: string,
  limit: number,
  recipe: RetrievalConfig,
  graph?: Graph,
  scope?: ProjectScope,
  now?: number,
): KeywordLists {
  const on = recipe.channels;
  const analysis = on.keyword || on.graph ? analyseQuery(db, text, recipe, now) : { terms: [], named: [], dates: [] };
  // Another project's entity named in the question is not this project's: its name alone lends nothing.
  if (graph && scope) analysis.named = graph.entitiesInScope(analysis.named, scope);
  if (!on.keyword) return { analysis };
  const depth = fusionDepth(limit, recipe);
  const entities = keywordEntities(db, text, scope ? depth * SCOPE_OVERFETCH : depth, recipe);
  return {
    analysis,
    episodes: rankEpisodes(db, on.graph ? analysis : { ...analysis, named: [], dates: [] }, depth, recipe, { scope }),
    entities:
      graph && scope
        ? inScope(
            entities,
            new Set(
              graph.entitiesInScope(
                entities.map((h) => h.rowid),
                scope,
              ),
            ),
          ).slice(0, depth)
        : entities,
  };
}

const inScope = (hits: Hit[], keep: Set<number> | undefined): Hit[] => (keep ? hits.filter((h) => keep.has(h.rowid)) : hits);

/** Vector hits of the scope only: the vector indexes hold every project, so other projects' hits are dropped here. */
function scopeVectorHits(graph: Graph, hits: VectorHits | undefined, scope: ProjectScope | undefined): VectorHits | undefined {
  if (!hits || !scope) return hits;
  const entities = new Set(
    graph.entitiesInScope(
      hits.entity.map((h) => h.rowid),
      scope,
    ),
  );
  const facts = new Set(
    graph.factsInScope(
      hits.fact.map((h) => h.rowid),
      scope,
    ),
  );
  return {
    episode: inScope(
      hits.episode,
      graph.episodesInScope(
        hits.episode.map((h) => h.rowid),
        scope,
      ),
    ),
    entity: inScope(hits.entity, entities),
    fact: inScope(hits.fact, facts),
  };
}

/**
 * Every channel the recipe runs gives a ranked list per result type; lists are fused by weighted
 * reciprocal rank (fusion.ts; the recipe's fusion and facts weights). Facts come from the
 * graph around the top entities and, with a model, from their own embeddings, and are ranked by
 * that relevance times their effective confidence (which decays with time since last evidence).
 * `keyword` is the result of keywordLists when it was computed ahead.
 */
export function retrieve(db: Database, graph: Graph, opts: RetrieveOptions, keyword?: KeywordLists): Retrieved {
  const { text, limit, now } = opts;
  const recipe = opts.recipe ?? DEFAULT_RECIPE;
  const on = recipe.channels;
  const vec = on.vector ? scopeVectorHits(graph, opts.vectorHits, opts.scope) : undefined;
  const lists = keyword ?? keywordLists(db, text, limit, recipe, graph, opts.scope, now);
  const q = lists.analysis;
  const fused = fuseChannels(lists, vec, recipe, limit);

  // Entities: those the question names, then keyword and vector matches fused.
  const entityIds = on.graph ? [...q.named] : [];
  for (const hit of fused.entities) if (!entityIds.includes(hit.rowid)) entityIds.push(hit.rowid);
  entityIds.splice(limit);

  const facts = rankFacts(graph, entityIds, fused.facts, recipe.facts, {
    history: opts.history,
    now,
    limit,
    graph: on.graph,
    scope: opts.scope,
  });
  // The turns the top facts cite: one more list of episodes (none without facts: the pool stays as fused).
  const evidence = evidenceEpisodes(db, graph, facts, recipe, opts.scope);
  const pool = evidence.length > 0 ? fuseEpisodes(lists.episodes, vec?.episode, evidence, recipe, limit) : fused.pool;
  const episodeHits = diversify(db, pool, limit, recipe.diversity);
  const views = graph.episodeViewsByRowid(episodeHits.map((h) => h.rowid));
  const episodes = episodeHits.flatMap((h) => {
    const v = views.get(h.rowid);
    return v ? [{ ...v, score: round(h.score) }] : [];
  });
  const channels: string[] = [];
  if (on.keyword) channels.push('keyword');
  if (on.graph && q.named.length > 0) channels.push('entities');
  if (on.graph && q.dates.length > 0) channels.push('dates');
  if (vec) channels.push('vector');
  if (evidence.length > 0) channels.push('evidence');
  return {
    facts,
    entities: entityIds.map((id) => graph.entityView(id)).filter((e): e is EntityView => e !== undefined),
    episodes,
    channels,
  };
}

/**
 * Facts for a question: with the graph channel, the relationships of the top `seeds` entities
 * (the one at rank r lends 1 / (k + r)), and facts near the question by embedding (rank i lends
 * 1 / (k + i)), each times its channel weight; the sum times effective confidence is the score.
 * Facts under the confidence floor are left out unless history is asked for.
 */
function rankFacts(
  graph: Graph,
  entityIds: number[],
  vectorFacts: Hit[],
  weights: RetrievalConfig['facts'],
  o: { history?: boolean; now: number; limit: number; graph: boolean; scope?: ProjectScope },
): FactView[] {
  const { seeds, perSeed, k, minConfidence, graph: graphWeight, vector: vectorWeight } = weights;
  const relevance = new Map<string, { fact: FactView; r: number }>();
  const lend = (fact: FactView, r: number): void => {
    if (!o.history && (fact.status !== 'current' || fact.effective_confidence < minConfidence)) return;
    const prev = relevance.get(fact.id);
    relevance.set(fact.id, { fact, r: (prev?.r ?? 0) + r });
  };
  if (o.graph) {
    for (const [rank, id] of entityIds.slice(0, seeds).entries()) {
      // A fact between two seeds gets from both: it connects two things the question is about.
      for (const f of graph.factsOf(id, { history: o.history, now: o.now, limit: perSeed, scope: o.scope, evidence: false }))
        lend(f, graphWeight / (k + rank + 1));
    }
  }
  // By rowid, as the vector index keys them (a shared memory's ids are not rel_<rowid>); read
  // without their evidence (hundreds of turns for a fact said often): only the facts shown need it.
  const byRowid =
    vectorFacts.length > 0
      ? graph.factsByRowids(
          vectorFacts.map((hit) => hit.rowid),
          o.now,
        )
      : new Map<number, FactView>();
  for (const [rank, hit] of vectorFacts.entries()) {
    const f = byRowid.get(hit.rowid);
    if (f) lend(f, vectorWeight / (k + rank + 1));
  }
  const top = [...relevance.values()]
    .map(({ fact, r }) => ({ ...fact, score: round(r * fact.effective_confidence) }))
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0))
    .slice(0, o.limit);
  return graph.withEvidence(top);
}

/**
 * Keyword candidates, each score multiplied by (1 + boost) for every boost that applies: the
 * episode mentions an entity the question names, or happened within a date it names.
 */
export function rankEpisodes(db: Database, q: QueryAnalysis, limit: number, recipe: RetrievalConfig, filter: EpisodeFilter = {}): Hit[] {
  const { boosts, candidates } = recipe;
  const fetch = Math.max(limit, candidates) * recipe.spread.fetch;
  const terms = [...q.terms, ...typoTerms(db, q.terms, recipe.typos), ...formTerms(q.terms, recipe.forms, (w) => stemOf(db, w))];
  const search = (words: Term[]): Hit[] => withinDates(db, bm25Episodes(db, words, fetch, recipe, filter), words, q.dates, recipe, filter);
  let first = search(terms);
  const extra = feedbackTerms(db, first, terms, recipe.feedback, (t) => matchingRows(db, t), indexedRows(db));
  if (extra.length > 0) first = search([...terms, ...extra]);
  const hits = spread(db, first, recipe.spread);
  if (hits.length === 0 || (q.named.length === 0 && q.dates.length === 0)) return hits.slice(0, limit);
  // JSON lists keep this one statement (statements are cached by their text).
  const rows = all(
    db,
    `SELECT e.rowid AS r, e.time_ms AS t,
            EXISTS (SELECT 1 FROM mentions m
                     WHERE m.episode_rowid = e.rowid AND m.entity_id IN (SELECT value FROM json_each(?))) AS named
       FROM episodes e WHERE e.rowid IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(q.named), JSON.stringify(hits.map((h) => h.rowid))],
  );
  const windows = dateWindows(q.dates, boosts);
  const factor = new Map(
    rows.map((r) => {
      const named = Number(r.named) === 1 ? 1 + boosts.named : 1;
      const dated = windows.some((w) => Number(r.t) >= w.since && Number(r.t) < w.until) ? 1 + boosts.dated : 1;
      return [Number(r.r), named * dated];
    }),
  );
  return hits
    .map((h) => ({ rowid: h.rowid, score: h.score * (factor.get(h.rowid) ?? 1) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/**
 * A date the question names also fetches the best keyword matches inside its window (give or take
 * the slack), so the dated boost can lift a turn that its words alone rank below the candidates.
 */
function withinDates(
  db: Database,
  hits: Hit[],
  terms: Term[],
  dates: DateMention[],
  recipe: RetrievalConfig,
  filter: EpisodeFilter,
): Hit[] {
  if (dates.length === 0 || recipe.boosts.dated === 0) return hits;
  const seen = new Set(hits.map((h) => h.rowid));
  // Within the caller's own time bounds too: a date never widens the filter.
  const more = dateWindows(dates, recipe.boosts).flatMap((w) => {
    const since = Math.max(w.since, filter.since ?? -Infinity);
    const until = Math.min(w.until, filter.until ?? Infinity);
    return since <= until ? bm25Episodes(db, terms, recipe.candidates, recipe, { ...filter, since, until }) : [];
  });
  for (const h of more) {
    if (seen.has(h.rowid)) continue;
    seen.add(h.rowid);
    hits.push(h);
  }
  return more.length > 0 ? hits.sort((a, b) => b.score - a.score) : hits;
}

/** Entities named in the text: exact names and aliases, on word boundaries. */
export function namedEntities(db: Database, text: string): number[] {
  const ids: number[] = [];
  const lower = ` ${text.toLowerCase()} `;
  const named = all(
    db,
    `SELECT id, key FROM entities WHERE instr(?, key) > 0
     UNION SELECT entity_id AS id, key FROM aliases WHERE instr(?, key) > 0`,
    [lower, lower],
  );
  // Chinese and Japanese have no word boundaries: next to one of their characters a name stands alone ("田中さん").
  const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c) && !CJK_CHAR.test(c);
  for (const r of named) {
    const key = String(r.key);
    // Any occurrence on word boundaries counts ("Mel" in "Melanie and Mel").
    for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
      if (!isWordChar(lower[at - 1]) && !isWordChar(lower[at + key.length])) {
        if (!ids.includes(Number(r.id))) ids.push(Number(r.id));
        break;
      }
    }
  }
  return ids;
}
