/**
 * Irregular word forms and spellings. The porter stemmer the index uses joins "paint" and
 * "painted" but not "go" and "went", "buy" and "bought", "child" and "children": a question asks
 * in one form ("when did she go ...?") and the turn says another ("I went ..."). Nor does it join
 * British and American spellings ("favourite" and "favorite", "travelled" and "traveled"). A
 * question's word also searches its other spellings and its irregular forms, from English word
 * lists (american-british-english-translator, english-verbs-irregular, irregular-plurals).
 */
import spellings from 'american-british-english-translator/data/british_spellings.json';
import verbs from 'english-verbs-irregular/dist/verbs.json';
import plurals from 'irregular-plurals';
import { STOP_WORDS } from './text.js';
import type { Term } from './types.js';

let groups: Map<string, readonly string[]> | undefined;

/**
 * Each form's group: a verb's base, past tenses and participles (found from any of them and from
 * the base's -s and -ing forms), a noun's singular and plural.
 */
function formGroups(): Map<string, readonly string[]> {
  if (groups) return groups;
  const sets = new Map<string, Set<string>>();
  const join = (keys: string[], forms: string[]): void => {
    for (const key of keys) {
      let set = sets.get(key);
      if (!set) sets.set(key, (set = new Set()));
      for (const f of forms) set.add(f);
    }
  };
  for (const [base, tenses] of Object.entries(verbs as Record<string, string[][]>)) {
    const forms = [base, ...tenses.flat()];
    const ing = /[^e]e$/.test(base) ? `${base.slice(0, -1)}ing` : `${base}ing`;
    join([...forms, `${base}s`, `${base}es`, ing], forms);
  }
  for (const [one, many] of plurals) join([one, many], [one, many]);
  groups = new Map([...sets].map(([key, set]) => [key, [...set]]));
  return groups;
}

let variants: Map<string, readonly string[]> | undefined;

/** Each word's other spellings: British for American and American for British. */
function spellingVariants(): Map<string, readonly string[]> {
  if (variants) return variants;
  const map = new Map<string, string[]>();
  const add = (from: string, to: string): void => void (map.get(from) ?? map.set(from, []).get(from)!).push(to);
  for (const [british, american] of Object.entries(spellings as Record<string, string>)) {
    add(british, american);
    add(american, british);
  }
  variants = map;
  return variants;
}

/**
 * Terms for the other spellings of the question's words (at `spellings` times the word's own
 * weight: the same word) and for the irregular forms of the words and their spellings (at
 * `forms`): those the stemmer does not already join with a word of the question (`stem`: the
 * index's stemmer), and no function words. A weight left out is a method off. A speaker's name
 * (a column term) has neither.
 */
export function formTerms(terms: readonly Term[], weights: { forms?: number; spellings?: number }, stem: (word: string) => string): Term[] {
  const have = new Set(terms.map((t) => stem(t.term)));
  const out: Term[] = [];
  const add = (word: string, weight: number): void => {
    const s = stem(word);
    if (have.has(s) || STOP_WORDS.has(word)) return;
    have.add(s);
    out.push({ term: word, weight });
  };
  for (const t of terms) {
    if (t.column) continue;
    const spelt = weights.spellings === undefined ? [] : (spellingVariants().get(t.term) ?? []);
    for (const word of spelt) add(word, weights.spellings! * t.weight);
    if (weights.forms === undefined) continue;
    for (const word of [t.term, ...spelt]) for (const form of formGroups().get(word) ?? []) add(form, weights.forms * t.weight);
  }
  return out;
}
