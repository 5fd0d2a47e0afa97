/**
 * The keyword indexes (FTS4). episodes_fts is an external-content table over episodes(text,
 * speaker, and the words of the text's code identifiers), read through the episodes_indexed view
 * (index-text.ts): the index holds no copy of the text, and the view gives the old values when a
 * row leaves the index. entities_fts keeps its own copy of each entity's name and summary.
 */
import { identifierParts, indexText } from './index-text.js';
import { run, scalar, type Database } from './sqlite.js';

export const FTS_TABLES = ['episodes_fts', 'entities_fts'] as const;
export type FtsTable = (typeof FTS_TABLES)[number];

const generations = new WeakMap<Database, number>();
const bump = (db: Database): void => void generations.set(db, (generations.get(db) ?? 0) + 1);

/** Changes whenever the episodes index does: readers key their caches of row counts on it. */
export const ftsGeneration = (db: Database): number => generations.get(db) ?? 0;

/** Adds an episode (already in `episodes`) to the keyword index. */
export function indexEpisode(db: Database, rowid: number): void {
  bump(db);
  run(
    db,
    'INSERT INTO episodes_fts(docid, text, speaker, parts) SELECT rowid, text, speaker, parts FROM episodes_indexed WHERE rowid = ?',
    [rowid],
  );
}

/**
 * Removes an episode from the keyword index. Call before its episodes row is deleted: FTS4 reads
 * the old values from the content table to find the index entries to drop.
 */
export function unindexEpisode(db: Database, rowid: number): void {
  bump(db);
  run(db, 'DELETE FROM episodes_fts WHERE docid = ?', [rowid]);
}

/**
 * Indexes an entity's name and summary as a turn's text is read (index-text.ts), the name with
 * the words of its identifiers (`fetchInvoices` is found as "fetch invoices").
 */
export function indexEntity(db: Database, id: number, name: string, summary: string): void {
  const parts = identifierParts(name);
  run(db, 'INSERT INTO entities_fts(docid, name, summary) VALUES (?, ?, ?)', [
    id,
    indexText(parts ? `${name} ${parts}` : name),
    indexText(summary),
  ]);
}

export function reindexEntitySummary(db: Database, id: number, summary: string): void {
  run(db, 'UPDATE entities_fts SET summary = ? WHERE docid = ?', [indexText(summary), id]);
}

export function unindexEntity(db: Database, id: number): void {
  run(db, 'DELETE FROM entities_fts WHERE docid = ?', [id]);
}

/**
 * One step of merging an index's segments (FTS4 leaves many small ones as rows arrive, and
 * reading them all is what slows a query on a grown memory). False when nothing was left to merge.
 */
export function mergeIndexSegments(db: Database, table: FtsTable): boolean {
  const before = Number(scalar(db, 'SELECT total_changes()'));
  db.exec(`INSERT INTO ${table}(${table}) VALUES('merge=64,4')`);
  // Fewer than two changed rows means there was nothing left to merge (FTS4 docs).
  return Number(scalar(db, 'SELECT total_changes()')) - before >= 2;
}

/** Rewrites both indexes into one segment each: no entry of a deleted row survives in an old segment. */
export function optimizeIndexes(db: Database): void {
  for (const table of FTS_TABLES) db.exec(`INSERT INTO ${table}(${table}) VALUES('optimize')`);
}
