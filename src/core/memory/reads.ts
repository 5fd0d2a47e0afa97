/**
 * The operations that read the memory: questions, search, episode listings, traversal, overview,
 * status and export, and the texts the embedding queue turns into vectors.
 */
import { invalid, MemoryError } from '../model/errors.js';
import { LIMIT_DEFAULTS, LIMITS, SCOPE_OVERFETCH } from '../model/limits.js';
import { scopeOf, type ProjectScope } from '../model/project.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { namedEntities } from '../retrieval/analyse.js';
import { searchEpisodes } from '../retrieval/candidates.js';
import { searchEntities } from '../retrieval/entities.js';
import { fusionDepth } from '../retrieval/fuse.js';
import { needsVectors, recipeFor, type RetrievalMode, type RetrievalRecipe } from '../retrieval/recipe.js';
import { answer, prepare } from '../retrieval/retrieve.js';
import { queryTerms } from '../retrieval/text.js';
import type { EpisodeFilter, Retrieved, VectorHits } from '../retrieval/types.js';
import { round, scopeSql } from '../store/graph.js';
import { filterSql } from '../store/search-index.js';
import { all } from '../store/sqlite.js';
import { withCode } from './anchors.js';
import type { JournaledGraph } from './journaled-graph.js';
import { requireEntity } from './names.js';
import { boundLimit, normaliseTime, requireFact, requireText } from './validate.js';

/** The things that get an embedding: turns, entities (name, type, summary) and facts. */
export type EmbeddedKind = 'episode' | 'entity' | 'fact';
const EMBEDDED_TABLE: Record<EmbeddedKind, string> = { episode: 'episodes', entity: 'entities', fact: 'relationships' };

export interface QueryResult extends Retrieved {
  query: string;
}

export interface QueryInput {
  query: string;
  limit?: number;
  history?: boolean;
  mode?: RetrievalMode;
  /** The asking connection's project (null: the person's global memory alone); absent: none known. */
  project?: string | null;
  /** 'project' (default when a project is known): that project and global memory; 'all': every project. */
  scope?: 'project' | 'all';
  /** The asker's workspace root: where the facts' code anchors are checked when their own root is not on this machine. */
  workspace?: string;
}

/** The scope of a read: checked, then resolved (project.ts scopeOf). */
export function readScope(input: { project?: string | null; scope?: string }): ProjectScope | undefined {
  if (input.scope !== undefined && input.scope !== 'project' && input.scope !== 'all') throw invalid('scope is "project" or "all".');
  if (input.project !== undefined && input.project !== null && (typeof input.project !== 'string' || !input.project.trim()))
    throw invalid('project is a project key such as github.com/owner/repo, or null for the global memory.');
  return scopeOf(input.project, input.scope as 'project' | 'all' | undefined);
}

/** A query whose keyword and graph half has run; `finish` fuses in the vector hits (`vectorDepth` of each kind). */
export interface StartedQuery {
  vectorDepth: number;
  finish(vectorHits?: VectorHits): QueryResult;
}

/** A read that may be narrowed to a project (see QueryInput). */
export interface ScopedRead {
  project?: string | null;
  scope?: 'project' | 'all';
}

export interface TraverseResult {
  root: EntityView;
  facts: (FactView & { depth: number })[];
  entities: EntityView[];
  /** Facts within the depth may be left out: the traversal stopped at LIMITS.traverseFacts. */
  truncated: boolean;
}

/**
 * A query in two steps: the keyword and graph half now, the rest when the vector hits come
 * (the service embeds the question in another thread meanwhile). Bad input throws here.
 */
export function startQuery(mem: JournaledGraph, input: QueryInput, recipe: RetrievalRecipe = recipeFor(input.mode)): StartedQuery {
  const text = requireText(input.query, 'query');
  const limit = boundLimit(input.limit, LIMIT_DEFAULTS.query, LIMITS.query);
  const mode = input.mode;
  if (mode !== undefined && !['keyword', 'vector', 'hybrid'].includes(mode)) throw invalid('mode is one of keyword, vector, hybrid.');
  // Without vectors a query is keyword + graph, whatever the recipe asked (vector alone is refused below).
  const scope = readScope(input);
  const prepared = prepare(mem.graph, { text, limit, now: Date.now(), recipe, scope });
  const finish = (vectorHits?: VectorHits): QueryResult => {
    if (needsVectors(recipe) && !vectorHits) {
      throw new MemoryError(
        'unavailable',
        'Vector search needs an embedding model, and none is loaded.',
        'Ask without mode (keyword + graph), or see `recall status` for why.',
      );
    }
    const found = answer(mem.graph, prepared, { history: input.history, vectorHits });
    return { query: text, ...found, facts: withCode(mem.db, found.facts, input.workspace, recipe.facts.staleCode) };
  };
  return { vectorDepth: fusionDepth(limit, recipe) * (scope ? SCOPE_OVERFETCH : 1), finish };
}

