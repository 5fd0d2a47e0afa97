/**
 * An entity's neighbourhood, for the graph view: the facts touching it (current first, then the
 * most recently reinforced; ended ones only with `history`), each with what the view styles by
 * (effective confidence, provenance, status, staleness, evidence count), and the entities at their
 * other ends with their own counts. Bounded per call (LIMITS.neighbourhood): the view draws
 * neighbourhoods and expands them node by node, never the whole mem.graph.
 */
import { invalid, notFound } from '../model/errors.js';
import { LIMIT_DEFAULTS, LIMITS } from '../model/limits.js';
import type { FactView } from '../model/views.js';
import type { JournaledGraph } from './journaled-graph.js';
import { boundLimit } from './validate.js';
import { all, scalar } from '../store/sqlite.js';

export interface GraphNode {
  name: string;
  type: string;
  /** Episodes that mention it: the node's size. */
  episodes: number;
  /** Its current facts, all of them (the view shows how many are not drawn yet). */
  relationships: number;
}

export interface GraphEdge extends Omit<FactView, 'evidence' | 'score'> {
  /** Episodes supporting it. */
  evidence: number;
  /** Current, unconfirmed, and unreinforced for over a half-life: its effective confidence has halved or more. */
  stale: boolean;
  /** The project it belongs to, when the memory records one (absent: global). */
  project?: string;
}

export interface Neighbourhood {
  center: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Facts touching the entity (ended ones included with `history`): more than `edges` when cut at the limit. */
  total: number;
}

export function neighbourhood(mem: JournaledGraph, p: { entity: string; limit?: number; history?: boolean }): Neighbourhood {
  if (typeof p?.entity !== 'string' || !p.entity.trim()) throw invalid('Give the entity whose neighbourhood to draw.');
  const limit = boundLimit(p.limit, LIMIT_DEFAULTS.neighbourhood, LIMITS.neighbourhood);
  const id = mem.graph.entityIdOf(p.entity);
  if (id === undefined) throw notFound(`No entity named "${p.entity}".`, 'Search for it, or it may have been forgotten.');
  const history = p.history !== false;
  const current = history ? '' : 'AND valid_to IS NULL';
  const total = Number(scalar(mem.db, `SELECT COUNT(*) FROM relationships WHERE (subject_id = ? OR object_id = ?) ${current}`, [id, id]));
  const rows = all(
    mem.db,
    `SELECT * FROM relationships WHERE (subject_id = ? OR object_id = ?) ${current}
      ORDER BY (valid_to IS NOT NULL), last_reinforced_ms DESC, rowid DESC LIMIT ?`,
    [id, id, limit],
  );
  const now = Date.now();
  const edges: GraphEdge[] = [];
  const ends = new Set<number>([id]);
  for (const r of rows) {
    const fact = mem.graph.factById(String(r.id), now);
    if (!fact) continue;
    ends.add(Number(r.subject_id)).add(Number(r.object_id));
    const { evidence, score: _score, project, ...rest } = fact;
    const stale = fact.status === 'current' && !fact.pinned && fact.effective_confidence <= fact.confidence / 2;
    edges.push({ ...rest, evidence: evidence.length, stale, ...(project ? { project } : {}) });
  }
  return { center: mem.graph.entityView(id)!.name, nodes: nodesOf(mem, [...ends]), edges, total };
}

function nodesOf(mem: JournaledGraph, ids: number[]): GraphNode[] {
  const list = JSON.stringify(ids);
  const rows = all(
    mem.db,
    `SELECT e.id, e.name, e.type,
        (SELECT COUNT(*) FROM mentions m WHERE m.entity_id = e.id) AS episodes,
        (SELECT COUNT(*) FROM relationships r WHERE (r.subject_id = e.id OR r.object_id = e.id) AND r.valid_to IS NULL) AS relationships
      FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    [list],
  );
  return rows.map((r) => ({
    name: String(r.name),
    type: String(r.type),
    episodes: Number(r.episodes),
    relationships: Number(r.relationships),
  }));
}
