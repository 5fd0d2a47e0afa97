/**
 * Stage one: what the question says. Its words (function words dropped), every expansion of them
 * the recipe runs in one place (a speaker called by an alias searched by name, misspellings,
 * irregular forms, other spellings), the entities it names and the dates it names, stated or said
 * relative to the time of asking.
 */
import type { SearchIndex } from '../store/search-index.js';
import { CJK_CHAR } from '../store/index-text.js';
import { dateMentions, relativeDates } from './dates.js';
import { formTerms } from './forms.js';
import { runs, type RetrievalRecipe } from './recipe.js';
import { queryTerms, tokenize } from './text.js';
import type { QueryAnalysis, Term } from './types.js';
import { typoTerms } from './typos.js';

/** A question's words and their expansions, the entities it names and its dates; `now` (ms) reads "yesterday" and "last week" too. */
export function analyseQuery(index: SearchIndex, text: string, recipe: RetrievalRecipe, now?: number): QueryAnalysis {
  const { analyse } = recipe;
  const asked = queryTerms(text, { stopWords: runs(analyse, 'stopWords') }).map((term) => ({ term, weight: 1 }));
  const named = namedEntities(index, text);
  const dates = [...dateMentions(text, () => index.yearsSpanned()), ...(now === undefined ? [] : relativeDates(text, now))];
  const terms = runs(analyse, 'aliases') ? speakerTerms(index, asked, named) : asked;
  return { terms, search: recipe.channels.keyword ? expanded(index, terms, recipe) : terms, named, dates };
}

/** The words the episode search searches: the question's, then their misspellings, then their forms and spellings. */
function expanded(index: SearchIndex, terms: Term[], recipe: RetrievalRecipe): Term[] {
  const { analyse } = recipe;
  const typos = runs(analyse, 'typos') ? typoTerms(index, terms, analyse.typos) : [];
  const weights = {
    ...(runs(analyse, 'forms') ? { forms: analyse.forms.weight } : {}),
    ...(runs(analyse, 'spellings') ? { spellings: analyse.forms.spellings } : {}),
  };
  const forms = formTerms(terms, weights, (w) => index.stem(w));
  return [...terms, ...typos, ...forms];
}

/** Entities named in the text: exact names and aliases, on word boundaries. */
export function namedEntities(index: SearchIndex, text: string): number[] {
  const ids: number[] = [];
  const lower = ` ${text.toLowerCase()} `;
  // Chinese and Japanese have no word boundaries: next to one of their characters a name stands alone ("田中さん").
  const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c) && !CJK_CHAR.test(c);
  for (const { id, key } of index.keysIn(lower)) {
    // Any occurrence on word boundaries counts ("Mel" in "Melanie and Mel").
    for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
      if (!isWordChar(lower[at - 1]) && !isWordChar(lower[at + key.length])) {
        if (!ids.includes(id)) ids.push(id);
        break;
      }
    }
  }
  return ids;
}

/**
 * The question's terms, plus the name of each speaker it calls by an alias ("Jo" for Joanna,
 * learned from greetings: ingest/aliases.ts), searched in the speaker column.
 */
function speakerTerms(index: SearchIndex, terms: Term[], named: number[]): Term[] {
  const speakers = index.speakerWords(tokenize);
  const out = [...terms];
  if (named.length === 0 || speakers.size === 0) return out;
  for (const r of index.namesAndAliases(named)) {
    const words = tokenize(r.name).filter((w) => speakers.has(w));
    if (words.length === 0) continue;
    const aliasWords = new Set(r.aliases.flatMap((a) => tokenize(a)));
    if (!out.some((t) => aliasWords.has(t.term))) continue;
    for (const w of words) if (!out.some((t) => t.term === w)) out.push({ term: w, weight: 1, column: 'speaker' });
  }
  return out;
}
