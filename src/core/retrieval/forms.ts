/**
 * Irregular word forms. The porter stemmer the index uses joins "paint" and "painted" but not
 * "go" and "went", "buy" and "bought", "child" and "children": a question asks in one form ("when
 * did she go ...?") and the turn says another ("I went ..."). A question's word also searches its
 * irregular forms, from English word lists (english-verbs-irregular, irregular-plurals).
 */
import verbs from 'english-verbs-irregular/dist/verbs.json';
import plurals from 'irregular-plurals';
import type { Term } from './keyword.js';
import { STOP_WORDS } from './text.js';

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

/**
 * Terms for the irregular forms of the question's words at `weight` times the word's own: those
 * the stemmer does not already join with a word of the question (`stem`: the index's stemmer), and
 * no function words. A speaker's name (a column term) has no forms.
 */
export function formTerms(terms: readonly Term[], weight: number, stem: (word: string) => string): Term[] {
  if (weight === 0) return [];
  const have = new Set(terms.map((t) => stem(t.term)));
  const out: Term[] = [];
  for (const t of terms) {
    if (t.column) continue;
    for (const form of formGroups().get(t.term) ?? []) {
      const s = stem(form);
      if (have.has(s) || STOP_WORDS.has(form)) continue;
      have.add(s);
      out.push({ term: form, weight: weight * t.weight });
    }
  }
  return out;
}
