/**
 * The knowledge graph held in sql.js: applies journal events (graph-writes.ts) and answers reads.
 * It never writes the journal itself (Memory does) so replay and live writes share `apply`.
 */
import { all, scalar, type Database, type Row } from './sqlite.js';
import type { Authority, MemoryConfig } from '../model/config.js';
import { factView, round } from './fact-view.js';
import type { MemoryEvent } from '../model/events.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import { SearchIndex } from './search-index.js';
import { optimizeIndexes } from './fts.js';
import { assignSelection, GraphWrites } from './graph-writes.js';
import { entityIdOf, nextId, resolveId } from './ids.js';
import { getMeta, setMeta } from './meta.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import type { ProjectScope } from '../model/project.js';

/** A WHERE condition keeping the rows of a scope (ProjectScope) by their project column; TRUE without one. */
export function scopeSql(column: string, scope: ProjectScope | undefined): { sql: string; params: unknown[] } {
  if (!scope) return { sql: '1', params: [] };
  return { sql: `(${column} IS NULL OR ${column} = ?)`, params: [scope.project] };
}

/** A fact's (`r`) evidence turns as one JSON list: hundreds of turns cost one row, not hundreds. */
const EVIDENCE_LIST =
  '(SELECT json_group_array(episode_id) FROM (SELECT episode_id FROM evidence WHERE relationship_rowid = r.rowid AND episode_id IS NOT NULL))';

const parseEvidence = (list: unknown): string[] =>
  list === undefined || list === null ? [] : (JSON.parse(String(list)) as unknown[]).map(String);

export { round };

export class Graph {
  private readonly writes: GraphWrites;
  /** The search index over this graph: retrieval's only way to the database. */
  readonly index: SearchIndex;

  constructor(
    private readonly db: Database,
    private readonly config: MemoryConfig,
  ) {
    this.index = new SearchIndex(db);
    this.writes = new GraphWrites(db, config);
  }

  static createSchema(db: Database): void {
    db.exec(SCHEMA);
    setMeta(db, 'schema_version', SCHEMA_VERSION);
  }

  static schemaVersion(db: Database): number {
    try {
      return Number(getMeta(db, 'schema_version'));
    } catch {
      // No meta table: not a graph this code wrote.
      return -1;
    }
  }

  getMeta(key: string): string | undefined {
    return getMeta(this.db, key);
  }

  setMeta(key: string, value: string | number): void {
    setMeta(this.db, key, value);
  }

  nextId(prefix: 'ep' | 'rel', offset = 0): string {
    return nextId(this.db, prefix, offset);
  }

  /** How far another memory's events have been applied here (its seq), 0 when none. */
  originSeq(origin: string): number {
    return Number(this.getMeta(`origin_seq:${origin}`) ?? 0);
  }

  // ---- writing ----------------------------------------------------------------------------

  apply(e: MemoryEvent): void {
    this.writes.apply(e);
  }

  /** Applies events in order and records the last one's position and time. */
  applyAll(events: MemoryEvent[]): void {
    for (const e of events) {
      this.writes.apply(e);
      // How far each other memory's events are applied: kept with the state they produced (a restored one never lowers it).
      if (e.origin !== undefined) this.setMeta(`origin_seq:${e.origin}`, Math.max(this.originSeq(e.origin), e.originSeq ?? 0));
    }
    const last = events[events.length - 1];
    if (last) {
      this.setMeta('seq', last.seq);
      this.setMeta('last_write', last.at);
    }
  }

  /** After an erasure: rewrites the indexes and the file, so no copy of the erased rows stays in old segments or free pages. */
  compactAfterErasure(): void {
    optimizeIndexes(this.db);
    this.db.exec('VACUUM');
  }

  // ---- reads ------------------------------------------------------------------------------

  /** The current relationship with this exact subject, predicate and object, if any. */
  findCurrentRelationship(subject: string, predicate: string, object: string): string | undefined {
    const s = this.entityIdOf(subject);
    const o = this.entityIdOf(object);
    if (s === undefined || o === undefined) return undefined;
    const v = scalar(
      this.db,
      'SELECT id FROM relationships WHERE subject_id = ? AND predicate = ? AND object_id = ? AND valid_to IS NULL',
      [s, predicate, o],
    );
    return v === undefined ? undefined : String(v);
  }

