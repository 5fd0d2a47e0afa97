/**
 * Events written by other memories (team sync), applied through the same path as a replay of
 * this memory's own journal. Ids arrive as they travel (ep_<origin>_N); the store resolves them.
 */
import type { MemoryEvent } from '../model/events.js';
import { entityIdOf, resolveId, rowidOf } from '../store/ids.js';
import { eraseFromJournal } from './forget.js';
import type { JournaledGraph } from './journaled-graph.js';

export interface RemoteApplied {
  /** Events appended and applied (already applied ones are skipped, not counted). */
  applied: number;
  /** Local ids erased by forgets among them: their vectors go too. */
  erased: { episodes: string[]; relationships: string[] };
  /** Rowids of what was erased, read before the rows went. */
  erasedRowids: { episodes: number[]; relationships: number[] };
}

/**
 * Applies pulled events in order. A forget removes the entity here as it did there: what this
 * memory holds about it alone goes too, and the journal is rewritten without it. An episode
 * that arrives after the forget of an entity it names is new information and is kept.
 */
export function applyRemote(mem: JournaledGraph, events: MemoryEvent[]): RemoteApplied {
  const out: RemoteApplied = { applied: 0, erased: { episodes: [], relationships: [] }, erasedRowids: { episodes: [], relationships: [] } };
  let run: MemoryEvent[] = [];
  const flush = (): void => {
    out.applied += mem.commitRemote(run).length;
    run = [];
  };
  for (const e of events) {
    if (e.type !== 'entity.forget') {
      run.push(e);
      continue;
    }
    flush();
    const forget = localForget(mem, e);
    const applied = mem.commitRemote([forget.event]);
    if (applied.length === 0) continue;
    out.applied++;
    out.erased.episodes.push(...forget.event.episodes);
    out.erased.relationships.push(...forget.event.relationships);
    out.erasedRowids.episodes.push(...forget.rowids.episodes);
    out.erasedRowids.relationships.push(...forget.rowids.relationships);
    eraseFromJournal(mem, e.name, forget.event.episodes, forget.event.relationships);
  }
  flush();
  return out;
}

/** The pulled forget widened to what this memory holds about the entity alone, in local ids. */
function localForget(
  mem: JournaledGraph,
  e: Extract<MemoryEvent, { type: 'entity.forget' }>,
): { event: Extract<MemoryEvent, { type: 'entity.forget' }>; rowids: { episodes: number[]; relationships: number[] } } {
  const g = mem.graph;
  const episodes = new Set(e.episodes.map((id) => resolveId(g.db, 'ep', id)));
  const relationships = new Set(e.relationships.map((id) => resolveId(g.db, 'rel', id)));
  const entity = entityIdOf(g.db, e.name);
  if (entity !== undefined) {
    for (const ep of g.episodesOnlyAbout(entity)) episodes.add(ep.id);
    for (const f of g.factsOf(entity, { history: true })) relationships.add(f.id);
  }
  const rowids = (prefix: 'ep' | 'rel', ids: Set<string>): number[] => [...ids].flatMap((id) => rowidOf(g.db, prefix, id) ?? []);
  return {
    event: { ...e, episodes: [...episodes], relationships: [...relationships] },
    rowids: { episodes: rowids('ep', episodes), relationships: rowids('rel', relationships) },
  };
}
