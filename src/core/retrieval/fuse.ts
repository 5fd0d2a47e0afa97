/**
 * Fusing ranked lists by weighted reciprocal rank: each list gives an item weight / (k + rank).
 * Scores of different channels are not comparable; ranks are. Episodes are fused once, from the
 * keyword and vector channels and the turns the top facts cite; entities from the keyword and
 * vector channels.
 */
import type { RetrievalRecipe } from './recipe.js';
import type { Hit } from './types.js';

/** How long each channel's list is for a query of `limit` results: also how many of each kind the vector channel fetches. */
export function fusionDepth(limit: number, recipe: RetrievalRecipe): number {
  return limit * recipe.fusion.depth;
}

/** Every fused episode, best first (an empty list, or one that did not come, takes no part). */
export function fuseEpisodes(lists: { keyword?: Hit[]; vector?: Hit[]; evidence: Hit[] }, recipe: RetrievalRecipe, limit: number): Hit[] {
  return fuseKind(
    [
      [lists.keyword, recipe.fusion.keyword],
      [lists.vector, recipe.fusion.vector],
      [lists.evidence.length > 0 ? lists.evidence : undefined, recipe.facts.evidence.weight],
    ],
    recipe,
    limit,
  );
}

/** Entities of the keyword and vector channels, fused. */
export function fuseEntities(lists: { keyword?: Hit[]; vector?: Hit[] }, recipe: RetrievalRecipe, limit: number): Hit[] {
  return fuseKind(
    [
      [lists.keyword, recipe.fusion.keyword],
      [lists.vector, recipe.fusion.vector],
    ],
    recipe,
    limit,
  );
}

/** The lists that came (each with its weight), cut to the fusion depth and fused; a single list is kept as it is ranked. */
function fuseKind(channels: [Hit[] | undefined, number][], recipe: RetrievalRecipe, limit: number): Hit[] {
  const depth = fusionDepth(limit, recipe);
  const came = channels.filter((c): c is [Hit[], number] => c[0] !== undefined);
  if (came.length === 1) return came[0]![0].slice(0, depth);
  return fuse(
    came.map(([hits]) => hits.slice(0, depth)),
    came.map(([, weight]) => weight),
    recipe.fusion.k,
  );
}

/** Weighted reciprocal rank fusion of ranked lists. */
export function fuse(lists: Hit[][], weights: number[], k: number): Hit[] {
  const score = new Map<number, number>();
  lists.forEach((list, c) => list.forEach((h, rank) => score.set(h.rowid, (score.get(h.rowid) ?? 0) + (weights[c] ?? 1) / (k + rank + 1))));
  return [...score].map(([rowid, s]) => ({ rowid, score: s })).sort((a, b) => b.score - a.score);
}