  entityIdOf(name: string): number | undefined {
    return entityIdOf(this.db, name);
  }

  episodeIdByHash(hash: string): string | undefined {
    const v = scalar(this.db, 'SELECT id FROM episodes WHERE hash = ?', [hash]);
    return v === undefined ? undefined : String(v);
  }

  entityType(name: string): string | undefined {
    const id = this.entityIdOf(name);
    return id === undefined ? undefined : String(scalar(this.db, 'SELECT type FROM entities WHERE id = ?', [id]));
  }

  episodeExists(id: string): boolean {
    return scalar(this.db, 'SELECT 1 FROM episodes WHERE id = ?', [resolveId(this.db, 'ep', id)]) !== undefined;
  }

  relationshipExists(id: string): boolean {
    return scalar(this.db, 'SELECT 1 FROM relationships WHERE id = ?', [resolveId(this.db, 'rel', id)]) !== undefined;
  }

  counts(): { episodes: number; entities: number; relationships: number; current_relationships: number } {
    return {
      episodes: Number(scalar(this.db, 'SELECT COUNT(*) FROM episodes')),
      entities: Number(scalar(this.db, 'SELECT COUNT(*) FROM entities')),
      relationships: Number(scalar(this.db, 'SELECT COUNT(*) FROM relationships')),
      current_relationships: Number(scalar(this.db, 'SELECT COUNT(*) FROM relationships WHERE valid_to IS NULL')),
    };
  }

  episodesByRowids(rowids: number[]): EpisodeView[] {
    const views = this.episodeViewsByRowid(rowids);
    return rowids.flatMap((r) => views.get(r) ?? []);
  }

  /** The episodes of these rowids, by rowid (rows that no longer exist are absent). */
  episodeViewsByRowid(rowids: number[]): Map<number, EpisodeView> {
    if (rowids.length === 0) return new Map();
    const rows = all(this.db, 'SELECT * FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))', [JSON.stringify(rowids)]);
    const views = this.episodeViews(rows);
    return new Map(rows.map((r, i) => [Number(r.rowid), views[i]!]));
  }

  /** Episode rows as shown, in order; the names of the entities they mention are read in one statement. */
  episodeViews(rows: Row[]): EpisodeView[] {
    if (rows.length === 0) return [];
    const names = new Map<number, string[]>();
    const mentioned = all(
      this.db,
      `SELECT m.episode_rowid AS rowid, e.name FROM mentions m JOIN entities e ON e.id = m.entity_id
        WHERE m.episode_rowid IN (SELECT value FROM json_each(?)) ORDER BY e.name`,
      [JSON.stringify(rows.map((r) => Number(r.rowid)))],
    );
    for (const m of mentioned) {
      const rowid = Number(m.rowid);
      let list = names.get(rowid);
      if (!list) names.set(rowid, (list = []));
      list.push(String(m.name));
    }
    return rows.map((r) => ({
      id: String(r.id),
      text: String(r.text),
      speaker: (r.speaker as string | null) ?? null,
      role: (r.role as string | null) ?? null,
      authority: r.authority as Authority,
      source: (r.source as string | null) ?? null,
      session: (r.session as string | null) ?? null,
      ref: (r.ref as string | null) ?? null,
      time: String(r.time),
      entities: names.get(Number(r.rowid)) ?? [],
      project: (r.project as string | null) ?? null,
      ...(r.author ? { author: String(r.author) } : {}),
    }));
  }

  /**
   * The entities of `ids` a scope sees, in order: those mentioned by a turn or holding a fact in
   * it, and those of no project at all (neither mentioned nor related).
   */
  entitiesInScope(ids: number[], scope: ProjectScope | undefined): number[] {
    if (!scope || ids.length === 0) return ids;
    const seen = new Set(
      all(
        this.db,
        `SELECT x.value AS id FROM json_each(?) x WHERE
           EXISTS (SELECT 1 FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid
                    WHERE m.entity_id = x.value AND (e.project IS NULL OR e.project = ?))
        OR EXISTS (SELECT 1 FROM relationships r WHERE (r.subject_id = x.value OR r.object_id = x.value) AND (r.project IS NULL OR r.project = ?))
        OR (NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = x.value)
            AND NOT EXISTS (SELECT 1 FROM relationships r WHERE r.subject_id = x.value OR r.object_id = x.value))`,
        [JSON.stringify(ids), scope.project, scope.project],
      ).map((r) => Number(r.id)),
    );
    return ids.filter((id) => seen.has(id));
  }

