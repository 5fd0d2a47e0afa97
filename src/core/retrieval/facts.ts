/**
 * Stage five: facts, and the turns that back them. Facts come from the graph around the top
 * entities and, with a model, from their own embeddings, ranked by that relevance times their
 * effective confidence (which decays with time since last evidence). An answer is often spread
 * over several turns that share few words with the question; a fact about what the question names
 * knows which turns support it: the evidence turns of the top facts are one more ranked list of
 * episodes, fused with the keyword and vector lists (fuse.ts). The other way round, once the
 * episodes are fused (stage seven): the facts the top turns back join the facts, so "how do we log
 * errors" finds the rule the memory file's line states though it names no entity.
 */
import type { ProjectScope } from '../model/project.js';
import type { FactView } from '../model/views.js';
import { round, type Graph } from '../store/graph.js';
import { runs, type RetrievalRecipe } from './recipe.js';
import type { Hit } from './types.js';

/**
 * Facts for a question: with the graph channel, the relationships of the top `seeds` entities
 * (the one at rank r lends 1 / (k + r)), and facts near the question by embedding (rank i lends
 * 1 / (k + i)), each times its channel weight; the sum times effective confidence is the score.
 * Facts under the confidence floor are left out unless history is asked for.
 */
export function rankFacts(
  graph: Graph,
  entityIds: number[],
  vectorFacts: Hit[],
  recipe: RetrievalRecipe,
  o: { history?: boolean; now: number; limit: number; scope?: ProjectScope },
): FactView[] {
  const { seeds, perSeed, k, minConfidence, graph: graphWeight, vector: vectorWeight } = recipe.facts;
  const relevance = new Map<string, { fact: FactView; r: number }>();
  const lend = (fact: FactView, r: number): void => {
    if (!o.history && (fact.status !== 'current' || fact.effective_confidence < minConfidence)) return;
    const prev = relevance.get(fact.id);
    relevance.set(fact.id, { fact, r: (prev?.r ?? 0) + r });
  };
  if (recipe.channels.graph) {
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
 * The latest `perFact` evidence turns of each of the top `evidence.facts` of `facts` (best first,
 * as ranked for the query: a wrong or superseded fact is there only when history was asked for),
 * best first: the fact at rank r (the first: 1) lends each of its turns 1 / (facts.k + r), and a
 * turn cited by several of them gets the sum. Turns outside the scope are left out; empty when the
 * recipe does not run it (graph channel off, or the method left out).
 */
export function evidenceEpisodes(graph: Graph, facts: FactView[], recipe: RetrievalRecipe, scope?: ProjectScope): Hit[] {
  const { facts: top, perFact } = recipe.facts.evidence;
  if (!recipe.channels.graph || !runs(recipe.facts, 'evidence') || top <= 0) return [];
  const credit = new Map<number, number>();
  const rowids = new Map<string, number | undefined>();
  const rowid = (id: string): number | undefined => {
    if (!rowids.has(id)) rowids.set(id, graph.index.episodeRowid(id));
    return rowids.get(id);
  };
  for (const [rank, fact] of facts.slice(0, top).entries()) {
    // Once per fact, however many times it cites a turn (or under however many spellings).
    // Its latest `perFact` turns: a fact reinforced by hundreds of turns costs no more than any other.
    const turns = new Set(
      fact.evidence
        .slice(-perFact)
        .map(rowid)
        .filter((r): r is number => r !== undefined),
    );
    for (const r of turns) credit.set(r, (credit.get(r) ?? 0) + 1 / (recipe.facts.k + rank + 1));
  }
  if (credit.size === 0) return [];
  const keep = graph.episodesInScope([...credit.keys()], scope);
  return [...credit]
    .filter(([r]) => !keep || keep.has(r))
    .map(([r, score]) => ({ rowid: r, score }))
    .sort((a, b) => b.score - a.score);
}

/**
 * `ranked` and the facts the answer's top turns (`episodeIds`, best first) back, best first, at
 * most `limit` (recipe.facts.backed): the turn at rank r lends each fact it backs weight / (k + r)
 * times the fact's effective confidence, added to the fact's score. `ranked` as it is when the
 * recipe does not run it (graph channel off, or the method left out).
 */
export function withBackedFacts(
  graph: Graph,
  ranked: FactView[],
  episodeIds: string[],
  recipe: RetrievalRecipe,
  o: { history?: boolean; now: number; limit: number; scope?: ProjectScope },
): FactView[] {
  const { k, minConfidence, backed } = recipe.facts;
  if (!recipe.channels.graph || !runs(recipe.facts, 'backed') || backed.turns <= 0 || episodeIds.length === 0) return ranked;
  const rank = new Map(episodeIds.slice(0, backed.turns).map((id, i) => [id, i]));
  const scored = new Map(ranked.map((fact) => [fact.id, { fact, score: fact.score ?? 0 }]));
  for (const { episode, fact } of graph.factsBackedBy([...rank.keys()], o)) {
    if (!o.history && (fact.status !== 'current' || fact.effective_confidence < minConfidence)) continue;
    const prev = scored.get(fact.id);
    const lent = (backed.weight / (k + rank.get(episode)! + 1)) * fact.effective_confidence;
    scored.set(fact.id, { fact: prev?.fact ?? fact, score: (prev?.score ?? 0) + lent });
  }
  if (scored.size === ranked.length && ranked.every((f) => scored.get(f.id)!.score === (f.score ?? 0))) return ranked;
  const top = [...scored.values()]
    .map(({ fact, score }) => ({ ...fact, score: round(score) }))
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0))
    .slice(0, o.limit);
  return graph.withEvidence(top);
}
