/**
 * Browsing the memory page by page, for the extension's tree views: entity types, entities of a
 * type, the facts of an entity (ended ones included, current first), sessions, the episodes of a
 * session, and episodes by id. Every list is bounded (offset/limit) and says its total, so a view
 * over 10k entities or 100k episodes only ever asks for what is on screen.
 *
 * Memory.browseHandlers() gives them to the service, which serves them as its `browse.*` methods
 * (src/service/rpc/protocol.ts); limits are checked as every read's are (validate.ts).
 */
import { invalid, notFound } from '../model/errors.js';
import { boundLimit } from './validate.js';
import { LIMIT_DEFAULTS, LIMITS } from '../model/limits.js';
import type { JournaledGraph } from './journaled-graph.js';
import { all, scalar } from '../store/sqlite.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { listItems, type ItemsRequest } from './items.js';
import { neighbourhood } from './neighbourhood.js';

export interface SessionSummary {
  /** null: episodes stored without a session. */
  session: string | null;
  episodes: number;
  first: string;
  last: string;
  /** Its project (null: global); a session's turns share one. */
  project?: string | null;
  /** The title its tool gave it, else its first user turn's first line; null when it has neither. */
  title: string | null;
}

/** Which slice of a list: skip `offset`, take at most `limit`. */
export interface PageRequest {
  offset?: number;
  limit?: number;
}

/** One slice of a list and how long the whole list is. */
export type BrowsePage<K extends string, T> = { total: number } & { [key in K]: T[] };

export interface EntityTypeCount {
  type: string;
  entities: number;
}

/** Every browsing function bound to one graph (the service serves them as its `browse.*` methods). */
export function browseHandlers(mem: JournaledGraph) {
  return {
    types: (p: ViewScope = {}) => browseTypes(mem, p),
    entities: (p: PageRequest & ViewScope & { type?: string }) => browseEntities(mem, p),
    facts: (p: PageRequest & { entity: string }) => browseFacts(mem, p),
    sessions: (p: PageRequest & ViewScope) => browseSessions(mem, p),
    sessionEpisodes: (p: PageRequest & { session: string | null }) => browseSessionEpisodes(mem, p),
    episodesById: (p: { ids: string[] }) => browseEpisodesById(mem, p),
    neighbourhood: (p: { entity: string; limit?: number; history?: boolean }) => neighbourhood(mem, p),
    items: (p: ItemsRequest) => listItems(mem, p),
  };
}

/**
 * What a tree view shows: with the connection's `project` known, its memory and the global memory
 * come first; `only` leaves other projects out (the views' filter).
 */
export interface ViewScope {
  project?: string | null;
  only?: boolean;
}

/** An entity is in a project's view when a turn or a fact of that project, or of the global memory, names it. */
function entityInScope(project: string | null): { sql: string; params: unknown[] } {
  return {
    sql: `(EXISTS (SELECT 1 FROM mentions m JOIN episodes ep ON ep.rowid = m.episode_rowid
                    WHERE m.entity_id = e.id AND (ep.project IS NULL OR ep.project = ?))
        OR EXISTS (SELECT 1 FROM relationships r
                    WHERE (r.subject_id = e.id OR r.object_id = e.id) AND (r.project IS NULL OR r.project = ?)))`,
    params: [project, project],
  };
}

/** Entity types with how many entities each has, most populous first. */
export function browseTypes(mem: JournaledGraph, p: ViewScope = {}): { types: EntityTypeCount[] } {
  const only = p.only && p.project !== undefined ? entityInScope(p.project) : undefined;
  const types = all(
    mem.db,
    `SELECT type, COUNT(*) AS n FROM entities e ${only ? `WHERE ${only.sql}` : ''} GROUP BY type ORDER BY n DESC, type`,
    only?.params ?? [],
  ).map((r) => ({
    type: String(r.type),
    entities: Number(r.n),
  }));
  return { types };
}

