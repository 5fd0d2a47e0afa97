/** Words as the index stores them: FTS4's porter stems, asked of the index's own tokenizer. */
import { all, type Database } from '../store/sqlite.js';

// Stems never change: cached per database (a word's stem is one statement the first time).
const caches = new WeakMap<Database, Map<string, string>>();

/** The porter stem of a word, as the index stores it. */
export function stemOf(db: Database, word: string): string {
  let stems = caches.get(db);
  if (!stems) caches.set(db, (stems = new Map()));
  let s = stems.get(word);
  if (s === undefined) {
    // A temp table: not saved with the memory, and gone after a snapshot (export reopens the database).
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stemmer USING fts3tokenize('porter')");
    s = String(all(db, 'SELECT token FROM temp.recall_stemmer WHERE input = ?', [word])[0]?.token ?? word);
    if (stems.size > 10_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}
