/**
 * Forgetting, the one deliberate erasure, in two steps: what would go (nothing changes), then
 * erasing it from the graph and the journal alike.
 */
import type { Provenance } from '../model/events.js';
import type { EntityView, FactView } from '../model/views.js';
import { entityKey } from '../store/ids.js';
import type { JournaledGraph } from './journaled-graph.js';
import { requireEntity } from './names.js';
import { requireHuman } from './validate.js';

export interface ForgetPlan {
  entity: EntityView;
  relationships: FactView[];
  episodes: { id: string; text: string }[];
  /** Episodes that mention this entity and something else: they stay, unlinked from it. */
  kept_episodes: number;
}

/** Step one: what forgetting an entity would erase. Nothing changes. */
export function forgetPlan(mem: JournaledGraph, name: string): ForgetPlan {
  const id = requireEntity(mem.graph, name);
  const entity = mem.graph.entityView(id)!;
  const relationships = mem.graph.factsOf(id, { history: true });
  const episodes = mem.graph.episodesOnlyAbout(id);
  return { entity, relationships, episodes, kept_episodes: entity.episodes - episodes.length };
}

/**
 * Step two: erases the entity, its relationships and the episodes that mention nothing else,
 * from the graph and from the journal (rewritten), then snapshots so no copy of them remains.
 */
export function forget(mem: JournaledGraph, name: string, by: Provenance): ForgetPlan {
  requireHuman(by, 'forget an entity');
  const plan = forgetPlan(mem, name);
  const episodes = plan.episodes.map((e) => e.id);
  const relationships = plan.relationships.map((r) => r.id);
  mem.commit([{ type: 'entity.forget', name: plan.entity.name, episodes, relationships }], by);
  const goneEpisodes = new Set(episodes);
  const goneRelationships = new Set(relationships);
  const key = entityKey(plan.entity.name);
  mem.journal.rewrite((e) => {
    switch (e.type) {
      case 'episodes.add': {
        const kept = e.episodes.filter((ep) => !goneEpisodes.has(ep.id));
        if (kept.length === e.episodes.length) return e;
        return kept.length ? { ...e, episodes: kept } : null;
      }
      case 'relationship.assert':
      case 'relationship.evidence':
      case 'relationship.correct':
        return goneRelationships.has(e.id) ? null : e;
      case 'entity.upsert':
      case 'entity.unalias':
        return entityKey(e.name) === key ? null : e;
      default:
        return e;
    }
  });
  // Dropped events leave gaps in seq; renumbering would only hide what happened.
  mem.graph.compactAfterErasure();
  mem.snapshot();
  return plan;
}