  /** The episodes of `rowids` a scope sees, in order. */
  episodesInScope(rowids: number[], scope: ProjectScope | undefined): Set<number> | undefined {
    if (!scope) return undefined;
    return new Set(
      all(this.db, 'SELECT rowid FROM episodes WHERE rowid IN (SELECT value FROM json_each(?)) AND (project IS NULL OR project = ?)', [
        JSON.stringify(rowids),
        scope.project,
      ]).map((r) => Number(r.rowid)),
    );
  }

  /** The project of a stored episode (null: global). */
  episodeProject(id: string): string | null {
    return (
      (scalar(this.db, 'SELECT project FROM episodes WHERE id = ?', [resolveId(this.db, 'ep', id)]) as string | null | undefined) ?? null
    );
  }

  /** Every project the memory holds (null: global), with its episodes and current facts, largest first. */
  projects(): { project: string | null; episodes: number; relationships: number; last: string | null }[] {
    return all(
      this.db,
      `SELECT project, SUM(n) AS n, SUM(r) AS r, MAX(last) AS last FROM (
         SELECT project, COUNT(*) AS n, 0 AS r, MAX(time) AS last FROM episodes GROUP BY project
         UNION ALL SELECT project, 0, COUNT(*), NULL FROM relationships WHERE valid_to IS NULL GROUP BY project)
       GROUP BY project ORDER BY SUM(n) + SUM(r) DESC, project`,
    ).map((r) => ({
      project: (r.project as string | null) ?? null,
      episodes: Number(r.n),
      relationships: Number(r.r),
      last: (r.last as string | null) ?? null,
    }));
  }

  /** How many episodes and facts a project.assign with these selectors would move (graph-writes.ts assignProject). */
  assignable(sel: { from?: string | null; source?: string; session?: string }): { episodes: number; relationships: number } {
    const s = assignSelection(sel);
    if (!s) return { episodes: 0, relationships: 0 };
    const episodes = Number(scalar(this.db, `SELECT COUNT(*) FROM episodes e WHERE ${s.where}`, s.params));
    const relationships = Number(
      scalar(
        this.db,
        `SELECT COUNT(*) FROM relationships WHERE rowid IN (SELECT ev.relationship_rowid FROM evidence ev
           JOIN episodes e ON e.id = ev.episode_id WHERE ${s.where}) ${s.rename ? 'OR project IS ?' : ''}`,
        s.rename ? [...s.params, sel.from] : s.params,
      ),
    );
    return { episodes, relationships };
  }

  /** The facts of `rowids` a scope sees. */
  factsInScope(rowids: number[], scope: ProjectScope): number[] {
    return all(
      this.db,
      'SELECT rowid FROM relationships WHERE rowid IN (SELECT value FROM json_each(?)) AND (project IS NULL OR project = ?)',
      [JSON.stringify(rowids), scope.project],
    ).map((r) => Number(r.rowid));
  }

  /** Episodes that mention this entity and nothing else: what forgetting it erases. */
  episodesOnlyAbout(entityId: number): { id: string; text: string }[] {
    return all(
      this.db,
      `SELECT e.id, e.text FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid
        WHERE m.entity_id = ? AND NOT EXISTS (SELECT 1 FROM mentions o WHERE o.episode_rowid = m.episode_rowid AND o.entity_id != ?)
        ORDER BY e.rowid`,
      [entityId, entityId],
    ).map((r) => ({ id: String(r.id), text: String(r.text) }));
  }

  entityView(id: number): EntityView | undefined {
    const r = all(this.db, 'SELECT * FROM entities WHERE id = ?', [id])[0];
    if (!r) return undefined;
    return {
      name: String(r.name),
      type: String(r.type),
      aliases: all(this.db, 'SELECT alias FROM aliases WHERE entity_id = ? ORDER BY alias', [id]).map((a) => String(a.alias)),
      summary: String(r.summary),
      episodes: Number(scalar(this.db, 'SELECT COUNT(*) FROM mentions WHERE entity_id = ?', [id])),
      relationships: Number(
        scalar(this.db, 'SELECT COUNT(*) FROM relationships WHERE (subject_id = ? OR object_id = ?) AND valid_to IS NULL', [id, id]),
      ),
    };
  }

