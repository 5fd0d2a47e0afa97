/**
 * Knowledge items of a project as lists (model/knowledge.ts): the Entities view's "Rules and
 * decisions" group and `@recall what are our rules about X`. The items in force (current) of the
 * project and the global memory, of the kinds asked, in that order of kinds; within a kind what a
 * person confirmed, then the person's own word, then the newest. `about` keeps the items whose
 * statement or subject names its words (porter stems, as the search index reads words), most
 * words first. Bounded by page, like every browse list.
 */
import { invalid } from '../model/errors.js';
import { isKnowledgeKind, KNOWLEDGE_KINDS, type KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import type { FactView } from '../model/views.js';
import { queryTerms } from '../retrieval/text.js';
import { scopeSql } from '../store/graph.js';
import { all, scalar } from '../store/sqlite.js';
import type { BrowsePage, PageRequest } from './browse.js';
import type { JournaledGraph } from './journaled-graph.js';
import { boundLimit } from './validate.js';

export interface ItemsRequest extends PageRequest {
  /** Kinds to list, in the order to list them; default all five. */
  kinds?: KnowledgeKind[];
  /** Words the items are about (an entity, a topic); absent: every item of those kinds. */
  about?: string;
  /** The project (and the global memory) to list; null: the global memory alone; absent: every project. */
  project?: string | null;
}

/** An item and who said it: the speakers of the turns it rests on. */
export interface ItemView extends FactView {
  said_by: string[];
}

/** Speakers named per item; more are left out. */
const SPEAKERS = 3;

export function listItems(mem: JournaledGraph, p: ItemsRequest = {}): BrowsePage<'items', ItemView> {
  const kinds = p.kinds?.length ? [...new Set(p.kinds)] : [...KNOWLEDGE_KINDS];
  const bad = kinds.find((k) => !isKnowledgeKind(k));
  if (bad !== undefined) throw invalid(`"${String(bad)}" is not a kind of knowledge (${KNOWLEDGE_KINDS.join(', ')}).`);
  const offset = p.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalid(`"offset" must be a whole number >= 0, got ${String(offset)}.`);
  const limit = boundLimit(p.limit, LIMITS.briefCandidates, LIMITS.page);
  const scope = scopeSql('r.project', p.project === undefined ? undefined : { project: p.project });
  const match = aboutSql(mem, p.about);
  const inner = `SELECT r.id, r.kind, r.pinned, r.authority, r.valid_from, r.rowid AS rid, ${match.sql} AS hits
    FROM relationships r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
    WHERE r.valid_to IS NULL AND r.kind IN (${kinds.map(() => '?').join(', ')}) AND ${scope.sql}`;
  const params = [...match.params, ...kinds, ...scope.params];
  const total = Number(scalar(mem.db, `SELECT COUNT(*) FROM (${inner}) WHERE hits > 0`, params));
  const order = `CASE kind ${kinds.map((_k, i) => `WHEN ? THEN ${i}`).join(' ')} END`;
  const rows = all(
    mem.db,
    `SELECT id FROM (${inner}) WHERE hits > 0
      ORDER BY hits DESC, ${order}, pinned DESC, (authority IN ('user', 'human')) DESC, valid_from DESC, rid DESC LIMIT ? OFFSET ?`,
    [...params, ...kinds, limit, offset],
  );
  const now = Date.now();
  const items = rows
    .map((r) => mem.graph.factById(String(r.id), now))
    .filter((f): f is FactView => f !== undefined)
    .map((f) => ({ ...f, said_by: speakers(mem, f.id) }));
  return { total, items };
}

/** How many of the words of `about` an item names (1 for every item when nothing is asked). */
function aboutSql(mem: JournaledGraph, about: string | undefined): { sql: string; params: string[] } {
  if (about === undefined || !about.trim()) return { sql: '1', params: [] };
  if (about.length > LIMITS.queryChars) throw invalid(`"about" is over ${LIMITS.queryChars} characters.`);
  // A porter stem is the start of the words it stands for, but for a final y read as i ("deploy" → "deploi").
  const stems = [...new Set(queryTerms(about).map((t) => mem.graph.index.stem(t).replace(/i$/, '')))].filter((s) => s.length > 1);
  if (stems.length === 0) return { sql: '1', params: [] };
  const text = "lower(COALESCE(r.statement, '') || ' ' || s.name || ' ' || o.name)";
  return {
    sql: stems.map(() => `(${text} LIKE ? ESCAPE '\\')`).join(' + '),
    params: stems.map((s) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`),
  };
}

function speakers(mem: JournaledGraph, id: string): string[] {
  return all(
    mem.db,
    `SELECT DISTINCT e.speaker AS speaker FROM relationships r JOIN evidence v ON v.relationship_rowid = r.rowid
       JOIN episodes e ON e.id = v.episode_id WHERE r.id = ? AND v.polarity = 1 AND e.speaker IS NOT NULL LIMIT ?`,
    [id, SPEAKERS],
  ).map((r) => String(r.speaker));
}
