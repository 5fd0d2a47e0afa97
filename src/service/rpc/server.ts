/**
 * The memory service: the one process that owns a memory folder. Clients (CLI, MCP server,
 * extension) speak JSON-RPC to it over a local socket; it serialises writes, snapshots when
 * idle, tells clients when the memory changed, and exits by itself when nobody is connected.
 */
import * as fs from 'node:fs';
import type { ConfigOverride } from '../../core/model/config.js';
import { Memory } from '../../core/memory/memory.js';
import { removeLeftovers } from '../../core/store/recovery.js';
import { ensureOrigin } from '../../core/store/ids.js';
import { resolveSync, type SyncSettings } from '../../sync/config.js';
import { SyncLoop } from '../../sync/sync-loop.js';
import { VectorChannel, type EmbeddingSettings } from '../embeddings/vector-channel.js';
import { Connections } from './connections.js';
import { forgetVectors, handlerTable } from './handlers.js';
import { HookCacheKeeper } from './hook-cache.js';
import { IdleWork } from './idle-work.js';
import { acquireLock, releaseLock } from './lock.js';
import { lockPath, socketPath } from './paths.js';
import { RecentWrites } from './recent-writes.js';

export interface ServiceOptions {
  memory: string;
  /** Exit after this long with no client connected. */
  idleExitMs?: number;
  /** Snapshot this long after the last request, when there is anything new. */
  snapshotIdleMs?: number;
  config?: ConfigOverride;
  /** The dense channel (config.json "embeddings"); off when absent. */
  embeddings?: EmbeddingSettings;
  log?: (msg: string) => void;
  /** Team sync (config.json "sync"); off when absent. */
  sync?: SyncSettings;
}

/**
 * Owns the folder (its lock), opens the memory, and wires the parts: the handler table
 * (handlers.ts), the socket and its clients (connections.ts), the idle work and idle exit
 * (idle-work.ts), the vector channel and the sync loop; then serves until stopped.
 */
export async function runService(opts: ServiceOptions): Promise<void> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`${new Date().toISOString()} [service ${process.pid}] ${msg}\n`));
  fs.mkdirSync(opts.memory, { recursive: true, mode: 0o700 });

  const lock = acquireLock(lockPath(opts.memory), { socket: socketPath(opts.memory) });
  if (!lock.acquired) {
    log(`another service (pid ${lock.holder.pid}) already owns ${opts.memory}; exiting`);
    return;
  }
  removeLeftovers(opts.memory, log);

  const started = new Date().toISOString();
  let memory: Memory;
  const syncConfig = resolveSync(opts.sync);
  try {
    // A shared memory mints ids carrying its origin from its first write on.
    if (syncConfig) ensureOrigin(opts.memory);
    memory = await Memory.open(opts.memory, opts.config, log);
  } catch (err) {
    releaseLock(lockPath(opts.memory));
    throw err;
  }
  const report = memory.openReport;
  log(
    `memory ${opts.memory} open: ${JSON.stringify(memory.status())}; replayed ${report.replayed} journal event(s)${report.reason ? `; ${report.reason}` : ''}`,
  );

  const vectors = new VectorChannel(
    opts.memory,
    opts.embeddings ?? {},
    { ids: (kind, after) => memory.embeddingIds(kind, after), texts: (kind, ids) => memory.embeddingTexts(kind, ids) },
    log,
  );
  const hooks = new HookCacheKeeper(opts.memory, memory, log);
  const idle = new IdleWork(memory, {
    snapshotIdleMs: opts.snapshotIdleMs ?? 2_000,
    idleExitMs: opts.idleExitMs ?? 10 * 60_000,
    exit: () => void shutdown('no clients for a while'),
    log,
  });
  // Events pulled from the team's log: their vectors follow, and clients hear the memory changed.
  const sync =
    syncConfig &&
    new SyncLoop(memory, syncConfig, log, (applied) => {
      hooks.changed('sync');
      if (applied.erasedRowids.episodes.length || applied.erasedRowids.relationships.length) {
        forgetVectors(vectors, applied.erasedRowids);
        hooks.write(); // what the team forgot leaves no copy in the briefs kept for hooks
      }
      vectors.catchUp();
      clients.changed('sync');
      idle.schedule();
    });
  const clients: Connections = new Connections({
    handlers: handlerTable({
      folder: opts.memory,
      memory,
      vectors,
      sync: sync || undefined,
      hooks,
      owner: lock.holder,
      started,
      skippedJournalLines: report.skippedLines ?? 0,
      clients: () => clients.size,
      shutdown: (why) => void shutdown(why),
    }),
    memory,
    recentWrites: new RecentWrites(report.requestIds ?? []),
    activity: idle,
    written: (method) => {
      vectors.catchUp(); // what the write added (turns, entities, facts) gets embedded in the background
      sync?.kick(); // and leaves for the team's log in the background
      hooks.changed(method); // hooks that run without the service see the rules as they are now
    },
    log,
  });

  const sock = socketPath(opts.memory);
  await clients.listen(sock);
  log(`listening on ${sock}`);
  idle.clientsChanged(clients.size);
  // What cold hooks decided while no service ran is recorded, and the next ones read today's rules.
  hooks.drain();
  hooks.write();
  // The model loads after the service answers: a client never waits for it.
  vectors.start().catch((err) => log(`embeddings failed to start: ${(err as Error).message}`));
  sync?.start();

  let stopping = false;
  const shutdown = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    idle.stop();
    clients.close();
    await sync?.close();
    hooks.write();
    try {
      vectors.close();
      memory.close({ snapshot: true });
    } catch (err) {
      log(`final snapshot failed (the journal still has everything): ${(err as Error).message}`);
    }
    if (process.platform !== 'win32') fs.rmSync(sock, { force: true });
    releaseLock(lockPath(opts.memory));
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
