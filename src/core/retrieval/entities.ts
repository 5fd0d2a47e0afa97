/**
 * Stage four: the entities a question is about. Those it names come first (graph channel), then
 * the keyword and vector channels' matches fused; the top ones seed the facts (facts.ts).
 */
import { SCOPE_OVERFETCH } from '../model/limits.js';
import type { ProjectScope } from '../model/project.js';
import type { Graph } from '../store/graph.js';
import { quoted, type SearchIndex } from '../store/search-index.js';
import { fuseEntities, fusionDepth } from './fuse.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from './recipe.js';
import { queryTerms } from './text.js';
import type { Hit, QueryAnalysis } from './types.js';

/** Entities whose name or summary matches the text, best BM25 first. */
export function searchEntities(index: SearchIndex, text: string, limit: number, recipe: RetrievalRecipe = DEFAULT_RECIPE): Hit[] {
  const terms = queryTerms(text);
  if (terms.length === 0) return [];
  const { bm25, columns } = recipe.entities;
  return index.bm25Entities(terms.map(quoted).join(' OR '), { ...bm25, columnWeights: [columns.name, columns.summary] }, limit);
}

/** The keyword channel's entities for a question, the scope's only (fetched deeper, since other projects' are dropped). */
export function keywordEntities(graph: Graph, text: string, limit: number, recipe: RetrievalRecipe, scope?: ProjectScope): Hit[] {
  const depth = fusionDepth(limit, recipe);
  const hits = searchEntities(graph.index, text, scope ? depth * SCOPE_OVERFETCH : depth, recipe);
  if (!scope) return hits;
  const keep = new Set(
    graph.entitiesInScope(
      hits.map((h) => h.rowid),
      scope,
    ),
  );
  return hits.filter((h) => keep.has(h.rowid)).slice(0, depth);
}

/** Entity ids, best first: those the question names (graph channel), then the channels' matches fused; at most `limit`. */
export function rankEntities(
  q: QueryAnalysis,
  lists: { keyword?: Hit[]; vector?: Hit[] },
  limit: number,
  recipe: RetrievalRecipe,
): number[] {
  const ids = recipe.channels.graph ? [...q.named] : [];
  for (const hit of fuseEntities(lists, recipe, limit)) if (!ids.includes(hit.rowid)) ids.push(hit.rowid);
  return ids.slice(0, limit);
}
