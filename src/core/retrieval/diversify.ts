/**
 * Coverage of the top results (maximal marginal relevance): when the answer is spread over
 * several turns ("what does she do for fun?"), the best match's near-duplicates would fill the
 * top k; each next pick is the candidate whose relevance, less its likeness to what is already
 * picked, is highest, so other evidence gets a place.
 */
import type { Database } from '../store/sqlite.js';
import { all } from '../store/sqlite.js';
import type { Hit } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';
import { STOP_WORDS, tokenize } from './text.js';

/**
 * The first `limit` of `hits` (best first) in MMR order: relevance is the score over the best
 * score; a pick costs each later candidate `weight` x its word overlap (cosine of content-word
 * sets) with the likest pick, plus `session` for each pick already from its session.
 */
export function diversify(db: Database, hits: Hit[], limit: number, div: RetrievalConfig['diversity']): Hit[] {
  if ((div.weight === 0 && div.session === 0) || hits.length <= 1) return hits.slice(0, limit);
  const pool = hits.slice(0, Math.max(limit, div.pool));
  const rows = all(db, 'SELECT rowid AS r, text, session FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))', [
    JSON.stringify(pool.map((h) => h.rowid)),
  ]);
  const info = new Map(rows.map((r) => [Number(r.r), { words: contentWords(String(r.text)), session: r.session as string | null }]));
  const top = pool[0]!.score || 1;
  const left = pool.map((h) => ({
    hit: h,
    rel: h.score / top,
    sim: 0,
    ...(info.get(h.rowid) ?? { words: new Set<string>(), session: null }),
  }));
  const picked: Hit[] = [];
  const perSession = new Map<string, number>();
  while (picked.length < limit && left.length > 0) {
    let best = 0;
    let bestValue = -Infinity;
    left.forEach((c, i) => {
      const value = c.rel - div.weight * c.sim - div.session * (c.session ? (perSession.get(c.session) ?? 0) : 0);
      if (value > bestValue) [best, bestValue] = [i, value];
    });
    const [chosen] = left.splice(best, 1);
    picked.push(chosen!.hit);
    if (chosen!.session) perSession.set(chosen!.session, (perSession.get(chosen!.session) ?? 0) + 1);
    for (const c of left) c.sim = Math.max(c.sim, cosine(c.words, chosen!.words));
  }
  return picked;
}

function contentWords(text: string): Set<string> {
  return new Set(tokenize(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w)));
}

function cosine(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}
