/**
 * A turn is found through its neighbours too: the answer to "what did she say about the trip?"
 * is often the reply to the turn that names the trip. Each hit lends a share of its score to the
 * turns around it in its session, and a hit that ends by asking something lends more to the
 * turn right after it: the reply, where the answer is.
 */
import { all, type Database } from '../store/sqlite.js';
import type { Hit } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';

export function spread(db: Database, hits: Hit[], lending: RetrievalConfig['spread']): Hit[] {
  const { before, after, weight, from, reply } = lending;
  if (weight === 0 || hits.length === 0) return hits;
  const lenders = JSON.stringify(hits.slice(0, from).map((h) => h.rowid));
  // One statement for every lender: its nearest turns before and after it in its session, and
  // whether it asks (its text ends with a question mark, ASCII or the full-width one of Chinese
  // and Japanese) and the turn is the one right after it.
  const near = all(
    db,
    `SELECT t.rowid AS hit, n.value AS near, 0 AS answers FROM episodes t,
            json_each((SELECT json_group_array(rowid) FROM (
              SELECT e.rowid FROM episodes e WHERE e.session = t.session
                 AND (e.time_ms < t.time_ms OR (e.time_ms = t.time_ms AND e.rowid < t.rowid))
               ORDER BY e.time_ms DESC, e.rowid DESC LIMIT ?))) n
      WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL
     UNION ALL
     SELECT t.rowid, n.value, n.key = 0 AND (rtrim(t.text) LIKE '%?' OR rtrim(t.text) LIKE '%？') FROM episodes t,
            json_each((SELECT json_group_array(rowid) FROM (
              SELECT e.rowid FROM episodes e WHERE e.session = t.session
                 AND (e.time_ms > t.time_ms OR (e.time_ms = t.time_ms AND e.rowid > t.rowid))
               ORDER BY e.time_ms ASC, e.rowid ASC LIMIT ?))) n
      WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL`,
    [before, lenders, after, lenders],
  );
  const score = new Map(hits.map((h) => [h.rowid, h.score]));
  const lent = new Map(hits.slice(0, from).map((h) => [h.rowid, h.score]));
  for (const r of near) {
    const rowid = Number(r.near);
    const share = Number(r.answers) === 1 ? weight * reply : weight;
    score.set(rowid, (score.get(rowid) ?? 0) + share * lent.get(Number(r.hit))!);
  }
  return [...score].map(([rowid, s]) => ({ rowid, score: s })).sort((a, b) => b.score - a.score);
}
