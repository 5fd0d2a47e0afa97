/**
 * What the tree views read, page by page: the service's `browse.*` methods (src/core/memory/browse.ts).
 * Every list is bounded and says its total, so a view over 10k entities asks only for what is
 * on screen.
 */
import type { EntityView, EpisodeView, FactView } from '../../../core/model/views.js';
import type { SessionSummary } from '../../../core/memory/browse.js';
import type { ItemView } from '../../../core/memory/items.js';
import type { KnowledgeKind } from '../../../core/model/knowledge.js';
import type { MemoryAccess } from '../../../tools/catalogue.js';

export type { ItemView, SessionSummary };

export interface Page<T> {
  total: number;
  items: T[];
}

export class MemorySource {
  /** The views' project filter: the current project's and the global memory alone (else every project, the current first). */
  currentProjectOnly = false;

  constructor(private readonly connection: MemoryAccess) {}

  async types(): Promise<{ type: string; entities: number }[]> {
    return (await this.connection.call('browse.types', { only: this.currentProjectOnly })).types;
  }

  async entities(type: string | undefined, offset: number, limit: number): Promise<Page<EntityView>> {
    const r = await this.connection.call('browse.entities', { type, offset, limit, only: this.currentProjectOnly });
    return { total: r.total, items: r.entities };
  }

  async facts(entity: string, offset: number, limit: number): Promise<Page<FactView>> {
    const r = await this.connection.call('browse.facts', { entity, offset, limit });
    return { total: r.total, items: r.facts };
  }

  /** Knowledge items in force of these kinds (the connection's project and the global memory), in that order of kinds. */
  async items(kinds: KnowledgeKind[], offset: number, limit: number): Promise<Page<ItemView>> {
    const r = await this.connection.call('browse.items', { kinds, offset, limit });
    return { total: r.total, items: r.items };
  }

  async sessions(offset: number, limit: number): Promise<Page<SessionSummary>> {
    const r = await this.connection.call('browse.sessions', { offset, limit, only: this.currentProjectOnly });
    return { total: r.total, items: r.sessions };
  }

  async sessionEpisodes(session: string | null, offset: number, limit: number): Promise<Page<EpisodeView>> {
    const r = await this.connection.call('browse.sessionEpisodes', { session, offset, limit });
    return { total: r.total, items: r.episodes };
  }

  async episodesById(ids: string[]): Promise<EpisodeView[]> {
    return ids.length === 0 ? [] : this.connection.call('browse.episodesById', { ids });
  }
}
