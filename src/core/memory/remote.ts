/**
 * Events written by other memories (team sync), applied through the same path as a replay of
 * this memory's own journal. Ids arrive as they travel (ep_<origin>_N); the store resolves them.
 */
import { invalid } from '../model/errors.js';
import type { MemoryEvent, Provenance } from '../model/events.js';
import { erasureOf, orphansAfter, type ErasureScope } from '../store/erasure.js';
import { entityIdOf, rowidOf } from '../store/ids.js';
import { eraseFromJournal, type Erased } from './forget.js';
import { holdAside, readHeld, removeHeld } from './held-forgets.js';
import type { JournaledGraph } from './journaled-graph.js';
import { requireHuman } from './validate.js';

export type { ErasureScope };

export interface RemoteApplied {
  /** Events appended and applied (already applied ones are skipped, not counted). */
  applied: number;
  /** Local ids erased by forgets among them: their vectors go too. */
  erased: { episodes: string[]; relationships: string[] };
  /** Rowids of what was erased, read before the rows went. */
  erasedRowids: { episodes: number[]; relationships: number[] };
  /** Forgets whose erasure is held aside here (ids for `recall sync restore`). */
  held: string[];
}

/**
 * Applies pulled events in order. A forget is worked out here as a local one is, never from the
 * ids it lists: the named entity's facts and the episodes only about it, and of this memory's own
 * rows only those in projects it shares. What it erases is held aside, so the person can undo it.
 * An episode that arrives after the forget of an entity it names is new information and is kept.
 */
export function applyRemote(mem: JournaledGraph, events: MemoryEvent[], scope: ErasureScope): RemoteApplied {
  const out: RemoteApplied = {
    applied: 0,
    erased: { episodes: [], relationships: [] },
    erasedRowids: { episodes: [], relationships: [] },
    held: [],
  };
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
    const erased = localErasure(mem, e.name, scope);
    const rowids = {
      episodes: erased.episodes.flatMap((id) => rowidOf(mem.db, 'ep', id) ?? []),
      relationships: erased.relationships.flatMap((id) => rowidOf(mem.db, 'rel', id) ?? []),
    };
    const { orphans: _named, ...local } = erased;
    const applied = mem.commitRemote([{ ...e, ...local }]);
    if (applied.length === 0) continue;
    out.applied++;
    if (erased.episodes.length + erased.relationships.length + erased.orphans.length === 0) continue;
    out.erased.episodes.push(...erased.episodes);
    out.erased.relationships.push(...erased.relationships);
    out.erasedRowids.episodes.push(...rowids.episodes);
    out.erasedRowids.relationships.push(...rowids.relationships);
    out.held.push(eraseHeldAside(mem, erased, applied[0]!));
  }
  flush();
  return out;
}

/** What a forget of `name` erases here, in local ids, within the scope this memory shares. */
function localErasure(mem: JournaledGraph, name: string, scope: ErasureScope): Erased {
  const entity = entityIdOf(mem.db, name);
  if (entity === undefined) return { name, episodes: [], relationships: [], orphans: [] };
  const plan = erasureOf(mem.db, entity, scope);
  const episodes = plan.episodes.map((x) => x.id);
  const orphans = orphansAfter(mem.db, entity, episodes, plan.relationships);
  return { name, episodes, relationships: plan.relationships, orphans, ...(plan.keepEntity ? { keepEntity: true } : {}) };
}

/** Erases from the journal as a local forget does, keeping the events as they were in `forgotten/`. */
function eraseHeldAside(mem: JournaledGraph, erased: Erased, forget: MemoryEvent): string {
  const goneEpisodes = new Set(erased.episodes);
  const events: MemoryEvent[] = [];
  eraseFromJournal(mem, erased, (before) => {
    if (before.seq === forget.seq) return;
    events.push(before.type === 'episodes.add' ? { ...before, episodes: before.episodes.filter((ep) => goneEpisodes.has(ep.id)) } : before);
  });
  const id = `f${forget.seq}`;
  holdAside(mem.folder, {
    id,
    entity: erased.name,
    author: forget.by.author ?? null,
    origin: forget.origin ?? '',
    at: new Date().toISOString(),
    episodes: erased.episodes.length,
    facts: erased.relationships.length,
    events,
  });
  return id;
}

/** The person undoes a forget from the team: what it erased here comes back as it was (and is shared again). */
export function restoreForget(mem: JournaledGraph, id: string, by: Provenance): { episodes: number; facts: number } {
  requireHuman(by, 'restore what a forget erased');
  const held = readHeld(mem.folder, id);
  if (!Array.isArray(held.events)) throw invalid(`The held-aside forget ${id} is damaged; nothing was restored.`);
  mem.commitRestored(held.events.map(({ by: { rid: _rid, ...rest }, ...e }) => ({ ...e, by: rest }) as MemoryEvent));
  removeHeld(mem.folder, id);
  return { episodes: held.episodes, facts: held.facts };
}
