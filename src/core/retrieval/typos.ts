/**
 * Words as people type them: a question's word also finds its misspellings in the memory
 * ("raspberries" finds "rasberries"), and a misspelt question word finds the word the memory
 * holds. Both sides are compared as the index stores them (porter stems), one typing slip apart,
 * among the indexed words that share their first two letters (the search index reads them off FTS4).
 */
import type { SearchIndex } from '../store/search-index.js';
import type { RetrievalRecipe } from './recipe.js';
import type { Term } from './types.js';

// Keys next to each other on a QWERTY keyboard: a slip of the finger changes a letter into one of these.
const ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const NEAR = new Map<string, string>();
for (const [r, row] of ROWS.entries())
  for (const [c, key] of [...row].entries()) {
    const near = [row[c - 1], row[c + 1], ROWS[r - 1]?.[c], ROWS[r - 1]?.[c + 1], ROWS[r + 1]?.[c], ROWS[r + 1]?.[c - 1]];
    NEAR.set(key, near.filter((k): k is string => k !== undefined).join(''));
  }

/**
 * True when b is a typing slip of a (or a of b): a letter missing or added, two neighbours
 * swapped, or a letter changed into a key next to it. Two real words are seldom that close.
 */
export function oneSlipApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return NEAR.get(a[i]!)?.includes(b[i]!) ?? false; // changed
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swapped
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.slice(i + 1) === short.slice(i);
}

/**
 * Terms for the misspellings of the question's words the memory holds (at `weight`), and for the
 * word a misspelt question word meant (at full weight: the word itself finds nothing).
 */
export function typoTerms(index: SearchIndex, terms: Term[], settings: RetrievalRecipe['analyse']['typos']): Term[] {
  const have = new Set(terms.map((t) => t.term));
  const out: Term[] = [];
  for (const t of terms) {
    if (t.column || /\d/.test(t.term)) continue;
    const stem = index.stem(t.term);
    if (stem.length < settings.minLength) continue;
    const rows = index.matchingRows(t.term);
    const near = index.wordsWithPrefix(stem.slice(0, 2)).filter((c) => oneSlipApart(stem, c.term) && c.term.length >= settings.minLength);
    // A word the memory lacks meant its commonest neighbour; a word it holds has rarer slips of it.
    const picked = rows === 0 ? near.sort((a, b) => b.rows - a.rows).slice(0, 1) : near.filter((c) => c.rows < rows);
    for (const c of picked) {
      // The index stems what it is asked for again: only a stem that stems to itself finds its rows.
      if (have.has(c.term) || index.stem(c.term) !== c.term) continue;
      have.add(c.term);
      out.push({ term: c.term, weight: (rows === 0 ? 1 : settings.weight) * t.weight });
    }
  }
  return out;
}
