/**
 * What a forget erases, read from the graph: the entity's facts and the episodes only about it
 * (within a scope, for a forget from the team), whether anything of the entity stays, and the
 * entities the erasure leaves with nothing (an erased fact's other end can be the private part).
 */
import { ID_RE } from '../model/id-shape.js';
import { getMeta } from './meta.js';
import { all, scalar, type Database } from './sqlite.js';

export interface ErasureScope {
  /** Whether a row of this project may be erased (null: the global memory). */
  shares(project: string | null): boolean;
}

export interface Erasure {
  episodes: { id: string; text: string }[];
  relationships: string[];
  /** Something of the entity stays (facts or turns outside the scope): the entity is kept for it. */
  keepEntity: boolean;
}

/**
 * The entity's facts and the episodes only about it. With a scope, this memory's own rows only
 * where the scope shares their project; rows another memory wrote are shared by definition.
 */
export function erasureOf(db: Database, entityId: number, scope?: ErasureScope): Erasure {
  const origin = getMeta(db, 'origin');
  const admit = (id: string, project: unknown): boolean => {
    if (!scope) return true;
    const m = ID_RE.exec(id);
    const own = m !== null && (m[2] === undefined || m[2] === origin);
    return !own || scope.shares(project === null || project === undefined ? null : String(project));
  };
  const facts = all(db, 'SELECT id, project FROM relationships WHERE subject_id = ? OR object_id = ? ORDER BY rowid', [entityId, entityId]);
  const only = all(
    db,
    `SELECT e.id, e.text, e.project FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid
      WHERE m.entity_id = ? AND NOT EXISTS (SELECT 1 FROM mentions o WHERE o.episode_rowid = m.episode_rowid AND o.entity_id != ?)
      ORDER BY e.rowid`,
    [entityId, entityId],
  );
  const relationships = facts.filter((f) => admit(String(f.id), f.project)).map((f) => String(f.id));
  const episodes = only.filter((e) => admit(String(e.id), e.project)).map((e) => ({ id: String(e.id), text: String(e.text) }));
  const keptFacts = facts.length > relationships.length;
  // What the scope keeps of it (facts, or any turn naming it) keeps the entity; a local forget keeps nothing.
  const keptTurns =
    scope !== undefined &&
    all(db, 'SELECT e.id, e.project FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid WHERE m.entity_id = ?', [entityId]).some(
      (e) => !admit(String(e.id), e.project),
    );
  return { episodes, relationships, keepEntity: keptFacts || keptTurns };
}

/**
 * Names of entities that erasing these facts and episodes leaves with no fact, no mention and no
 * alias: the other ends of the facts and what the episodes mention (the forgotten entity aside).
 */
export function orphansAfter(db: Database, entityId: number, episodes: string[], relationships: string[]): string[] {
  const eps = JSON.stringify(episodes);
  const rels = JSON.stringify(relationships);
  return all(
    db,
    `WITH gone_rel AS (SELECT rowid, subject_id, object_id FROM relationships WHERE id IN (SELECT value FROM json_each(?))),
          gone_ep AS (SELECT rowid FROM episodes WHERE id IN (SELECT value FROM json_each(?))),
          candidate AS (
            SELECT subject_id AS id FROM gone_rel UNION SELECT object_id FROM gone_rel
            UNION SELECT entity_id FROM mentions WHERE episode_rowid IN (SELECT rowid FROM gone_ep))
     SELECT e.name FROM candidate c JOIN entities e ON e.id = c.id
      WHERE c.id != ?
        AND NOT EXISTS (SELECT 1 FROM relationships r WHERE (r.subject_id = c.id OR r.object_id = c.id) AND r.rowid NOT IN (SELECT rowid FROM gone_rel))
        AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = c.id AND m.episode_rowid NOT IN (SELECT rowid FROM gone_ep))
        AND NOT EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = c.id)
      ORDER BY e.name`,
    [rels, eps, entityId],
  ).map((r) => String(r.name));
}

/** Whether an entity has nothing left: no fact, no mention, no alias (an orphan named by a forget is removed only then). */
export function isBare(db: Database, entityId: number): boolean {
  return (
    scalar(db, 'SELECT 1 FROM relationships WHERE subject_id = ? OR object_id = ? LIMIT 1', [entityId, entityId]) === undefined &&
    scalar(db, 'SELECT 1 FROM mentions WHERE entity_id = ? LIMIT 1', [entityId]) === undefined &&
    scalar(db, 'SELECT 1 FROM aliases WHERE entity_id = ? LIMIT 1', [entityId]) === undefined
  );
}