/** Entities (of one type, or all), by name. */
export function browseEntities(mem: JournaledGraph, p: PageRequest & ViewScope & { type?: string }): BrowsePage<'entities', EntityView> {
  const { offset, limit } = page(p);
  const type = p?.type;
  if (type !== undefined && typeof type !== 'string') throw invalid('"type" must be text.');
  const scope = p.project !== undefined ? entityInScope(p.project) : undefined;
  const clauses = [...(type === undefined ? [] : ['type = ?']), ...(scope && p.only ? [scope.sql] : [])];
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  const args = [...(type === undefined ? [] : [type]), ...(scope && p.only ? scope.params : [])];
  const total = Number(scalar(mem.db, `SELECT COUNT(*) FROM entities e ${where}`, args));
  // The current project's (and the global memory's) entities first, then the rest by name.
  const order = scope && !p.only ? `${scope.sql} DESC, key` : 'key';
  const ids = all(mem.db, `SELECT id FROM entities e ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [
    ...args,
    ...(scope && !p.only ? scope.params : []),
    limit,
    offset,
  ]).map((r) => Number(r.id));
  return { total, entities: ids.map((id) => mem.graph.entityView(id)).filter((e): e is EntityView => e !== undefined) };
}

/** Every relationship touching an entity, ended ones too: current first, then by predicate. */
export function browseFacts(mem: JournaledGraph, p: PageRequest & { entity: string }): BrowsePage<'facts', FactView> {
  const { offset, limit } = page(p);
  if (typeof p?.entity !== 'string' || !p.entity.trim()) throw invalid('Give the entity whose facts to list.');
  const id = mem.graph.entityIdOf(p.entity);
  if (id === undefined) throw notFound(`No entity named "${p.entity}".`, 'It may have been forgotten; refresh the view.');
  const total = Number(scalar(mem.db, 'SELECT COUNT(*) FROM relationships WHERE subject_id = ? OR object_id = ?', [id, id]));
  const rows = all(
    mem.db,
    `SELECT id FROM relationships WHERE subject_id = ? OR object_id = ?
      ORDER BY (valid_to IS NOT NULL), predicate, rowid LIMIT ? OFFSET ?`,
    [id, id, limit, offset],
  );
  const now = Date.now();
  return { total, facts: rows.map((r) => mem.graph.factById(String(r.id), now)).filter((f): f is FactView => f !== undefined) };
}

/** Sessions: the current project's first (when one is given), then global ones, then the rest; most recent first within each. */
export function browseSessions(mem: JournaledGraph, p: PageRequest & ViewScope): BrowsePage<'sessions', SessionSummary> {
  const { offset, limit } = page(p);
  const only = p.only && p.project !== undefined;
  const where = only ? 'WHERE project IS NULL OR project = ?' : '';
  const scopeArgs = only ? [p.project] : [];
  const total = Number(scalar(mem.db, `SELECT COUNT(DISTINCT COALESCE(session, char(0))) FROM episodes ${where}`, scopeArgs));
  const sessions = all(
    mem.db,
    `SELECT session, COUNT(*) AS n, MIN(time_ms) AS first_ms, MAX(time_ms) AS last_ms, MAX(project) AS project FROM episodes ${where}
      GROUP BY session ORDER BY ${p.project === undefined ? '' : 'MAX(project IS ?) DESC, MAX(project IS NULL) DESC,'} MAX(time_ms) DESC, session
      LIMIT ? OFFSET ?`,
    [...scopeArgs, ...(p.project === undefined ? [] : [p.project]), limit, offset],
  ).map((r) => ({
    project: (r.project as string | null) ?? null,
    session: r.session === null || r.session === undefined ? null : String(r.session),
    episodes: Number(r.n),
    first: new Date(Number(r.first_ms)).toISOString(),
    last: new Date(Number(r.last_ms)).toISOString(),
    title: sessionTitle(mem, r.session === null || r.session === undefined ? null : String(r.session)),
  }));
  return { total, sessions };
}

/** The episodes of one session (null: those without one), oldest first. */
export function browseSessionEpisodes(
  mem: JournaledGraph,
  p: PageRequest & { session: string | null },
): BrowsePage<'episodes', EpisodeView> {
  const { offset, limit } = page(p);
  const session = p?.session ?? null;
  if (session !== null && typeof session !== 'string') throw invalid('"session" must be text or null.');
  const where = session === null ? 'session IS NULL' : 'session = ?';
  const args = session === null ? [] : [session];
  const total = Number(scalar(mem.db, `SELECT COUNT(*) FROM episodes WHERE ${where}`, args));
  const rows = all(mem.db, `SELECT * FROM episodes WHERE ${where} ORDER BY time_ms, rowid LIMIT ? OFFSET ?`, [...args, limit, offset]);
  return { total, episodes: mem.graph.episodeViews(rows) };
}

/** Episodes by id, in the order asked; unknown ids are left out. */
export function browseEpisodesById(mem: JournaledGraph, p: { ids: string[] }): EpisodeView[] {
  const ids = p?.ids;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalid('"ids" must be a list of episode ids.');
  if (ids.length > LIMITS.episodeIds) throw invalid(`Ask for at most ${LIMITS.episodeIds} episodes at once.`);
  if (ids.length === 0) return [];
  const rows = all(mem.db, `SELECT * FROM episodes WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
  const views = mem.graph.episodeViews(rows);
  const byId = new Map(views.map((v) => [v.id, v]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The title its tool gave the session, else the first line of its first user turn (else its first turn). */
function sessionTitle(mem: JournaledGraph, session: string | null): string | null {
  if (session === null) return null;
  const given = scalar(mem.db, 'SELECT title FROM sessions WHERE session = ?', [session]);
  if (typeof given === 'string' && given) return given;
  const first = scalar(
    mem.db,
    `SELECT text FROM episodes WHERE session = ? ORDER BY (authority NOT IN ('user', 'human')), time_ms, rowid LIMIT 1`,
    [session],
  );
  if (typeof first !== 'string') return null;
  const line = first.split('\n').find((l) => l.trim()) ?? '';
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat ? (flat.length > 100 ? `${flat.slice(0, 99)}…` : flat) : null;
}

function page(p: PageRequest | undefined): { offset: number; limit: number } {
  const offset = p?.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalid(`"offset" must be a whole number >= 0, got ${String(offset)}.`);
  return { offset, limit: boundLimit(p?.limit, LIMIT_DEFAULTS.page, LIMITS.page) };
}
