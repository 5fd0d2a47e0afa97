/**
 * How things are named in the graph: episodes and relationships by `ep_N` / `rel_N` (N is the
 * rowid), entities by a case-folded key that their aliases share.
 */
import { getMeta, setMeta } from './meta.js';
import { scalar, type Database } from './sqlite.js';

export const entityKey = (name: string): string => name.trim().toLowerCase();

/** The rowid inside an `ep_N` or `rel_N` id. */
export function numericId(id: string): number {
  const n = Number(id.slice(id.indexOf('_') + 1));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`"${id}" is not a valid id.`);
  return n;
}

/** The id the next new episode or relationship gets (`offset` more for later ones in the same write). */
export function nextId(db: Database, prefix: 'ep' | 'rel', offset = 0): string {
  return `${prefix}_${Number(getMeta(db, `last_${prefix}`) ?? 0) + 1 + offset}`;
}

/** Records that an id was used, so it is never handed out again (not even after forgetting). */
export function markIdUsed(db: Database, prefix: 'ep' | 'rel', id: string): void {
  const key = `last_${prefix}`;
  const n = Number(id.slice(id.indexOf('_') + 1));
  if (Number.isFinite(n) && n > Number(getMeta(db, key) ?? 0)) setMeta(db, key, n);
}

/** The entity a name or one of its aliases names, case-insensitively. */
export function entityIdOf(db: Database, name: string): number | undefined {
  const key = entityKey(name);
  const v = scalar(db, 'SELECT id FROM entities WHERE key = ?', [key]) ?? scalar(db, 'SELECT entity_id FROM aliases WHERE key = ?', [key]);
  return v === undefined ? undefined : Number(v);
}
