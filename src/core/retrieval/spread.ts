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

// A turn ends by asking: its text ends with a question mark, ASCII or the full-width one of Chinese and Japanese.
const ASKS = `(rtrim(t.text) LIKE '%?' OR rtrim(t.text) LIKE '%？')`;

/**
 * Each lender's (t) nearest turns on one side in its session, `side` -1 before and 1 after: their
 * rowid, distance (from 0), whether their speaker is its own, and whether it asks (`asks`).
 */
function neighbours(op: '<' | '>', order: 'ASC' | 'DESC', side: number, asks: string): string {
  return `SELECT t.rowid AS hit, json_extract(n.value, '$[0]') AS near, n.key AS distance, ${side} AS side,
                 json_extract(n.value, '$[1]') = t.speaker AS same, ${asks} AS asks
            FROM episodes t,
                 json_each((SELECT json_group_array(json_array(rowid, speaker)) FROM (
                   SELECT e.rowid, e.speaker FROM episodes e WHERE e.session = t.session
                      AND (e.time_ms ${op} t.time_ms OR (e.time_ms = t.time_ms AND e.rowid ${op} t.rowid))
                    ORDER BY e.time_ms ${order}, e.rowid ${order} LIMIT ?))) n
           WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL`;
}

// Every lender's nearest turns before and after it, by lender, side, then distance.
const NEAR = `${neighbours('<', 'DESC', -1, '0')} UNION ALL ${neighbours('>', 'ASC', 1, ASKS)} ORDER BY 1, 4, 3`;

export function spread(db: Database, hits: Hit[], lending: RetrievalConfig['spread']): Hit[] {
  const { before, after, weight, from, reply, run, reach } = lending;
  if (weight === 0 || hits.length === 0) return hits;
  const lenders = JSON.stringify(hits.slice(0, from).map((h) => h.rowid));
  const runs = run > 0 ? reach : 0;
  const near = all(db, NEAR, [Math.max(before, runs), lenders, Math.max(after, runs), lenders]);
  const score = new Map(hits.map((h) => [h.rowid, h.score]));
  const lent = new Map(hits.slice(0, from).map((h) => [h.rowid, h.score]));
  // A run is one utterance: its turns get what its best hit lends, not the sum of every hit in it.
  const fromRun = new Map<number, number>();
  // A run ends at the first turn of another speaker.
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
