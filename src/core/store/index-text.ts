/**
 * The text the keyword index reads (the episodes_indexed view, schema.ts). FTS4's tokenizers take
 * every non-ASCII character for part of a word, so "Mel’s", "great👍" and "tools—a" would each be
 * one word that no question finds. Here a typographic apostrophe becomes ASCII and any other
 * non-ASCII character that is not a letter, digit or mark becomes a space. The stored text is untouched.
 */
import type { Database } from './sqlite.js';

const ASCII = /^[\x00-\x7f]*$/;
const APOSTROPHES = /[\u2018\u2019\u02bc]/g;
// Emoji joiners, variation selectors and the keycap mark are marks or format characters that only dress a symbol.
const NOT_WORD = /[^\x00-\x7f\p{L}\p{N}\p{M}]|[\u200d\ufe00-\ufe0f\u20e3]/gu;

export function indexText(text: string): string {
  return ASCII.test(text) ? text : text.replace(APOSTROPHES, "'").replace(NOT_WORD, ' ');
}

/** Registers `recall_index_text(text)`, which the view the index reads calls (again after each export: sql.js drops it). */
export function registerIndexText(db: Database): void {
  db.create_function('recall_index_text', (text: string | null) => (text === null ? null : indexText(String(text))));
}
