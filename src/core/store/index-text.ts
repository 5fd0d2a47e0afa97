/**
 * The text the keyword index reads (the episodes_indexed view, schema.ts). FTS4's tokenizers take
 * every non-ASCII character for part of a word, so "Mel’s", "great👍" and "tools—a" would each be
 * one word that no question finds. Here a typographic apostrophe becomes ASCII and any other
 * non-ASCII character that is not a letter, digit or mark becomes a space; a Latin letter loses its
 * accents (withoutAccents); Chinese, Japanese and Korean are read by pairs of characters
 * (cjkBigrams). The stored text is untouched.
 *
 * They also keep a code identifier whole ("_" is a word character to them, and camelCase is never
 * split), so "fetch invoices" never found `fetchInvoices` nor `fetch_invoices`. The words of each
 * identifier go to a column of their own (identifierParts), the turn's text column keeps the identifier.
 */
import type { Database } from './sqlite.js';

const ASCII = /^[\x00-\x7f]*$/;
const APOSTROPHES = /[\u2018\u2019\u02bc]/g;
// Emoji joiners, variation selectors and the keycap mark are marks or format characters that only dress a symbol.
const NOT_WORD = /[^\x00-\x7f\p{L}\p{N}\p{M}]|[\u200d\ufe00-\ufe0f\u20e3]/gu;

// Chinese and Japanese sentence marks end a sentence as ". ", so a long turn's passages end there too.
const SENTENCE_MARKS: Record<string, string> = { '。': '. ', '．': '. ', '｡': '. ', '！': '! ', '？': '? ' };
const SENTENCE_MARK = /[。．｡！？]/g;

export function indexText(text: string): string {
  if (ASCII.test(text)) return text;
  const marked = text.replace(APOSTROPHES, "'").replace(SENTENCE_MARK, (m) => SENTENCE_MARKS[m]!);
  return cjkBigrams(withoutAccents(marked.replace(NOT_WORD, ' ')));
}

// People often type without accents what a model writes with them ("configuracao", "configuração"):
// a Latin letter's diacritics are left out, as SQLite's own unicode61 tokenizer does by default.
const LATIN_ACCENTED = /(\p{Script=Latin})\p{M}+/gu;

/** A text with the diacritics of its Latin letters left out ("café" is cafe); other scripts' marks stay. */
export function withoutAccents(text: string): string {
  if (ASCII.test(text)) return text;
  return text.normalize('NFD').replace(LATIN_ACCENTED, '$1').normalize('NFC');
}

// Chinese and Japanese write no spaces, and Korean glues particles to words: to FTS4 a whole run
// is one token, so no question found a word inside it. A run becomes its overlapping pairs of
// characters (as Lucene's CJK analyzer does): "データベース" is デー ータ タベ ベー ース.
const CJK_CLASS = '[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30fc\\uff70]';
const CJK = new RegExp(`${CJK_CLASS}+`, 'gu');
/** One Chinese, Japanese or Korean character. */
export const CJK_CHAR = new RegExp(`^${CJK_CLASS}$`, 'u');

/** A text with each run of Chinese, Japanese or Korean characters written as its overlapping pairs. */
export function cjkBigrams(text: string): string {
  return text.replace(CJK, (run) => {
    const chars = [...run];
    if (chars.length < 3) return ` ${run} `;
    return ` ${chars
      .slice(1)
      .map((c, i) => chars[i]! + c)
      .join(' ')} `;
  });
}

// A word as the index's tokenizer keeps it, underscores included.
const WORD = /[\p{L}\p{N}_]+/gu;
// Where an identifier has more than one word: an underscore, or a case change (fetchInvoices, HTTPServer, v2Api).
const JOINED = /_|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{N}\p{Lu}/u;
// An acronym's plural ("APIs", "URLs") is one word.
const CASE_CHANGE = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})(?!\p{Lu}s$)|(?<=\p{N})(?=\p{Lu})/u;

/** The words of a code identifier (`get_user_by_id`: get, user, by, id; `parseJSONBody`: parse, JSON, Body); none for a plain word. */
export function identifierWords(word: string): string[] {
  if (!JOINED.test(word)) return [];
  const words = word
    .split('_')
    .flatMap((part) => part.split(CASE_CHANGE))
    .filter(Boolean);
  return words.length === 1 && words[0] === word ? [] : words;
}

/** The words of every code identifier in a text, in order, space-separated: the index's parts column. */
export function identifierParts(text: string): string {
  if (!JOINED.test(text)) return '';
  return (indexText(text).match(WORD) ?? []).flatMap(identifierWords).join(' ');
}

/**
 * Registers `recall_index_text(text)` and `recall_identifier_parts(text)`, which the view the
 * index reads calls (again after each export: sql.js drops them).
 */
export function registerIndexText(db: Database): void {
  db.create_function('recall_index_text', (text: string | null) => (text === null ? null : indexText(String(text))));
  db.create_function('recall_identifier_parts', (text: string | null) => (text === null ? null : identifierParts(String(text))));
}
