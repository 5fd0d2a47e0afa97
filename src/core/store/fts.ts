/**
 * The keyword index over episodes (FTS4). episodes_fts is an external-content table over
 * episodes(text, speaker): the index holds no copy of the text, and the content table gives the
 * old values when a row leaves the index.
 */
import { run, type Database } from './sqlite.js';

const generations = new WeakMap<Database, number>();
const bump = (db: Database): void => void generations.set(db, (generations.get(db) ?? 0) + 1);

/** Changes whenever the index does: readers key their caches of row counts on it. */
export const ftsGeneration = (db: Database): number => generations.get(db) ?? 0;

/** Adds an episode (already in `episodes`) to the keyword index. */
export function indexEpisode(db: Database, rowid: number): void {
  bump(db);
  run(db, 'INSERT INTO episodes_fts(docid, text, speaker) SELECT rowid, text, COALESCE(speaker, \'\') FROM episodes WHERE rowid = ?', [rowid]);
}

/**
 * Removes an episode from the keyword index. Call before its episodes row is deleted: FTS4 reads
 * the old values from the content table to find the index entries to drop.
 */
export function unindexEpisode(db: Database, rowid: number): void {
  bump(db);
  run(db, 'DELETE FROM episodes_fts WHERE docid = ?', [rowid]);
}
