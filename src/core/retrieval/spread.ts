/**
 * A turn is found through its neighbours too: the answer to "what did she say about the trip?"
 * is often the reply to the turn that names the trip. Each hit lends a share of its score to the
 * turns around it in its session, and a hit that ends by asking something lends more to the
 * turn right after it: the reply, where the answer is. People send one thought as several
 * messages ("I got the job!" / "at the museum"), and agents' transcripts split one answer the
 * same way: the turns next to a hit by the same speaker, with nobody in between, are one run with
 * it, and it lends them more, further.
 */
import { all, type Database } from '../store/sqlite.js';
import type { Hit } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';

export function spread(db: Database, hits: Hit[], lending: RetrievalConfig['spread']): Hit[] {
  const { before, after, weight, from, reply, run, reach } = lending;
  if (weight === 0 || hits.length === 0) return hits;
  const lenders = JSON.stringify(hits.slice(0, from).map((h) => h.rowid));
  const runs = run > 0 ? reach : 0;
  // One statement for every lender: its nearest turns before and after it in its session (their
  // distance from it and whether their speaker is its own), and whether it asks (its text ends
  // with a question mark, ASCII or the full-width one of Chinese and Japanese).
  const near = all(
    db,
    `SELECT t.rowid AS hit, json_extract(n.value, '$[0]') AS near, n.key AS distance, -1 AS side,
            json_extract(n.value, '$[1]') = t.speaker AS same, 0 AS asks
       FROM episodes t,
            json_each((SELECT json_group_array(json_array(rowid, speaker)) FROM (
              SELECT e.rowid, e.speaker FROM episodes e WHERE e.session = t.session
                 AND (e.time_ms < t.time_ms OR (e.time_ms = t.time_ms AND e.rowid < t.rowid))
               ORDER BY e.time_ms DESC, e.rowid DESC LIMIT ?))) n
      WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL
     UNION ALL
     SELECT t.rowid, json_extract(n.value, '$[0]'), n.key, 1, json_extract(n.value, '$[1]') = t.speaker,
            rtrim(t.text) LIKE '%?' OR rtrim(t.text) LIKE '%？'
       FROM episodes t,
            json_each((SELECT json_group_array(json_array(rowid, speaker)) FROM (
              SELECT e.rowid, e.speaker FROM episodes e WHERE e.session = t.session
                 AND (e.time_ms > t.time_ms OR (e.time_ms = t.time_ms AND e.rowid > t.rowid))
               ORDER BY e.time_ms ASC, e.rowid ASC LIMIT ?))) n
      WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL
      ORDER BY 1, 4, 3`,
    [Math.max(before, runs), lenders, Math.max(after, runs), lenders],
  );
  const score = new Map(hits.map((h) => [h.rowid, h.score]));
  const lent = new Map(hits.slice(0, from).map((h) => [h.rowid, h.score]));
  // A run is one utterance: its turns get what its best hit lends, not the sum of every hit in it.
  const fromRun = new Map<number, number>();
  // Rows come by lender, side, then distance: a run ends at the first turn of another speaker.
  let inRun = false;
  for (const r of near) {
    const distance = Number(r.distance);
    if (distance === 0) inRun = runs > 0;
    inRun &&= Number(r.same) === 1 && distance < runs;
    const rowid = Number(r.near);
    const by = lent.get(Number(r.hit))!;
    if (inRun) {
      fromRun.set(rowid, Math.max(fromRun.get(rowid) ?? 0, weight * run * by));
      continue;
    }
    const answers = distance === 0 && Number(r.asks) === 1;
    const reaches = distance < (Number(r.side) < 0 ? before : after);
    const share = answers ? weight * reply : reaches ? weight : 0;
    if (share > 0) score.set(rowid, (score.get(rowid) ?? 0) + share * by);
  }
  for (const [rowid, s] of fromRun) score.set(rowid, (score.get(rowid) ?? 0) + s);
  return [...score].map(([rowid, s]) => ({ rowid, score: s })).sort((a, b) => b.score - a.score);
}
