/**
 * The memory service: the one process that owns a memory folder. Clients (CLI, MCP server,
 * extension) speak JSON-RPC to it over a local socket; it serialises writes, snapshots when
 * idle, tells clients when the memory changed, and exits by itself when nobody is connected.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { ConfigOverride } from '../../core/model/config.js';
import { MemoryError } from '../../core/model/errors.js';
import type { Provenance } from '../../core/model/events.js';
import { numericId } from '../../core/store/graph.js';
import { Memory, type QueryInput } from '../../core/memory/memory.js';
import { RETRIEVAL } from '../../core/retrieval/keyword.js';
import { collectGarbage } from '../collect-garbage.js';
import { acquireLock, releaseLock } from './lock.js';
import { lockPath, socketPath } from './paths.js';
import {
  authorityOf,
  LineReader,
  RPC_ERRORS,
  SURFACES,
  WRITE_METHODS,
  type Method,
  type ServiceStatus,
  type Surface,
} from './protocol.js';
import { VectorChannel, type EmbeddingSettings } from '../embeddings/vector-channel.js';
import { VERSION } from './version.js';
import { proveOwnership } from './proof.js';
import { lastRecovery, removeLeftovers } from '../../core/store/recovery.js';

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
}

interface Connection {
  socket: net.Socket;
  surface?: Surface;
  provenance?: Provenance;
}

type Handler = (params: Record<string, unknown>, by: Provenance) => unknown;

const rowidsOf = (ids: string[]): number[] => ids.map(numericId);

export async function runService(opts: ServiceOptions): Promise<void> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`${new Date().toISOString()} [service ${process.pid}] ${msg}\n`));
  const idleExitMs = opts.idleExitMs ?? 10 * 60_000;
  const snapshotIdleMs = opts.snapshotIdleMs ?? 2_000;
  fs.mkdirSync(opts.memory, { recursive: true, mode: 0o700 });

  const lock = acquireLock(lockPath(opts.memory), { socket: socketPath(opts.memory) });
  if (!lock.acquired) {
    log(`another service (pid ${lock.holder.pid}) already owns ${opts.memory}; exiting`);
    return;
  }
  removeLeftovers(opts.memory, log);

  const started = new Date().toISOString();
  let memory: Memory;
  try {
    memory = await Memory.open(opts.memory, opts.config, log);
  } catch (err) {
    releaseLock(lockPath(opts.memory));
    throw err;
  }
  const report = memory.openReport;
  log(`memory ${opts.memory} open: ${JSON.stringify(memory.status())}; replayed ${report.replayed} journal event(s)${report.reason ? `; ${report.reason}` : ''}`);

  const connections = new Set<Connection>();
  const vectors = new VectorChannel(
    opts.memory,
    opts.embeddings ?? {},
    { ids: (kind, after) => memory.embeddingIds(kind, after), texts: (kind, ids) => memory.embeddingTexts(kind, ids) },
    log,
  );
  let snapshotTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping = false;

  /**
   * Idle work, never on a request's path: merge the keyword index a slice at a time, then
   * snapshot. Re-armed by every request, so it runs once traffic pauses.
   */
  const scheduleIdleWork = (): void => {
    clearTimeout(snapshotTimer);
    // Under constant traffic the idle moment never comes; past a backlog, work between requests.
    const delay = memory.pendingSnapshotEvents >= memory.config.snapshotEvery * 4 ? 0 : snapshotIdleMs;
    snapshotTimer = setTimeout(() => {
      try {
        const merged = memory.compactIndex(200);
        // The snapshot is a full copy of the database (87 MB at 100k episodes), garbage once on disk.
        if (memory.snapshotDue) (memory.snapshot(), collectGarbage());
        if (!merged) scheduleIdleWork();
      } catch (err) {
        log(`idle maintenance failed (the journal still has everything): ${(err as Error).message}`);
      }
    }, delay);
  };

  const armIdleExit = (): void => {
    clearTimeout(idleTimer);
    if (connections.size === 0) idleTimer = setTimeout(() => void shutdown('no clients for a while'), idleExitMs);
  };

  const handlers: { [M in Method]: Handler } = {
    hello: (p) => ({ version: VERSION, pid: process.pid, memory: opts.memory, ...proveOwnership(lock.holder, p.challenge) }),
    ping: () => ({ ok: true }),
    remember: (p, by) => memory.remember(p as never, by),
    ingest: (p, by) => memory.ingest(p.episodes as never, by),
    relate: (p, by) => memory.relate(p as never, by),
    extracted: (p, by) => memory.recordExtraction(p as never, by),
    correct: (p, by) => memory.correct(p as never, by),
    'forget.plan': (p) => memory.forgetPlan(p.entity as string),
    forget: (p, by) => {
      const plan = memory.forget(p.entity as string, by);
      vectors.removed('episode', rowidsOf(plan.episodes.map((e) => e.id)));
      vectors.removed('fact', rowidsOf(plan.relationships.map((f) => f.id)));
      vectors.reconcile('entity');
      return plan;
    },
    // The question is embedded in the model's thread while this one runs the keyword half.
    query: async (p) => {
      const limit = typeof p.limit === 'number' ? p.limit : 10;
      const k = Math.min(limit, 50) * RETRIEVAL.fusion.depth;
      // A failed embedding leaves the question to keyword + graph; caught at once, so bad input
      // thrown by startQuery never leaves it unhandled.
      const embedding = (p.mode !== 'keyword' && vectors.ready && typeof p.query === 'string' && p.query.trim() ? vectors.embedQuery(p.query) : Promise.resolve(undefined)).catch(
        (err: Error) => void log(`embedding a question failed (${err.message}); answering with keyword + graph`),
      );
      const finish = memory.startQuery(p as unknown as QueryInput);
      const query = await embedding;
      return finish(query ? vectors.nearest(query, { episode: k, entity: k, fact: k }) : undefined);
    },
    search: (p) => memory.search(p as never),
    episodes: (p) => memory.episodes(p as never),
    traverse: (p) => memory.traverse(p as never),
    fact: (p) => memory.fact(p.id as string),
    overview: (p) => memory.overview(p as never),
    status: (): ServiceStatus => ({
      ...memory.status(),
      ...vectors.status(),
      service_pid: process.pid,
      rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
      peak_rss_mb: Math.round((process.resourceUsage().maxRSS * 1024) / 1e5) / 10,
      service_started: started,
      clients: connections.size,
      version: VERSION,
      ...lastRecovery(opts.memory),
    }),
    export: (p) => memory.export(p as never),
    shutdown: () => {
      setImmediate(() => void shutdown('asked to stop'));
      return { ok: true };
    },
    ...(memory.browseHandlers() as unknown as Record<keyof ReturnType<Memory['browseHandlers']>, Handler>),
  };

  const send = (conn: Connection, msg: object): void => {
    if (!conn.socket.destroyed) conn.socket.write(JSON.stringify(msg) + '\n');
  };

  const handleMessage = async (conn: Connection, line: string): Promise<void> => {
    let msg: { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      send(conn, { jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.parse, message: 'Parse error: each line must be one JSON-RPC message.' } });
      return;
    }
    const id = typeof msg?.id === 'number' || typeof msg?.id === 'string' ? msg.id : null;
    const fail = (code: number, message: string, data?: object): void => send(conn, { jsonrpc: '2.0', id, error: { code, message, data } });
    if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string') return fail(RPC_ERRORS.invalidRequest, 'Invalid request: expected {"jsonrpc":"2.0","id":…,"method":…}.');
    const method = msg.method as Method;
    const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    if (!handler) return fail(RPC_ERRORS.methodNotFound, `Unknown method "${msg.method}".`);
    const params = msg.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return fail(RPC_ERRORS.invalidParams, 'params must be an object.');

    if (method === 'hello') {
      const surface = (params as { surface?: unknown }).surface as Surface;
      if (!SURFACES.includes(surface)) return fail(RPC_ERRORS.invalidParams, `hello needs a surface: one of ${SURFACES.join(', ')}.`);
      conn.surface = surface;
      conn.provenance = { authority: authorityOf(surface), source: surface };
    } else if (!conn.provenance) {
      return fail(RPC_ERRORS.invalidRequest, 'Say hello first: {"method":"hello","params":{"surface":…}}.');
    }
    try {
      const result = await handler(params as Record<string, unknown>, conn.provenance!);
      if (id !== null) send(conn, { jsonrpc: '2.0', id, result });
      if (WRITE_METHODS.has(method)) {
        vectors.catchUp(); // what the write added (turns, entities, facts) gets embedded in the background
        const note = { jsonrpc: '2.0', method: 'changed', params: { method, seq: memory.seq } };
        for (const other of connections) send(other, note);
      }
    } catch (err) {
      if (err instanceof MemoryError) return fail(RPC_ERRORS.memory, err.message, { code: err.code, hint: err.hint });
      log(`internal error in ${method}: ${(err as Error).stack ?? err}`);
      fail(RPC_ERRORS.internal, `Internal error in ${method}: ${(err as Error).message}`);
    } finally {
      scheduleIdleWork();
    }
  };

  const server = net.createServer((socket) => {
    const conn: Connection = { socket };
    connections.add(conn);
    clearTimeout(idleTimer);
    const reader = new LineReader(
      (line) => void handleMessage(conn, line),
      () => {
        send(conn, { jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.invalidRequest, message: 'Message too large; the connection is closed.' } });
        socket.end();
      },
    );
    socket.on('data', (chunk) => reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      connections.delete(conn);
      armIdleExit();
    });
  });

  const sock = socketPath(opts.memory);
  if (process.platform !== 'win32' && fs.existsSync(sock)) fs.unlinkSync(sock); // left by a crashed owner; we hold the lock
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(sock, () => resolve());
  });
  if (process.platform !== 'win32') fs.chmodSync(sock, 0o600);
  log(`listening on ${sock}`);
  armIdleExit();
  // The model loads after the service answers: a client never waits for it.
  vectors.start().catch((err) => log(`embeddings failed to start: ${(err as Error).message}`));

  const shutdown = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    clearTimeout(snapshotTimer);
    clearTimeout(idleTimer);
    server.close();
    for (const c of connections) c.socket.destroy();
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
