/**
 * What the service does for each method: the table the connection loop dispatches to, built from
 * the open memory, its vector channel, its sync loop and a few facts about the running service.
 * A handler gets params already checked against the protocol, the caller's provenance and its
 * connection's workspace.
 */
import type { Provenance } from '../../core/model/events.js';
import type { Memory } from '../../core/memory/memory.js';
import { lastRecovery } from '../../core/store/recovery.js';
import type { SyncLoop } from '../../sync/sync-loop.js';
import type { VectorChannel } from '../embeddings/vector-channel.js';
import type { LockHolder } from './lock.js';
import type { HookCacheKeeper } from './hook-cache.js';
import { proveOwnership } from './proof.js';
import type { Method, ParamsOf, ResultOf } from './protocol.js';
import { syncHandlers } from './sync-handlers.js';
import { VERSION } from './version.js';

/** What the service does for each method, typed by the protocol: params checked, result as promised. */
export type Handlers = {
  [M in Method]: (params: ParamsOf<M>, by: Provenance, conn: { workspace?: string }) => ResultOf<M> | Promise<ResultOf<M>>;
};

export interface ServiceParts {
  /** The memory folder this service owns. */
  folder: string;
  memory: Memory;
  vectors: VectorChannel;
  sync: SyncLoop | undefined;
  /** The hooks' cache and spool (hook-cache.ts). */
  hooks: HookCacheKeeper;
  /** This service's lock record: hello proves with it that this process owns the folder. */
  owner: LockHolder;
  /** When the service started, for status. */
  started: string;
  /** Journal lines skipped when the memory was opened, for status. */
  skippedJournalLines: number;
  /** How many clients are connected now, for status. */
  clients: () => number;
  /** Stops the service (the `shutdown` method). */
  shutdown: (why: string) => void;
}

/** A read without its own project sees the connection's. */
const inProject = <P extends { project?: string | null }>(p: P, by: Provenance): P =>
  p.project !== undefined || by.project === undefined ? p : { ...p, project: by.project };

const idsOf = (list: { id: string }[]): string[] => list.map((x) => x.id);

/** What a forget erased leaves the vector files too (forgotten text leaves no copy on disk), here or pulled. */
export function forgetVectors(vectors: VectorChannel, rowids: { episodes: number[]; relationships: number[] }): void {
  vectors.removed('episode', rowids.episodes);
  vectors.removed('fact', rowids.relationships);
  vectors.reconcile('entity');
  vectors.erase();
}

export function handlerTable(s: ServiceParts): Handlers {
  const { memory, vectors, sync } = s;
  const browse = memory.browseHandlers();
  return {
    hello: (p) => ({ version: VERSION, pid: process.pid, memory: s.folder, ...proveOwnership(s.owner, p.challenge) }),
    ping: () => ({ ok: true }),
    remember: (p, by, c) => memory.remember(p, by, c.workspace),
    ingest: (p, by, c) => memory.ingest(p.episodes, by, c.workspace),
    relate: (p, by, c) => memory.relate(p, by, c.workspace),
    'knowledge.file': (p, by, c) => memory.readMemoryFile(p, by, c.workspace),
    extracted: (p, by) => memory.recordExtraction(p, by),
    correct: (p, by, c) => memory.correct(p, by, c.workspace),
    unalias: (p, by) => memory.unalias(p, by),
    'forget.plan': (p) => memory.forgetPlan(p.entity),
    forget: (p, by) => {
      // Rowids are read while the rows still exist: a new-style id does not carry its rowid.
      const before = memory.forgetPlan(p.entity);
      const rowids = {
        episodes: memory.rowidsOf('ep', idsOf(before.episodes)),
        relationships: memory.rowidsOf('rel', idsOf(before.relationships)),
      };
      const plan = memory.forget(p.entity, by);
      forgetVectors(vectors, rowids);
      s.hooks.changed('forget'); // the briefs kept for hooks, made anew before the forget returns
      s.hooks.write();
      return plan;
    },
    // The question is embedded in the model's thread while this one runs the keyword half.
    query: (p, by, c) => vectors.query(memory, { ...inProject(p, by), workspace: c.workspace }),
    search: (p, by) => memory.search(inProject(p, by)),
    episodes: (p, by) => memory.episodes(inProject(p, by)),
    traverse: (p, by, c) => memory.traverse(inProject(p, by), c.workspace),
    fact: (p, _by, c) => memory.fact(p.id, c.workspace),
    overview: (p, by) => memory.overview(inProject(p, by)),
    status: () => ({
      ...memory.status(),
      ...vectors.status(),
      service_pid: process.pid,
      rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
      peak_rss_mb: Math.round((process.resourceUsage().maxRSS * 1024) / 1e5) / 10,
      service_started: s.started,
      skipped_journal_lines: s.skippedJournalLines,
      clients: s.clients(),
      version: VERSION,
      ...lastRecovery(s.folder),
      ...(sync ? { sync: sync.status() } : {}),
    }),
    export: (p) => memory.export(p),
    shutdown: () => {
      setImmediate(() => s.shutdown('asked to stop'));
      return { ok: true };
    },
    'browse.types': (p, by) => browse.types(inProject(p, by)),
    'browse.entities': (p, by) => browse.entities(inProject(p, by)),
    'browse.facts': (p, _by, c) => {
      const page = browse.facts(p);
      return { ...page, facts: memory.withCode(page.facts, c.workspace) };
    },
    'browse.sessions': (p, by) => browse.sessions(inProject(p, by)),
    'browse.sessionEpisodes': (p) => browse.sessionEpisodes(p),
    'browse.episodesById': (p) => browse.episodesById(p),
    'browse.items': (p, by) => browse.items(inProject(p, by)),
    'project.list': (_p, by) => ({ current: by.project ?? null, projects: memory.projects() }),
    'project.assign': (p, by) => memory.assignProject(p, by),
    'rule.add': (p, by) => memory.addRule(p, by),
    'rule.check': (p, by) => memory.setCheck(p, by),
    rules: (p, by) => memory.rules(inProject(p, by).project ?? null, { checked: p.checked, limit: p.limit }),
    'hook.check': (p, by, c) => {
      s.hooks.drain();
      return memory.hookCheck(p, by, c.workspace);
    },
    brief: (p, by) => {
      const make = () => memory.brief({ ...inProject(p, by), budgetTokens: p.budget_tokens });
      // A hook's brief (its default budget, its connection's project) is kept between sessions.
      return by.source === 'hook' && p.budget_tokens === undefined && p.project === undefined ? s.hooks.briefFor(by.project, make) : make();
    },
    'graph.neighbourhood': (p) => browse.neighbourhood(p),
    'export.page': (p) => memory.exportPage(p),
    ...syncHandlers(memory, sync),
  };
}
