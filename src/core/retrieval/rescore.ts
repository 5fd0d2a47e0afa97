/**
 * Stage three: rescoring the candidates by what the question says besides its words. Each top
 * hit lends to the turns around it in its session (spread.ts), then a hit's score is multiplied by
 * (1 + boost) for each boost that applies: it mentions an entity the question names, or it
 * happened within a date the question names (give or take the slack).
 */
import type { SearchIndex } from '../store/search-index.js';
import { dateWindows } from './dates.js';
import { runs, type RetrievalRecipe } from './recipe.js';
import { spread } from './spread.js';
import type { Hit, QueryAnalysis } from './types.js';

export function rescoreEpisodes(index: SearchIndex, candidates: Hit[], q: QueryAnalysis, limit: number, recipe: RetrievalRecipe): Hit[] {
  const { rescore } = recipe;
  const hits = spread(index, candidates, rescore);
  if (hits.length === 0 || (q.named.length === 0 && q.dates.length === 0)) return hits.slice(0, limit);
  const { named, dated } = rescore.boosts;
  const windows = dateWindows(q.dates, rescore.boosts);
  const factor = new Map(
    index
      .timesAndMentions(
        hits.map((h) => h.rowid),
        q.named,
      )
      .map((r) => {
        const byName = r.named && runs(rescore, 'named') ? 1 + named : 1;
        const byDate = runs(rescore, 'dated') && windows.some((w) => r.time >= w.since && r.time < w.until) ? 1 + dated : 1;
        return [r.rowid, byName * byDate];
      }),
  );
  return hits
    .map((h) => ({ rowid: h.rowid, score: h.score * (factor.get(h.rowid) ?? 1) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
