/**
 * Finding an entity by the name a caller typed: exactly (or by alias), else a not_found error
 * that offers the nearest names.
 */
import { notFound } from '../model/errors.js';
import { searchEntities } from '../retrieval/entities.js';
import type { Graph } from '../store/graph.js';
import { requireText } from './validate.js';

/** Names offered when one is not found. */
const SUGGESTIONS = 5;
/** Bigram similarity under which a name is no suggestion. */
const MIN_SIMILARITY = 0.3;

export function requireEntity(graph: Graph, name: string): number {
  const text = requireText(name, 'entity');
  const id = graph.entityIdOf(text);
  if (id !== undefined) return id;
  const near = nearestNames(graph, text, SUGGESTIONS);
  throw notFound(
    `No entity named "${text}".`,
    near.length ? `Did you mean: ${near.join(', ')}?` : 'Search for it with recall_search first.',
  );
}

/**
 * Names closest to a misspelt one: keyword matches first, then by character-bigram similarity
 * over all names (only on this error path, so a full scan is affordable).
 */
function nearestNames(graph: Graph, text: string, n: number): string[] {
  const names = new Set(searchEntities(graph.index, text, n).map((h) => graph.entityView(h.rowid)!.name));
  const target = bigrams(text);
  const scored = graph.index
    .allNames()
    .map((name) => ({ name, score: dice(target, bigrams(name)) }))
    .filter((x) => x.score >= MIN_SIMILARITY)
    .sort((a, b) => b.score - a.score);
  for (const { name } of scored) {
    if (names.size >= n) break;
    names.add(name);
  }
  return [...names].slice(0, n);
}

/** Character bigrams of a name, padded so first and last letters count, with their counts. */
function bigrams(s: string): Map<string, number> {
  const t = ` ${s.toLowerCase()} `;
  const m = new Map<string, number>();
  for (let i = 0; i < t.length - 1; i++) m.set(t.slice(i, i + 2), (m.get(t.slice(i, i + 2)) ?? 0) + 1);
  return m;
}

/** Sørensen–Dice coefficient over bigram multisets. */
function dice(a: Map<string, number>, b: Map<string, number>): number {
  let overlap = 0;
  let total = 0;
  for (const [g, c] of a) {
    overlap += Math.min(c, b.get(g) ?? 0);
    total += c;
  }
  for (const c of b.values()) total += c;
  return total ? (2 * overlap) / total : 0;
}
