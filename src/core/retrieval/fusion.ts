/**
 * Fusing the channels' ranked lists: the keyword channel's episodes and entities with what the
 * vector channel found of each kind (episodes, entities, facts). The service and the benchmarks
 * reach this through the same query (retrieve.ts), with the query's recipe.
 */
import type { Hit } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';

/** Nearest episodes, entities and facts by embedding (rowids), best first. */
export interface VectorHits {
  episode: Hit[];
  entity: Hit[];
  fact: Hit[];
}

/** How long each channel's list is for a query of `limit` results: also how many of each kind the vector channel fetches. */
export function fusionDepth(limit: number, recipe: RetrievalConfig): number {
  return limit * recipe.fusion.depth;
}

export interface FusedLists {
  /** The top `limit` episodes. */
  episodes: Hit[];
  /** Every fused episode, best first (what diversify.ts picks the top `limit` from). */
  pool: Hit[];
  /** Entities by fused rank (the graph's named entities go before them: retrieve.ts). */
  entities: Hit[];
  /** The vector channel's facts, best first (the graph's are added in retrieve.ts rankFacts). */
  facts: Hit[];
}

/**
 * Episodes and entities of the keyword channel (when it ran) and of the vector channel (when its
 * hits came and the recipe runs it), each list cut to the fusion depth and fused by weighted
 * reciprocal rank; a single list is kept as it is ranked.
 */
export function fuseChannels(
  keyword: { episodes?: Hit[]; entities?: Hit[] },
  vectorHits: VectorHits | undefined,
  recipe: RetrievalConfig,
  limit: number,
): FusedLists {
  const { fusion } = recipe;
  const vec = recipe.channels.vector ? vectorHits : undefined;
  const pool = fuseEpisodes(keyword.episodes, vec?.episode, [], recipe, limit);
  return {
    episodes: pool.slice(0, limit),
    pool,
    entities: fuseKind(
      [
        [keyword.entities, fusion.keyword],
        [vec?.entity, fusion.vector],
      ],
      recipe,
      limit,
    ),
    facts: vec?.fact.slice(0, fusionDepth(limit, recipe)) ?? [],
  };
}

/**
 * Every fused episode, best first: the keyword and vector channels' lists and the turns the top
 * facts cite (evidence.ts; an empty list takes no part, so without facts nothing changes).
 */
export function fuseEpisodes(
  keyword: Hit[] | undefined,
  vector: Hit[] | undefined,
  evidence: Hit[],
  recipe: RetrievalConfig,
  limit: number,
): Hit[] {
  return fuseKind(
    [
      [keyword, recipe.fusion.keyword],
      [vector, recipe.fusion.vector],
      [evidence.length > 0 ? evidence : undefined, recipe.evidence.weight],
    ],
    recipe,
    limit,
  );
}

/** The lists that came (each with its weight), cut to the fusion depth and fused; a single list is kept as it is ranked. */
function fuseKind(channels: [Hit[] | undefined, number][], recipe: RetrievalConfig, limit: number): Hit[] {
  const depth = fusionDepth(limit, recipe);
  const came = channels.filter((c): c is [Hit[], number] => c[0] !== undefined);
  if (came.length === 1) return came[0]![0].slice(0, depth);
  return fuse(
    came.map(([hits]) => hits.slice(0, depth)),
    came.map(([, weight]) => weight),
    recipe.fusion.k,
  );
}

/**
 * Weighted reciprocal rank fusion: each list gives an item weight / (k + rank). Scores of
 * different channels are not comparable; ranks are.
 */
export function fuse(lists: Hit[][], weights: number[], k: number): Hit[] {
  const score = new Map<number, number>();
  lists.forEach((list, c) => list.forEach((h, rank) => score.set(h.rowid, (score.get(h.rowid) ?? 0) + (weights[c] ?? 1) / (k + rank + 1))));
  return [...score].map(([rowid, s]) => ({ rowid, score: s })).sort((a, b) => b.score - a.score);
}
