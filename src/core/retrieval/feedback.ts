/**
 * Pseudo-relevance feedback: the words that the best first matches share, and the question does
 * not say, are searched as well at a lower weight. "Where has she travelled?" finds a turn about
 * Paris first; the other turns of the same trips (the flight, the hotel, the city's name) share
 * words with it that the question never used.
 */
import type { Database } from '../store/sqlite.js';
import { all } from '../store/sqlite.js';
import type { Hit, Term } from './keyword.js';
import type { RetrievalConfig } from './recipes.js';
import { STOP_WORDS, tokenize } from './text.js';

/**
 * Up to `terms` new words from the top `docs` hits, by how many of those hits hold them times
 * their rarity in the whole index (`rows` gives a word's matching rows, `total` the indexed rows);
 * a word must appear in at least two of the hits, so one turn's idiosyncrasies are not searched.
 */
export function feedbackTerms(
  db: Database,
  hits: Hit[],
  query: Term[],
  fb: RetrievalConfig['feedback'],
  rows: (term: string) => number,
  total: number,
): Term[] {
  if (fb.weight === 0 || fb.terms === 0 || hits.length < 2 || total === 0) return [];
  const top = hits.slice(0, fb.docs);
  const texts = all(db, 'SELECT text FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))', [
    JSON.stringify(top.map((h) => h.rowid)),
  ]).map((r) => String(r.text));
  const asked = new Set(query.map((q) => stem(q.term)));
  const seen = new Map<string, { word: string; docs: number }>();
  for (const text of texts) {
    const inDoc = new Set<string>();
    for (const raw of tokenize(text)) {
      const word = raw.replace(/'s$/, '').replace(/'/g, '');
      if (word.length < 3 || /^\d+$/.test(word) || STOP_WORDS.has(word)) continue;
      const key = stem(word);
      if (asked.has(key) || inDoc.has(key)) continue;
      inDoc.add(key);
      const prev = seen.get(key);
      seen.set(key, { word: prev?.word ?? word, docs: (prev?.docs ?? 0) + 1 });
    }
  }
  const scored = [...seen.values()]
    .filter((s) => s.docs >= 2)
    .map((s) => {
      const df = rows(s.word);
      return { word: s.word, score: df > 0 ? s.docs * Math.log(1 + total / df) : 0 };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, fb.terms);
  return scored.map((s) => ({ term: s.word, weight: fb.weight }));
}

// A crude suffix fold, only so "trip" and "trips" count as one word here (FTS stems on its own).
function stem(word: string): string {
  return word.replace(/(ies|es|s|ing|ed)$/, '');
}