/** Ids of the things of one kind (above `after`, ascending): the embedding queue finds which lack a vector. */
export function embeddingIds(mem: JournaledGraph, kind: EmbeddedKind, after = 0): number[] {
  return all(mem.db, `SELECT rowid AS id FROM ${EMBEDDED_TABLE[kind]} WHERE rowid > ? ORDER BY rowid`, [after]).map((r) => Number(r.id));
}

/**
 * The text embedded for each thing: an episode's words; an entity's name, type, aliases and
 * summary; a fact as "subject predicate object".
 */
export function embeddingTexts(mem: JournaledGraph, kind: EmbeddedKind, ids: number[]): { id: number; text: string }[] {
  const list = JSON.stringify(ids);
  const sql: Record<EmbeddedKind, string> = {
    episode: 'SELECT rowid AS id, text FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))',
    entity: `SELECT e.id, e.name || CASE WHEN e.type != 'thing' THEN ' (' || e.type || ')' ELSE '' END
                    || COALESCE((SELECT ', also ' || group_concat(a.alias, ', ') FROM aliases a WHERE a.entity_id = e.id), '')
                    || CASE WHEN e.summary != '' THEN ': ' || e.summary ELSE '' END AS text
               FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    fact: `SELECT r.rowid AS id, s.name || ' ' || r.predicate || ' ' || o.name AS text
             FROM relationships r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
            WHERE r.rowid IN (SELECT value FROM json_each(?))`,
  };
  return all(mem.db, sql[kind], [list]).map((r) => ({ id: Number(r.id), text: String(r.text) }));
}

export function search(mem: JournaledGraph, input: ScopedRead & { query: string; limit?: number }): EntityView[] {
  const text = requireText(input.query, 'query');
  const limit = boundLimit(input.limit, LIMIT_DEFAULTS.search, LIMITS.search);
  const scope = readScope(input);
  // Entities the text names come first (score 0 unless their words match too), then keyword hits.
  const hits = searchEntities(mem.graph.index, text, scope ? limit * SCOPE_OVERFETCH : limit);
  const scores = new Map(hits.map((h) => [h.rowid, h.score]));
  const found = [...new Set([...namedEntities(mem.graph.index, text), ...hits.map((h) => h.rowid)])];
  const ids = mem.graph.entitiesInScope(found, scope).slice(0, limit);
  return ids.map((id) => ({ ...mem.graph.entityView(id)!, score: round(scores.get(id) ?? 0) }));
}

export function episodes(
  mem: JournaledGraph,
  input: ScopedRead & { query?: string; since?: string; until?: string; session?: string; source?: string; limit?: number },
): EpisodeView[] {
  const limit = boundLimit(input.limit, LIMIT_DEFAULTS.episodes, LIMITS.episodes);
  const filter: EpisodeFilter = {
    since: input.since !== undefined ? Date.parse(normaliseTime(input.since, 'since')) : undefined,
    until: input.until !== undefined ? Date.parse(normaliseTime(input.until, 'until', true)) : undefined,
    session: input.session,
    source: input.source,
    scope: readScope(input),
  };
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    throw invalid('"since" is after "until": nothing can match.', 'Swap the two dates.');
  }
  if (input.query !== undefined && input.query.trim() !== '' && queryTerms(input.query).length > 0) {
    const hits = searchEpisodes(mem.graph.index, input.query, limit, filter);
    const views = mem.graph.episodesByRowids(hits.map((h) => h.rowid));
    return views.map((v, i) => ({ ...v, score: round(hits[i]!.score) }));
  }
  const { where, params } = filterSql(filter);
  const rows = all(mem.db, `SELECT * FROM episodes e ${where ? 'WHERE ' + where : ''} ORDER BY e.time_ms DESC, e.rowid DESC LIMIT ?`, [
    ...params,
    limit,
  ]);
  return mem.graph.episodeViews(rows);
}

/**
 * The facts around an entity, breadth first, up to `depth` hops, at most LIMITS.traverseFacts of
 * them: the bound holds inside a hop (one hub's neighbours can hold thousands), and `truncated`
 * says facts within the depth were left out.
 */
export function traverse(
  mem: JournaledGraph,
  input: ScopedRead & { entity: string; depth?: number; min_confidence?: number; history?: boolean },
): TraverseResult {
  const scope = readScope(input);
  const rootId = requireEntity(mem.graph, input.entity);
  // An entity only another project knows is not here, as search says: no empty neighbourhood.
  if (scope && mem.graph.entitiesInScope([rootId], scope).length === 0) throw elsewhere(mem, rootId, input.entity, scope);
  const depth = boundLimit(input.depth, LIMIT_DEFAULTS.depth, LIMITS.depth);
  const floor = input.min_confidence ?? 0;
  if (!(floor >= 0 && floor <= 1)) throw invalid('min_confidence must be between 0 and 1.');
  const now = Date.now();
  const max = LIMITS.traverseFacts;
  const seen = new Set<number>([rootId]);
  const facts = new Map<string, FactView & { depth: number }>();
  /** Facts taken that touch each entity: its own list names them again. */
  const taken = new Map<number, number>();
  let full = false;
  let unread = false;
  let frontier = [rootId];
  for (let d = 1; d <= depth && frontier.length > 0 && !full; d++) {
    const next: number[] = [];
    for (const id of frontier) {
      // Rows enough to fill the room left past the facts already taken, and one to tell there are more.
      const limit = max - facts.size + (taken.get(id) ?? 0) + 1;
      const around = mem.graph.factsOf(id, { history: input.history, now, scope, evidence: false, limit });
      for (const f of around) {
        if (facts.has(f.id) || f.effective_confidence < floor) continue;
        if (facts.size === max) {
          full = true;
          break;
        }
        facts.set(f.id, { ...f, depth: d });
        for (const name of [f.subject, f.object]) {
          const other = mem.graph.entityIdOf(name)!;
          taken.set(other, (taken.get(other) ?? 0) + 1);
          if (!seen.has(other)) {
            seen.add(other);
            next.push(other);
          }
        }
      }
      // Rows below the floor took the place of rows never read.
      if (around.length === limit && !full) unread = true;
      if (full) break;
    }
    frontier = next;
  }
  return {
    root: mem.graph.entityView(rootId)!,
    facts: mem.graph.withEvidence([...facts.values()]),
    entities: [...seen].map((id) => mem.graph.entityView(id)!).filter(Boolean),
    truncated: full || unread,
  };
}

/** The error for an entity that exists only in projects other than the scope's, naming them. */
function elsewhere(mem: JournaledGraph, id: number, name: string, scope: ProjectScope): MemoryError {
  const projects = all(
    mem.db,
    `SELECT DISTINCT e.project AS p FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid WHERE m.entity_id = ?1
     UNION SELECT DISTINCT r.project FROM relationships r WHERE r.subject_id = ?1 OR r.object_id = ?1 ORDER BY 1 LIMIT 5`,
    [id],
  ).map((r) => String(r.p));
  const here = scope.project === null ? 'the global memory' : `project ${scope.project} or the global memory`;
  return new MemoryError(
    'not_found',
    `"${name}" is not in ${here}; it is in ${projects.map((p) => `project ${p}`).join(', ')}.`,
    `Read it there with --project ${projects[0]}, or across every project with --all (scope "all").`,
  );
}

/** The most connected entities and the latest sessions. */
export function overview(
  mem: JournaledGraph,
  input: ScopedRead & { limit?: number } = {},
): { entities: EntityView[]; sessions: { session: string; episodes: number; last: string }[] } {
  const limit = boundLimit(input.limit, LIMIT_DEFAULTS.overview, LIMITS.overview);
  const scope = readScope(input);
  const inScope = scopeSql('project', scope);
  const top = all(
    mem.db,
    `SELECT e.id, (SELECT COUNT(*) FROM mentions m WHERE m.entity_id = e.id)
            + 2 * (SELECT COUNT(*) FROM relationships r WHERE (r.subject_id = e.id OR r.object_id = e.id) AND r.valid_to IS NULL) AS weight
       FROM entities e ORDER BY weight DESC, e.name LIMIT ?`,
    [scope ? limit * SCOPE_OVERFETCH : limit],
  );
  const sessions = all(
    mem.db,
    `SELECT session, COUNT(*) AS n, MAX(time) AS last FROM episodes WHERE session IS NOT NULL AND ${inScope.sql}
      GROUP BY session ORDER BY MAX(time_ms) DESC LIMIT ?`,
    [...inScope.params, limit],
  ).map((r) => ({ session: String(r.session), episodes: Number(r.n), last: String(r.last) }));
  const entities = mem.graph
    .entitiesInScope(
      top.map((r) => Number(r.id)),
      scope,
    )
    .slice(0, limit);
  return { entities: entities.map((id) => mem.graph.entityView(id)!), sessions };
}

export function fact(mem: JournaledGraph, id: string): FactView {
  requireFact(mem.graph, id);
  return mem.graph.factById(id)!;
}

export interface MemoryStatus {
  episodes: number;
  entities: number;
  relationships: number;
  current_relationships: number;
  memory: string;
  journal_bytes: number;
  snapshot_bytes: number;
  events_since_snapshot: number;
  last_write: string | null;
  redactions: number;
}

export function status(mem: JournaledGraph): MemoryStatus {
  return {
    ...mem.graph.counts(),
    memory: mem.folder,
    journal_bytes: mem.journal.position,
    snapshot_bytes: mem.snapshotBytes(),
    events_since_snapshot: mem.pendingSnapshotEvents,
    last_write: mem.graph.getMeta('last_write') ?? null,
    redactions: Number(mem.graph.getMeta('redactions') ?? 0),
  };
}

/** The whole memory as plain data. Without history, ended facts are left out. */
export function exportAll(
  mem: JournaledGraph,
  input: { history?: boolean } = {},
): { entities: EntityView[]; facts: FactView[]; episodes: EpisodeView[] } {
  const entities = all(mem.db, 'SELECT id FROM entities ORDER BY name').map((r) => mem.graph.entityView(Number(r.id))!);
  const episodes = mem.graph.episodeViews(all(mem.db, 'SELECT * FROM episodes ORDER BY rowid'));
  return { entities, facts: mem.graph.allFacts({ history: input.history }), episodes };
}
