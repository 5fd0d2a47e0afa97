/**
 * Turning free text into keyword-search terms. FTS4's porter tokenizer stems both sides; what
 * is done here is what FTS4 cannot: dropping words that carry no evidence, and quoting terms so
 * no user text is ever parsed as FTS query syntax.
 */
import { BARE_MONTH_YEARS, LIMITS } from '../model/limits.js';
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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_PATTERNS: { re: RegExp; unit: 'day' | 'month' | 'year'; parts: (m: RegExpExecArray) => [number, number, number] }[] = [
  // 16 November, 2023
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})\\b`, 'gi'),
    unit: 'day',
    parts: (m) => [+m[3]!, month(m[2]!), +m[1]!],
  },
  // November 16, 2023
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi'),
    unit: 'day',
    parts: (m) => [+m[3]!, month(m[1]!), +m[2]!],
  },
  // November 2023
  { re: new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`, 'gi'), unit: 'month', parts: (m) => [+m[2]!, month(m[1]!), 1] },
  // 2023
  { re: /\b((?:19|20)\d{2})\b/g, unit: 'year', parts: (m) => [+m[1]!, 0, 1] },
];

function month(name: string): number {
  return MONTHS.indexOf(name.toLowerCase().slice(0, 3));
}

export interface DateMention {
  /** The words as written, e.g. "16 November, 2023". */
  text: string;
  /** [start, end) in ms since the epoch, UTC. */
  start: number;
  end: number;
  unit: 'day' | 'week' | 'month' | 'year';
  /** Said relative to the time of asking ("yesterday", relative-dates.ts): the recipe's relative slack applies. */
  relative?: boolean;
}

// "in June", "during May": a month after a word that places it in time, with no day or year after it.
// ("Since June" is a span from June on, not June: it is left alone.)
const BARE_MONTH = new RegExp(`\\b(?:in|during|early|late|mid)\\s+${MONTH}\\b(?!,?\\s*\\d)`, 'gi');

/**
 * Each match of the patterns in the text, earlier patterns first, read by `read`; a match that
 * overlaps one already read is skipped, so the longest reading wins ("16 November, 2023" is not
 * also "2023"; "the day before yesterday" is not also yesterday).
 */
export function readSpans<P extends { re: RegExp }>(
  text: string,
  patterns: readonly P[],
  read: (p: P, m: RegExpExecArray) => DateMention,
): DateMention[] {
  const found: DateMention[] = [];
  const taken: [number, number][] = [];
  for (const p of patterns) {
    for (const m of text.matchAll(p.re)) {
      const [from, to] = [m.index!, m.index! + m[0].length];
      if (taken.some(([a, b]) => from < b && to > a)) continue;
      taken.push([from, to]);
      found.push(read(p, m as RegExpExecArray));
    }
  }
  return found;
}

/**
 * Explicit calendar dates in a text ("on 16 November, 2023", "in June 2023", "in 2022"), most
 * precise first; a span already read as a precise date is not read again as a vaguer one. Given
 * the years a memory spans (asked for only then), a month named without its year ("in June") is
 * that month of each of the latest BARE_MONTH_YEARS of them. Dates relative to the time of asking
 * ("last week") are read in relative-dates.ts.
 */
export function dateMentions(text: string, yearsSpanned?: () => { first: number; last: number } | undefined): DateMention[] {
  const found = readSpans(text, DATE_PATTERNS, (p, m) => {
    const [y, mo, d] = p.parts(m);
    const end = p.unit === 'day' ? Date.UTC(y, mo, d + 1) : p.unit === 'month' ? Date.UTC(y, mo + 1, 1) : Date.UTC(y + 1, 0, 1);
    return { text: m[0], start: Date.UTC(y, mo, d), end, unit: p.unit };
  });
  // The years are asked for only when a month comes without one: most questions name none.
  let years: { first: number; last: number } | undefined;
  for (const m of yearsSpanned ? text.matchAll(BARE_MONTH) : []) {
    years ??= yearsSpanned!();
    if (!years) break;
    const mo = month(m[1]!);
    for (let y = Math.max(years.first, years.last - BARE_MONTH_YEARS + 1); y <= years.last; y++)
      found.push({ text: m[0], start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1), unit: 'month' });
  }
  return found;
}
