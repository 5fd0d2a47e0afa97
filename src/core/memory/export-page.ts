/**
 * The whole memory, one page at a time: entities (by name), then facts, then episodes (in the
 * order stored). A page is bounded in items and bytes so no answer nears the service's message
 * limit; the cursor says where the next page starts, and its absence that the export is done.
 * With a project (null: the global memory), only that project's episodes and facts, and the
 * entities they name.
 */
import { invalid } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { all } from '../store/sqlite.js';
import type { JournaledGraph } from './journaled-graph.js';

export interface ExportPage {
  entities: EntityView[];
  facts: FactView[];
  episodes: EpisodeView[];
  /** Where the next page starts; absent on the last page. */
  cursor?: string;
}

type Part = 'entities' | 'facts' | 'episodes';
const PARTS: Part[] = ['entities', 'facts', 'episodes'];

/** Rows read from the database at a time while a page fills. */
const STEP = 100;

export function exportPage(
  mem: JournaledGraph,
  input: { history?: boolean; cursor?: string; limit?: number; project?: string | null },
): ExportPage {
  const limit = Math.min(Math.max(1, input.limit ?? LIMITS.exportPageItems), LIMITS.exportPageItems);
  let { part, after } = parseCursor(input.cursor);
  const page: ExportPage = { entities: [], facts: [], episodes: [] };
  let items = 0;
  let bytes = 0;
  // Each item is measured as sent; one larger than the byte budget still goes, alone on its page.
  const room = (item: unknown): boolean => {
    const size = Buffer.byteLength(JSON.stringify(item));
    if (items > 0 && (items >= limit || bytes + size > LIMITS.exportPageBytes)) return false;
    items++;
    bytes += size;
    return true;
  };
  for (;;) {
    const rows = fetch(mem, part, after, input);
    let full = false;
    for (const row of rows) {
      // Another project's fact or turn: passed over, the cursor still moves past it.
      if (row.item === undefined) {
        after = row.next;
        continue;
      }
      if (!room(row.item)) {
        full = true;
        break;
      }
      (page[part] as unknown[]).push(row.item);
      after = row.next;
    }
    if (full) return { ...page, cursor: `${part}:${after}` };
    if (rows.length === STEP) continue;
    const i = PARTS.indexOf(part);
    if (i === PARTS.length - 1) return page;
    part = PARTS[i + 1]!;
    after = 0;
  }
}

/**
 * The next STEP rows of a part after a position (an offset for entities, ordered by name; else a
 * rowid), each with its item, or none when it is another project's.
 */
function fetch(
  mem: JournaledGraph,
  part: Part,
  after: number,
  opts: { history?: boolean; project?: string | null },
): { item: unknown; next: number }[] {
  const scoped = opts.project !== undefined;
  if (part === 'entities') {
    // A project's entities: those its turns mention or its facts name (`IS` matches null, the global memory).
    const where = scoped
      ? `WHERE EXISTS (SELECT 1 FROM mentions m JOIN episodes ep ON ep.rowid = m.episode_rowid WHERE m.entity_id = e.id AND ep.project IS ?1)
            OR EXISTS (SELECT 1 FROM relationships r WHERE (r.subject_id = e.id OR r.object_id = e.id) AND r.project IS ?1)`
      : '';
    const rows = all(mem.db, `SELECT id FROM entities e ${where} ORDER BY name, id LIMIT ?2 OFFSET ?3`, [
      scoped ? opts.project : null,
      STEP,
      after,
    ]);
    return rows.map((r, i) => ({ item: mem.graph.entityView(Number(r.id))!, next: after + i + 1 }));
  }
  const mine = (p: string | null | undefined): boolean => !scoped || (p ?? null) === opts.project;
  if (part === 'facts') {
    return mem.graph
      .allFacts({ history: opts.history, after, limit: STEP })
      .map((f) => ({ item: mine(f.project) ? f : undefined, next: factRowid(mem, f.id) }));
  }
  const rows = all(mem.db, 'SELECT * FROM episodes WHERE rowid > ? ORDER BY rowid LIMIT ?', [after, STEP]);
  return mem.graph.episodeViews(rows).map((item, i) => ({ item: mine(item.project) ? item : undefined, next: Number(rows[i]!.rowid) }));
}

function factRowid(mem: JournaledGraph, id: string): number {
  return Number(all(mem.db, 'SELECT rowid FROM relationships WHERE id = ?', [id])[0]?.rowid ?? 0);
}

function parseCursor(cursor: string | undefined): { part: Part; after: number } {
  if (cursor === undefined) return { part: 'entities', after: 0 };
  const m = /^(entities|facts|episodes):(\d+)$/.exec(cursor);
  if (!m) throw invalid(`"${cursor}" is not an export cursor.`, 'Pass the cursor the previous export page returned, or none to start.');
  return { part: m[1] as Part, after: Number(m[2]) };
}
