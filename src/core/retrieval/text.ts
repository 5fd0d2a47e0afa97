/**
 * Turning free text into keyword-search terms. FTS4's porter tokenizer stems both sides; what
 * is done here is what FTS4 cannot: dropping words that carry no evidence, and quoting terms so
 * no user text is ever parsed as FTS query syntax.
 */
import { LIMITS } from '../model/limits.js';
import { cjkBigrams, identifierParts, withoutAccents } from '../store/index-text.js';

// Function words and question words: they appear in nearly every turn, so a question made of
// them ("what did she say about it") would otherwise rank by noise.
export const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should ' +
    'so some such than that the their theirs them themselves then there these they this those through to ' +
    'too under until up very was we were what when where which while who whom why will with would you your ' +
    'yours yourself yourselves also ever get got gotten let lets may might must shall us something anything ' +
    "thing things really much many one ones yeah yes oh okay ok hey hi like well would've im i'm it's that's " +
    // Hedges ("would she likely ..."); porter also stems "likely" to "like", the commonest word of chat.
    'likely probably perhaps maybe'
  ).split(/\s+/),
);

/**
 * Lower-cased word tokens (letters and digits, any script); a typographic apostrophe counts as one,
 * and underscores inside a word keep it whole, as the index keeps `get_user_by_id`. Accents are
 * left out and Chinese, Japanese and Korean come as pairs of characters, as the index reads them
 * (index-text.ts).
 */
export function tokenize(text: string): string[] {
  return (
    cjkBigrams(withoutAccents(text))
      .toLowerCase()
      .replace(/\u2019/g, "'")
      .match(/[\p{L}\p{N}]+(?:_+[\p{L}\p{N}]+)*(?:'[\p{L}]+)?/gu) ?? []
  );
}

// "How long", "how often": the adjective is part of the question word, not what is asked about;
// so is "kind" in "what kind of" (and a turn's "kind words" is no answer to it).
const HOW = /\bhow\s+(?:long|often|far|old|soon)\b/gi;
const KIND = /\b(what|which)\s+(?:kinds?|types?|sorts?)\s+of\b/gi;

/**
 * Content words of a query, de-duplicated, stop words removed (all of them kept if that leaves none).
 * A code identifier is searched whole and by its words, as the index reads it (index-text.ts).
 * At most LIMITS.matchTerms of them, the first asked: FTS4 refuses a MATCH of a few thousand terms.
 */
export function queryTerms(text: string, opts: { stopWords?: boolean } = {}): string[] {
  const asked = text.replace(HOW, 'how').replace(KIND, '$1');
  const words = identifierParts(asked).toLowerCase().split(' ').filter(Boolean);
  const tokens = [...tokenize(asked), ...words].map((t) => t.replace(/'s$/, '').replace(/'/g, ''));
  // A lone letter ("U.S." gives u, s) matches every possessive in the index: noise, and slow.
  const content = tokens.filter((t) => (t.length > 1 || /\d/.test(t)) && (opts.stopWords === false || !STOP_WORDS.has(t)));
  return [...new Set(content.length > 0 ? content : tokens.filter((t) => t.length > 0))].slice(0, LIMITS.matchTerms);
}

/** An FTS4 MATCH expression that ORs the terms, each quoted so it is a plain word. */
export function ftsOr(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '')}"`).join(' OR ');
}
