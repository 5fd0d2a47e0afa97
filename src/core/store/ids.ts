/**
 * How things are named in the graph. Episodes and relationships: `ep_<memory>_<n>` / `rel_<memory>_<n>`,
 * where <memory> is the id of the memory that minted it (its origin, random, kept in the folder),
 * so two memories sharing one log never mint the same id. A memory that has never been given an
 * origin (never shared) mints the older `ep_N` / `rel_N`, and those stay valid forever: shared,
 * they travel as `ep_<origin>_N`, and that spelling resolves to `ep_N` in the memory that minted
 * it. Rowids are local (a counter), never read from a new id. Entities: a case-folded key that
 * their aliases share. Every id is minted here.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventBody } from '../model/events.js';
import { ID_RE, isId, type IdPrefix } from '../model/id-shape.js';

export { isId, type IdPrefix };
import { writeFileDurably } from './durable.js';
import { getMeta, setMeta } from './meta.js';
import { scalar, type Database } from './sqlite.js';

export const entityKey = (name: string): string => name.trim().toLowerCase();

/** The memory's origin id, in the folder beside the journal (a snapshot is rebuilt, this file is not). */
export const ORIGIN_FILE = 'memory-id';
const ORIGIN_RE = /^[a-z0-9]{6,32}$/;
const LEGACY_RE = /^(ep|rel)_(\d+)$/;

/** The folder's origin id, or undefined when it has none (a memory never shared). */
export function readOrigin(folder: string): string | undefined {
  try {
    const v = fs.readFileSync(path.join(folder, ORIGIN_FILE), 'utf8').trim();
    return ORIGIN_RE.test(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The folder's origin id, minted (12 random base-36 characters) and stored durably the first time. */
export function ensureOrigin(folder: string): string {
  const existing = readOrigin(folder);
  if (existing) return existing;
  const origin = [...crypto.randomBytes(12)].map((b) => (b % 36).toString(36)).join('');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileDurably(path.join(folder, ORIGIN_FILE), Buffer.from(origin + '\n'));
  return origin;
}

/** The rowid inside an old-style `ep_N` or `rel_N` id (the only ids that carry their rowid). */
export function numericId(id: string): number {
  const m = LEGACY_RE.exec(id);
  const n = m ? Number(m[2]) : NaN;
  if (!Number.isInteger(n) || n <= 0) throw new Error(`"${id}" is not a valid id.`);
  return n;
}

/** The id the next new episode or relationship gets (`offset` more for later ones in the same write). */
export function nextId(db: Database, prefix: IdPrefix, offset = 0): string {
  const n = Number(getMeta(db, `last_${prefix}`) ?? 0) + 1 + offset;
  const origin = getMeta(db, 'origin');
  return origin ? `${prefix}_${origin}_${n}` : `${prefix}_${n}`;
}

/** The rowid a new row gets: an old-style id's own number, else the next of the local counter. */
export function rowidForNew(db: Database, prefix: IdPrefix, id: string): number {
  return LEGACY_RE.test(id) ? numericId(id) : Number(getMeta(db, `last_${prefix}`) ?? 0) + 1;
}

/** Records that a rowid was used, so it is never handed out again (not even after forgetting). */
export function markIdUsed(db: Database, prefix: IdPrefix, rowid: number): void {
  const key = `last_${prefix}`;
  if (Number.isFinite(rowid) && rowid > Number(getMeta(db, key) ?? 0)) setMeta(db, key, rowid);
}

/**
 * The counter value inside an id this memory minted (old-style, or carrying its own origin),
 * else undefined: a forget replayed without the erased events still keeps these used.
 */
export function ownNumber(db: Database, id: string): number | undefined {
  const m = ID_RE.exec(id);
  if (!m || (m[2] !== undefined && m[2] !== getMeta(db, 'origin'))) return undefined;
  return Number(m[3]);
}

const TABLE: Record<IdPrefix, string> = { ep: 'episodes', rel: 'relationships' };

/**
 * The id a row is stored under for an id as cited: itself, the local id it was merged into
 * (the same turn stored by two memories), or the old `ep_N` its `ep_<self>_N` spelling names.
 */
export function resolveId(db: Database, prefix: IdPrefix, id: string): string {
  if (scalar(db, `SELECT 1 FROM ${TABLE[prefix]} WHERE id = ?`, [id]) !== undefined) return id;
  const merged = getMeta(db, `alias:${id}`);
  if (merged !== undefined) return merged;
  const m = ID_RE.exec(id);
  if (m && m[2] !== undefined && m[2] === getMeta(db, 'origin')) return `${prefix}_${m[3]}`;
  return id;
}

/** The local rowid of an episode or relationship id (any spelling), if the row exists. */
export function rowidOf(db: Database, prefix: IdPrefix, id: string): number | undefined {
  const v = scalar(db, `SELECT rowid FROM ${TABLE[prefix]} WHERE id = ?`, [resolveId(db, prefix, id)]);
  return v === undefined ? undefined : Number(v);
}

/** Records that a foreign id names a row stored under another id (a duplicate turn). */
export function aliasId(db: Database, alias: string, id: string): void {
  if (alias !== id) setMeta(db, `alias:${alias}`, id);
}

/** An id as it travels between memories: an old-style `ep_N` gains the origin that minted it. */
export function canonicalId(id: string, origin: string): string {
  const m = LEGACY_RE.exec(id);
  return m ? `${m[1]}_${origin}_${m[2]}` : id;
}

/** The event with every episode and relationship id in it passed through `f` (a copy; the input is untouched). */
export function mapEventIds<E extends EventBody>(e: E, f: (prefix: IdPrefix, id: string) => string): E {
  const ep = (id: string): string => f('ep', id);
  const rel = (id: string): string => f('rel', id);
  const b = e as EventBody;
  switch (b.type) {
    case 'episodes.add':
      return { ...e, episodes: b.episodes.map((x) => ({ ...x, id: ep(x.id) })) };
    case 'relationship.assert':
      return { ...e, id: rel(b.id), ...(b.evidence ? { evidence: b.evidence.map(ep) } : {}) };
    case 'relationship.evidence':
      return { ...e, id: rel(b.id), ...(b.episode ? { episode: ep(b.episode) } : {}) };
    case 'relationship.retract':
      return { ...e, id: rel(b.id), ...(b.sameAs ? { sameAs: rel(b.sameAs) } : {}) };
    case 'relationship.correct':
    case 'relationship.check':
    case 'check.outcome':
      return { ...e, id: rel(b.id) };
    case 'entity.forget':
      return { ...e, episodes: b.episodes.map(ep), relationships: b.relationships.map(rel) };
    default:
      return e;
  }
}

/** The entity a name or one of its aliases names, case-insensitively. */
export function entityIdOf(db: Database, name: string): number | undefined {
  const key = entityKey(name);
  const v = scalar(db, 'SELECT id FROM entities WHERE key = ?', [key]) ?? scalar(db, 'SELECT entity_id FROM aliases WHERE key = ?', [key]);
  return v === undefined ? undefined : Number(v);
}
