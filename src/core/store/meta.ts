/** The meta table: the graph's own bookkeeping (schema version, journal position, id counters). */
import { run, scalar, type Database } from './sqlite.js';

export function getMeta(db: Database, key: string): string | undefined {
  const v = scalar(db, 'SELECT value FROM meta WHERE key = ?', [key]);
  return v === undefined ? undefined : String(v);
}

export function setMeta(db: Database, key: string, value: string | number): void {
  run(db, 'INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [key, String(value)]);
}
