/**
 * Facts lead to the turns that back them. An answer is often spread over several turns that
 * share few words with the question; a fact about what the question names knows which turns
 * support it (its evidence). The evidence turns of the query's top facts are one more ranked list
 * of episodes, which retrieve.ts fuses with the keyword and vector lists (fusion.ts).
 */
import type { FactView } from '../model/views.js';
import type { ProjectScope } from '../model/project.js';
import type { Graph } from '../store/graph.js';
import { rowidOf } from '../store/ids.js';
import type { Database } from '../store/sqlite.js';
import type { Hit } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';

/**
 * The latest `perFact` evidence turns of each of the top `recipe.evidence.facts` of `facts` (best first, as ranked for the
 * query: a wrong or superseded fact is there only when history was asked for), best first: the
 * fact at rank r (the first: 1) lends each of its turns 1 / (facts.k + r), and a turn cited by
 * several of them gets the sum. Turns outside the scope are left out; empty when the recipe does
 * not run it (graph channel off, or weight 0).
 */
export function evidenceEpisodes(db: Database, graph: Graph, facts: FactView[], recipe: RetrievalConfig, scope?: ProjectScope): Hit[] {
  const { facts: top, perFact, weight } = recipe.evidence;
  if (!recipe.channels.graph || weight === 0 || top <= 0) return [];
  const credit = new Map<number, number>();
  const rowids = new Map<string, number | undefined>();
  const rowid = (id: string): number | undefined => {
    if (!rowids.has(id)) rowids.set(id, rowidOf(db, 'ep', id));
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
