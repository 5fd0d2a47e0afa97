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
import { numericId } from '../../core/store/ids.js';
import { Memory } from '../../core/memory/memory.js';
import { collectGarbage } from '../collect-garbage.js';
import { acquireLock, releaseLock } from './lock.js';
import { checkParams } from './params.js';
import { lockPath, socketPath } from './paths.js';
import { authorityOf, LineReader, RPC_ERRORS, WRITE_METHODS, type Method, type ParamsOf, type ResultOf, type Surface } from './protocol.js';
import { VectorChannel, type EmbeddingSettings } from '../embeddings/vector-channel.js';
import { VERSION } from './version.js';
import { proveOwnership } from './proof.js';
import { lastRecovery, removeLeftovers } from '../../core/store/recovery.js';
import { appliedBeforeRestart, RecentWrites } from './recent-writes.js';

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

/** One client's socket, and who it said it is (hello) once it has. */
interface ConnectedClient {
  socket: net.Socket;
  surface?: Surface;
  provenance?: Provenance;
}

/** What the service does for each method, typed by the protocol: params checked, result as promised. */
type Handlers = { [M in Method]: (params: ParamsOf<M>, by: Provenance) => ResultOf<M> | Promise<ResultOf<M>> };

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
  log(
    `memory ${opts.memory} open: ${JSON.stringify(memory.status())}; replayed ${report.replayed} journal event(s)${report.reason ? `; ${report.reason}` : ''}`,
  );

  const recentWrites = new RecentWrites(report.requestIds ?? []);
  const connections = new Set<ConnectedClient>();
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
        // The snapshot is a full copy of the database, garbage once it is on disk.
        if (memory.snapshotDue) {
          memory.snapshot();
          collectGarbage();
        }
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

  const browse = memory.browseHandlers();
  const handlers: Handlers = {
    hello: (p) => ({ version: VERSION, pid: process.pid, memory: opts.memory, ...proveOwnership(lock.holder, p.challenge) }),
    ping: () => ({ ok: true }),
    remember: (p, by) => memory.remember(p, by),
    ingest: (p, by) => memory.ingest(p.episodes, by),
    relate: (p, by) => memory.relate(p, by),
    extracted: (p, by) => memory.recordExtraction(p, by),
    correct: (p, by) => memory.correct(p, by),
    unalias: (p, by) => memory.unalias(p, by),
    'forget.plan': (p) => memory.forgetPlan(p.entity),
    forget: (p, by) => {
      const plan = memory.forget(p.entity, by);
      vectors.removed('episode', rowidsOf(plan.episodes.map((e) => e.id)));
      vectors.removed('fact', rowidsOf(plan.relationships.map((f) => f.id)));
      vectors.reconcile('entity');
      return plan;
    },
    // The question is embedded in the model's thread while this one runs the keyword half.
    query: (p) => vectors.query(memory, p),
    search: (p) => memory.search(p),
    episodes: (p) => memory.episodes(p),
    traverse: (p) => memory.traverse(p),
    fact: (p) => memory.fact(p.id),
    overview: (p) => memory.overview(p),
    status: () => ({
      ...memory.status(),
      ...vectors.status(),
      service_pid: process.pid,
      rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
      peak_rss_mb: Math.round((process.resourceUsage().maxRSS * 1024) / 1e5) / 10,
      service_started: started,
      skipped_journal_lines: report.skippedLines ?? 0,
      clients: connections.size,
      version: VERSION,
      ...lastRecovery(opts.memory),
    }),
    export: (p) => memory.export(p),
    shutdown: () => {
      setImmediate(() => void shutdown('asked to stop'));
      return { ok: true };
    },
    'browse.types': () => browse.types(),
    'browse.entities': (p) => browse.entities(p),
    'browse.facts': (p) => browse.facts(p),
    'browse.sessions': (p) => browse.sessions(p),
    'browse.sessionEpisodes': (p) => browse.sessionEpisodes(p),
    'browse.episodesById': (p) => browse.episodesById(p),
  };
  const isMethod = (name: string): name is Method => Object.hasOwn(handlers, name);

  /** Runs one method: its params checked against the protocol (invalid_input when they do not fit), then its handler. */
  const dispatch = async <M extends Method>(method: M, params: unknown, by: Provenance): Promise<ResultOf<M>> => {
    const checked = checkParams(method, params);
    if (!checked.ok) throw checked.error;
    return handlers[method](checked.params, by);
  };

  /**
   * A write whose request id was applied before a restart: run again only where that is
   * harmless (a stored turn or a current fact is found, not added), else answer without applying.
   */
  const againAfterRestart = async (method: Method, params: unknown, by: Provenance): Promise<unknown> => {
    if (method === 'remember' || method === 'ingest' || method === 'relate') return dispatch(method, params, by);
    if (method === 'correct') {
      const checked = checkParams('correct', params);
      if (!checked.ok) throw checked.error;
      return memory.fact(checked.params.id);
    }
    throw appliedBeforeRestart(method);
  };

  const send = (conn: ConnectedClient, msg: object): void => {
    if (!conn.socket.destroyed) conn.socket.write(JSON.stringify(msg) + '\n');
  };

  const handleMessage = async (conn: ConnectedClient, line: string): Promise<void> => {
    let msg: { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown; rid?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      send(conn, {
        jsonrpc: '2.0',
        id: null,
        error: { code: RPC_ERRORS.parse, message: 'Parse error: each line must be one JSON-RPC message.' },
      });
      return;
    }
    const id = typeof msg?.id === 'number' || typeof msg?.id === 'string' ? msg.id : null;
    const fail = (code: number, message: string, data?: object): void => send(conn, { jsonrpc: '2.0', id, error: { code, message, data } });
    if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string')
      return fail(RPC_ERRORS.invalidRequest, 'Invalid request: expected {"jsonrpc":"2.0","id":…,"method":…}.');
    const method = msg.method;
    if (!isMethod(method)) return fail(RPC_ERRORS.methodNotFound, `Unknown method "${method}".`);
    const params = msg.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return fail(RPC_ERRORS.invalidParams, 'params must be an object.');
    const failWith = (err: MemoryError): void => fail(RPC_ERRORS.memory, err.message, { code: err.code, hint: err.hint });

    if (method === 'hello') {
      // The surface decides the authority: it is said once, and a connection cannot change it.
      if (conn.surface)
        return failWith(
          new MemoryError(
            'invalid_input',
            `This connection already said hello as "${conn.surface}"; open a new one to be another surface.`,
          ),
        );
      const checked = checkParams('hello', params);
      if (!checked.ok) return failWith(checked.error);
      conn.surface = checked.params.surface;
      conn.provenance = { authority: authorityOf(conn.surface), source: conn.surface };
    }
    if (!conn.provenance) return fail(RPC_ERRORS.invalidRequest, 'Say hello first: {"method":"hello","params":{"surface":…}}.');
    const rid = WRITE_METHODS.has(method) && typeof msg.rid === 'string' && msg.rid.length <= 100 ? msg.rid : undefined;
    const by: Provenance = rid ? { ...conn.provenance, rid } : conn.provenance;
    try {
      const result = rid
        ? await recentWrites.answer(
            rid,
            () => dispatch(method, params, by),
            () => againAfterRestart(method, params, by),
          )
        : await dispatch(method, params, by);
      if (id !== null) send(conn, { jsonrpc: '2.0', id, result });
      if (WRITE_METHODS.has(method)) {
        vectors.catchUp(); // what the write added (turns, entities, facts) gets embedded in the background
        const note = { jsonrpc: '2.0', method: 'changed', params: { method, seq: memory.seq } };
        for (const other of connections) send(other, note);
      }
    } catch (err) {
      if (err instanceof MemoryError) return failWith(err);
      log(`internal error in ${method}: ${(err as Error).stack ?? err}`);
      fail(RPC_ERRORS.internal, `Internal error in ${method}: ${(err as Error).message}`);
    } finally {
      scheduleIdleWork();
    }
  };

  const server = net.createServer((socket) => {
    const conn: ConnectedClient = { socket };
    connections.add(conn);
    clearTimeout(idleTimer);
    const reader = new LineReader(
      (line) => void handleMessage(conn, line),
      () => {
        send(conn, {
          jsonrpc: '2.0',
          id: null,
          error: { code: RPC_ERRORS.invalidRequest, message: 'Message too large; the connection is closed.' },
        });
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