  /**
   * Relationships touching an entity, most recently reinforced first; ended ones only when history is asked for.
   * `evidence: false` leaves each fact's evidence empty (fill it with withEvidence): a query ranks many facts and shows few.
   */
  factsOf(
    entityId: number,
    opts: { history?: boolean; now?: number; limit?: number; scope?: ProjectScope; evidence?: boolean } = {},
  ): FactView[] {
    const inScope = scopeSql('r.project', opts.scope);
    const rows = all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
       WHERE (r.subject_id = ? OR r.object_id = ?) ${opts.history ? '' : 'AND r.valid_to IS NULL'} AND ${inScope.sql}
       ORDER BY r.last_reinforced_ms DESC, r.rowid DESC LIMIT ?`,
      [entityId, entityId, ...inScope.params, opts.limit ?? -1],
    );
    return rows.map((r) => this.factView(r, opts.now, opts.evidence));
  }

  factById(id: string, now?: number): FactView | undefined {
    const r = all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id WHERE r.id = ?`,
      [resolveId(this.db, 'rel', id)],
    )[0];
    return r ? this.factView(r, now) : undefined;
  }

  /** Facts by their local rowid (what the vector index keys them by), evidence left empty. */
  factsByRowids(rowids: number[], now?: number): Map<number, FactView> {
    const rows = all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
        WHERE r.rowid IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(rowids)],
    );
    return new Map(rows.map((r) => [Number(r.rowid), this.factView(r, now, false)]));
  }

  /**
   * The facts each of `episodeIds` backs (it is their evidence, not said against them), evidence
   * left empty; ended ones only when history is asked for.
   */
  factsBackedBy(
    episodeIds: string[],
    opts: { history?: boolean; now?: number; scope?: ProjectScope },
  ): { episode: string; fact: FactView }[] {
    const inScope = scopeSql('r.project', opts.scope);
    return all(
      this.db,
      `SELECT DISTINCT ev.episode_id AS backed_by, r.*, s.name AS subject, o.name AS object FROM evidence ev
         JOIN relationships r ON r.rowid = ev.relationship_rowid
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
       WHERE ev.episode_id IN (SELECT value FROM json_each(?)) AND ev.polarity > 0
         ${opts.history ? '' : 'AND r.valid_to IS NULL'} AND ${inScope.sql}`,
      [JSON.stringify(episodeIds), ...inScope.params],
    ).map((r) => ({ episode: String(r.backed_by), fact: this.factView(r, opts.now, false) }));
  }

  /** Facts read without their evidence (factsOf, factsByRowids), with it. */
  withEvidence<F extends FactView>(facts: F[]): F[] {
    if (facts.length === 0) return facts;
    // One statement for every fact shown: their ids are the stored ones (read from their rows).
    const lists = new Map(
      all(this.db, `SELECT r.id, ${EVIDENCE_LIST} AS evidence FROM relationships r WHERE r.id IN (SELECT value FROM json_each(?))`, [
        JSON.stringify(facts.map((f) => f.id)),
      ]).map((r) => [String(r.id), String(r.evidence)]),
    );
    return facts.map((f) => ({ ...f, evidence: parseEvidence(lists.get(f.id)) }));
  }

  /** `after`/`limit`: one page, facts past that rowid (an export read page by page). */
  allFacts(opts: { history?: boolean; now?: number; after?: number; limit?: number } = {}): FactView[] {
    return all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
       WHERE r.rowid > ? ${opts.history ? '' : 'AND r.valid_to IS NULL'} ORDER BY r.rowid LIMIT ?`,
      [opts.after ?? 0, opts.limit ?? -1],
    ).map((r) => this.factView(r, opts.now));
  }

  private evidenceOf(rowid: unknown): string[] {
    return parseEvidence(scalar(this.db, `SELECT ${EVIDENCE_LIST} FROM relationships r WHERE r.rowid = ?`, [rowid ?? null]));
  }

  private factView(r: Row, now = Date.now(), evidence = true): FactView {
    return factView(r, this.config.confidence, now, evidence ? this.evidenceOf(r.rowid) : []);
  }
}
