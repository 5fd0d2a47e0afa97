/**
 * Forgetting, the one deliberate erasure, in two steps: what would go (nothing changes), then
 * erasing it from the graph and the journal alike.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryEvent, Provenance } from '../model/events.js';
import type { EntityView, FactView } from '../model/views.js';
import { orphansAfter } from '../store/erasure.js';
import { entityKey } from '../store/ids.js';
import { writeFileDurably } from '../store/durable.js';
import { removeLeftovers } from '../store/recovery.js';
import { dropHeldAbout } from './held-forgets.js';
import { JOURNAL_FILE } from '../model/folder-layout.js';
import type { JournaledGraph } from './journaled-graph.js';
import { requireEntity } from './names.js';
import { requireHuman } from './validate.js';

export interface ForgetPlan {
  entity: EntityView;
  relationships: FactView[];
  episodes: { id: string; text: string }[];
  /** Episodes that mention this entity and something else: they stay, unlinked from it. */
  kept_episodes: number;
  /** Other entities the erasure leaves with no fact, turn or alias (an erased fact's other end): they go too. */
  orphans: string[];
}

/** Step one: what forgetting an entity would erase. Nothing changes. */
export function forgetPlan(mem: JournaledGraph, name: string): ForgetPlan {
  const id = requireEntity(mem.graph, name);
  const entity = mem.graph.entityView(id)!;
  const relationships = mem.graph.factsOf(id, { history: true });
  const episodes = mem.graph.episodesOnlyAbout(id);
  const orphans = orphansAfter(
    mem.db,
    id,
    episodes.map((e) => e.id),
    relationships.map((r) => r.id),
  );
  return { entity, relationships, episodes, kept_episodes: entity.episodes - episodes.length, orphans };
}

/**
 * Step two: erases the entity, its relationships, the episodes that mention nothing else and the
 * entities left with nothing, from the graph and from the journal (rewritten), then snapshots so
 * no copy of them remains. What the team's forgets held aside about the entity goes too.
 */
export function forget(mem: JournaledGraph, name: string, by: Provenance): ForgetPlan {
  requireHuman(by, 'forget an entity');
  const plan = forgetPlan(mem, name);
  const erased: Erased = {
    name: plan.entity.name,
    episodes: plan.episodes.map((e) => e.id),
    relationships: plan.relationships.map((r) => r.id),
    orphans: plan.orphans,
  };
  mem.commit([{ type: 'entity.forget', name: erased.name, episodes: erased.episodes, relationships: erased.relationships }], by);
  eraseFromJournal(mem, erased);
  dropHeldAbout(mem.folder, plan.entity.name);
  return plan;
}

/** What one forget erases: an entity's name, ids of episodes and facts, and the orphaned entities' names. */
export interface Erased {
  name: string;
  episodes: string[];
  relationships: string[];
  orphans: string[];
  /** The entity itself stays (a forget from the team, within this memory's shared scope). */
  keepEntity?: boolean;
}

/**
 * Rewrites the journal (and any journal a recovery set aside) without what a forget erased, then
 * compacts, snapshots and removes leftover temp files so no copy remains. `dropped` sees each
 * event as it was before the filter changed it (a forget from the team holds them aside).
 */
export function eraseFromJournal(mem: JournaledGraph, erased: Erased, dropped?: (before: MemoryEvent) => void): void {
  const filter = erasing(erased);
  const keep = (e: MemoryEvent): MemoryEvent | null => {
    const kept = filter(e);
    if (kept !== e) dropped?.(e);
    return kept;
  };
  mem.journal.rewrite(keep);
  scrubSetAside(mem.folder, keep);
  // Dropped events leave gaps in seq; renumbering would only hide what happened.
  mem.graph.compactAfterErasure();
  mem.snapshot();
  // A crash mid-snapshot may have left a temp copy holding the erased text.
  removeLeftovers(mem.folder, () => {});
}

/**
 * The journal filter of one forget: events of the erased things go, episodes batches lose the
 * erased ones. An event another memory wrote keeps its place as an empty stub: how far that
 * memory's events were applied must survive a rebuild, or the next pull would bring them back.
 */
function erasing({ name, episodes, relationships, orphans, keepEntity }: Erased): (e: MemoryEvent) => MemoryEvent | null {
  const goneEpisodes = new Set(episodes);
  const goneRelationships = new Set(relationships);
  const goneNames = new Set([...(keepEntity ? [] : [name]), ...orphans].map(entityKey));
  const drop = (e: MemoryEvent): MemoryEvent | null =>
    e.origin === undefined
      ? null
      : {
          seq: e.seq,
          at: e.at,
          by: { authority: e.by.authority },
          origin: e.origin,
          originSeq: e.originSeq,
          type: 'episodes.add',
          episodes: [],
        };
  return (e) => {
    switch (e.type) {
      case 'episodes.add': {
        const kept = e.episodes.filter((ep) => !goneEpisodes.has(ep.id));
        if (kept.length === e.episodes.length) return e;
        return kept.length ? { ...e, episodes: kept } : drop(e);
      }
      case 'relationship.assert':
      case 'relationship.evidence':
      case 'relationship.correct':
      case 'relationship.check':
      case 'check.outcome':
      case 'relationship.retract':
        return goneRelationships.has(e.id) ? drop(e) : e;
      case 'entity.upsert':
        return goneNames.has(entityKey(e.name)) ? drop(e) : e;
      case 'anchors.set':
        return goneEpisodes.has(e.target) || goneRelationships.has(e.target) ? drop(e) : e;
      case 'entity.unalias':
        return goneNames.has(entityKey(e.name)) ? drop(e) : e;
      default:
        return e;
    }
  };
}

/**
 * Journals a recovery set aside (journal.jsonl.damaged-*) are copies too: rewritten through the
 * same filter. A line that no longer parses could hold any part of an erased text, and no replay
 * can read it: it goes too.
 */
function scrubSetAside(folder: string, keep: (e: MemoryEvent) => MemoryEvent | null): void {
  for (const name of fs.readdirSync(folder).filter((n) => n.startsWith(`${JOURNAL_FILE}.damaged-`))) {
    const file = path.join(folder, name);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const kept = lines.flatMap((line) => {
      if (!line.trim()) return [line];
      try {
        const e = keep(JSON.parse(line) as MemoryEvent);
        return e ? [JSON.stringify(e)] : [];
      } catch {
        return [];
      }
    });
    writeFileDurably(file, Buffer.from(kept.join('\n'), 'utf8'));
  }
}
