/**
 * A turn is found through its neighbours too: the answer to "what did she say about the trip?"
 * is often the reply to the turn that names the trip. Each hit lends a share of its score to the
 * turns around it in its session, and a hit that ends by asking something lends more to the
 * turn right after it: the reply, where the answer is. People send one thought as several
 * messages ("I got the job!" / "at the museum"), and agents' transcripts split one answer the
 * same way: the turns next to a hit by the same speaker, with nobody in between, are one run with
 * it, and it lends them more, further.
 */
import type { SearchIndex } from '../store/search-index.js';
import { runs, type RetrievalRecipe } from './recipe.js';
import type { Hit } from './types.js';

/** Each hit lends to its neighbours (and, with `runs`, along its speaker's run of messages); best first. */
export function spread(index: SearchIndex, hits: Hit[], rescore: RetrievalRecipe['rescore']): Hit[] {
  const { before, after, weight, from, reply, run, reach } = rescore.spread;
  if (!runs(rescore, 'neighbours') || hits.length === 0) return hits;
  const reachOfRuns = runs(rescore, 'runs') ? reach : 0;
  const near = index.neighbours(
    hits.slice(0, from).map((h) => h.rowid),
    Math.max(before, reachOfRuns),
    Math.max(after, reachOfRuns),
  );
  const score = new Map(hits.map((h) => [h.rowid, h.score]));
  const lent = new Map(hits.slice(0, from).map((h) => [h.rowid, h.score]));
  // A run is one utterance: its turns get what its best hit lends, not the sum of every hit in it.
  const fromRun = new Map<number, number>();
  // A run ends at the first turn of another speaker.
  let inRun = false;
  for (const r of near) {
    const distance = r.distance;
    if (distance === 0) inRun = reachOfRuns > 0;
    inRun &&= r.same && distance < reachOfRuns;
    const rowid = r.near;
    const by = lent.get(r.hit)!;
    if (inRun) {
      fromRun.set(rowid, Math.max(fromRun.get(rowid) ?? 0, weight * run * by));
      continue;
    }
    const answers = distance === 0 && r.asks;
    const reaches = distance < (r.side < 0 ? before : after);
    const share = answers ? weight * reply : reaches ? weight : 0;
    if (share > 0) score.set(rowid, (score.get(rowid) ?? 0) + share * by);
  }
  for (const [rowid, s] of fromRun) score.set(rowid, (score.get(rowid) ?? 0) + s);
  return [...score].map(([rowid, s]) => ({ rowid, score: s })).sort((a, b) => b.score - a.score);
}
