/**
 * Answering a question: which episodes, entities and facts are the best evidence for it. A short
 * sequence of named stages, each in its own file with its own part of the recipe (recipe.ts):
 *
 *   prepare   the half that needs no embedding (the service runs it while the question is embedded)
 *     1. analyse      analyse.ts     words and their expansions, named entities, dates
 *     2. candidates   candidates.ts  BM25 over turns (passages, date windows)
 *     3. rescore      rescore.ts     neighbours lend (spread.ts), named and dated boosts
 *        entities     entities.ts    the keyword channel's entity matches
 *   answer    with the vector hits, when a model found some
 *     4. entities     entities.ts    named first, then keyword and vector fused
 *     5. facts        facts.ts       around the top entities and by embedding; their evidence turns
 *     6. fuse         fuse.ts        episodes: keyword, vector and evidence lists, fused once
 *     7. backed       facts.ts       the facts the top episodes back join the facts
 *     8. views        views.ts       what readers get back
 */
import type { ProjectScope } from '../model/project.js';
import type { Graph } from '../store/graph.js';
import { analyseQuery } from './analyse.js';
import { episodeCandidates } from './candidates.js';
import { keywordEntities, rankEntities } from './entities.js';
import { evidenceEpisodes, rankFacts, withBackedFacts } from './facts.js';
import { fuseEpisodes, fusionDepth } from './fuse.js';
import type { RetrievalRecipe } from './recipe.js';
import { rescoreEpisodes } from './rescore.js';
import type { Hit, QueryAnalysis, Retrieved, VectorHits } from './types.js';
import { entityViews, episodeViews } from './views.js';

export interface Question {
  text: string;
  limit: number;
  now: number;
  recipe: RetrievalRecipe;
  /** Whose memory answers: a project and the global memory; absent: every project. */
  scope?: ProjectScope;
}

/** A question whose first half has run: its analysis and the keyword channel's lists. */
export interface Prepared {
  question: Question;
  analysis: QueryAnalysis;
  episodes?: Hit[];
  entities?: Hit[];
}

/** The first half: the stages that need no embedding. */
export function prepare(graph: Graph, question: Question): Prepared {
  const { text, limit, now, recipe, scope } = question;
  const on = recipe.channels;
  const analysis = on.keyword || on.graph ? analyseQuery(graph.index, text, recipe, now) : { terms: [], search: [], named: [], dates: [] };
  // Another project's entity named in the question is not this project's: its name alone lends nothing.
  if (scope) analysis.named = graph.entitiesInScope(analysis.named, scope);
  if (!on.keyword) return { question, analysis };
  const depth = fusionDepth(limit, recipe);
  // Without the graph channel, the entities and dates the question names lend nothing.
  const said = on.graph ? analysis : { ...analysis, named: [], dates: [] };
  const candidates = episodeCandidates(graph.index, said, depth, recipe, { scope });
  return {
    question,
    analysis,
    episodes: rescoreEpisodes(graph.index, candidates, said, depth, recipe),
    entities: keywordEntities(graph, text, limit, recipe, scope),
  };
}

/** The second half: with the vector hits (when the recipe runs them and they came), entities, facts, one fusion, views. */
export function answer(graph: Graph, prepared: Prepared, o: { history?: boolean; vectorHits?: VectorHits } = {}): Retrieved {
  const { analysis: q, question } = prepared;
  const { limit, now, recipe, scope } = question;
  const on = recipe.channels;
  const vec = on.vector ? inScope(graph, o.vectorHits, scope) : undefined;
  const entityIds = rankEntities(q, { keyword: prepared.entities, vector: vec?.entity }, limit, recipe);
  const vectorFacts = vec?.fact.slice(0, fusionDepth(limit, recipe)) ?? [];
  const facts = rankFacts(graph, entityIds, vectorFacts, recipe, { history: o.history, now, limit, scope });
  const evidence = evidenceEpisodes(graph, facts, recipe, scope);
  const episodes = episodeViews(
    graph,
    fuseEpisodes({ keyword: prepared.episodes, vector: vec?.episode, evidence }, recipe, limit).slice(0, limit),
  );
  const shown = withBackedFacts(
    graph,
    facts,
    episodes.map((e) => e.id),
    recipe,
    { history: o.history, now, limit, scope },
  );
  const channels: string[] = [];
  if (on.keyword) channels.push('keyword');
  if (on.graph && q.named.length > 0) channels.push('entities');
  if (on.graph && q.dates.length > 0) channels.push('dates');
  if (vec) channels.push('vector');
  if (evidence.length > 0) channels.push('evidence');
  if (shown !== facts) channels.push('backed');
  return { facts: shown, entities: entityViews(graph, entityIds), episodes, channels };
}

/** Vector hits of the scope only: the vector indexes hold every project, so other projects' hits are dropped here. */
function inScope(graph: Graph, hits: VectorHits | undefined, scope: ProjectScope | undefined): VectorHits | undefined {
  if (!hits || !scope) return hits;
  const keep = (list: Hit[], kept: Set<number> | undefined): Hit[] => (kept ? list.filter((h) => kept.has(h.rowid)) : list);
  const rowids = (list: Hit[]): number[] => list.map((h) => h.rowid);
  return {
    episode: keep(hits.episode, graph.episodesInScope(rowids(hits.episode), scope)),
    entity: keep(hits.entity, new Set(graph.entitiesInScope(rowids(hits.entity), scope))),
    fact: keep(hits.fact, new Set(graph.factsInScope(rowids(hits.fact), scope))),
  };
}
