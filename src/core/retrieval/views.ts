/** Stage seven: ranked rows as readers get them, each episode with its score. */
import type { EntityView, EpisodeView } from '../model/views.js';
import { round, type Graph } from '../store/graph.js';
import type { Hit } from './types.js';

export function episodeViews(graph: Graph, hits: Hit[]): EpisodeView[] {
  const views = graph.episodeViewsByRowid(hits.map((h) => h.rowid));
  return hits.flatMap((h) => {
    const v = views.get(h.rowid);
    return v ? [{ ...v, score: round(h.score) }] : [];
  });
}

export function entityViews(graph: Graph, ids: number[]): EntityView[] {
  return ids.map((id) => graph.entityView(id)).filter((e): e is EntityView => e !== undefined);
}
