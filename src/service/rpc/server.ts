/**
 * The memory service: the one process that owns a memory folder. Clients (CLI, MCP server,
 * extension) speak JSON-RPC to it over a local socket; it serialises writes, snapshots when
 * idle, tells clients when the memory changed, and exits by itself when nobody is connected.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ConfigOverride } from '../../core/model/config.js';
import { invalid, MemoryError } from '../../core/model/errors.js';
import { LIMITS } from '../../core/model/limits.js';
import type { Provenance } from '../../core/model/events.js';
import { Memory } from '../../core/memory/memory.js';
import { collectGarbage } from '../collect-garbage.js';
import { acquireLock, releaseLock } from './lock.js';
import { messageTooBig, mib, overMessageLimit } from './message-limit.js';
import { checkParams } from './params.js';
import { lockPath, socketPath } from './paths.js';
import { authorityOf, LineReader, RPC_ERRORS, WRITE_METHODS, type Method, type ParamsOf, type ResultOf, type Surface } from './protocol.js';
import { VectorChannel, type EmbeddingSettings } from '../embeddings/vector-channel.js';
import { VERSION } from './version.js';
import { proveOwnership } from './proof.js';
import { lastRecovery, removeLeftovers } from '../../core/store/recovery.js';
import { appliedBeforeRestart, RecentWrites } from './recent-writes.js';
import { resolveSync, type SyncSettings } from '../../sync/config.js';
import { ensureOrigin } from '../../core/store/ids.js';
import { SyncLoop } from '../../sync/sync-loop.js';
import { syncHandlers } from './sync-handlers.js';

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

/** One client's socket, and who it said it is (hello) once it has. */
interface ConnectedClient {
  socket: net.Socket;
  surface?: Surface;
  provenance?: Provenance;
  /** The client's workspace root (hello), where code anchors are taken and checked. */
  workspace?: string;
}

/** What the service does for each method, typed by the protocol: params checked, result as promised. */
type Handlers = {
  [M in Method]: (params: ParamsOf<M>, by: Provenance, conn: { workspace?: string }) => ResultOf<M> | Promise<ResultOf<M>>;
};

/** A read without its own project sees the connection's. */
const inProject = <P extends { project?: string | null }>(p: P, by: Provenance): P =>
  p.project !== undefined || by.project === undefined ? p : { ...p, project: by.project };

const idsOf = (list: { id: string }[]): string[] => list.map((x) => x.id);

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

  const recentWrites = new RecentWrites(report.requestIds ?? []);
  const connections = new Set<ConnectedClient>();
  const vectors = new VectorChannel(
    opts.memory,
    opts.embeddings ?? {},
    { ids: (kind, after) => memory.embeddingIds(kind, after), texts: (kind, ids) => memory.embeddingTexts(kind, ids) },
    log,
  );
  /** What a forget erased leaves the vector files too (forgotten text leaves no copy on disk), here or pulled. */
  const forgetVectors = (rowids: { episodes: number[]; relationships: number[] }): void => {
    vectors.removed('episode', rowids.episodes);
    vectors.removed('fact', rowids.relationships);
    vectors.reconcile('entity');
    vectors.erase();
  };
  // Events pulled from the team's log: their vectors follow, and clients hear the memory changed.
  const sync =
    syncConfig &&
    new SyncLoop(memory, syncConfig, log, (applied) => {
      if (applied.erasedRowids.episodes.length || applied.erasedRowids.relationships.length) forgetVectors(applied.erasedRowids);
      vectors.catchUp();
      const note = { jsonrpc: '2.0', method: 'changed', params: { method: 'sync', seq: memory.seq } };
      for (const other of connections) send(other, note);
      scheduleIdleWork();
    });
  let snapshotTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  /** Requests being served, and a count bumped by each one that arrives: idle work waits for a real pause. */
  let inFlight = 0;
  let lastRequestAt = 0;

  /**
   * Idle work, never on a request's path: merge the keyword index a slice at a time, then
   * snapshot. Re-armed by every request, so it runs once traffic pauses.
   */
  const scheduleIdleWork = (): void => {
    clearTimeout(snapshotTimer);
    // A snapshot blocks the service for as long as it takes to copy the database (seconds at
    // hundreds of MB): taken in a pause, or between requests only once the journal tail is overdue.
    const overdue = memory.pendingSnapshotEvents >= memory.config.snapshotEvery * 4 && memory.snapshotOverdue;
    const armed = lastRequestAt;
    // setImmediate: a starved process runs expired timers before reading its sockets; this lets
    // requests that arrived meanwhile start first, and a pause is only a pause if none did.
    snapshotTimer = setTimeout(
      () =>
        setImmediate(() => {
          if (!overdue && (lastRequestAt !== armed || inFlight > 0)) return;
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
        }),
      overdue ? 0 : snapshotIdleMs,
    );
  };

  const armIdleExit = (): void => {
    clearTimeout(idleTimer);
    if (connections.size === 0) idleTimer = setTimeout(() => void shutdown('no clients for a while'), idleExitMs);
  };

  const browse = memory.browseHandlers();
  const handlers: Handlers = {
    hello: (p) => ({ version: VERSION, pid: process.pid, memory: opts.memory, ...proveOwnership(lock.holder, p.challenge) }),
    ping: () => ({ ok: true }),
    remember: (p, by, c) => memory.remember(p, by, c.workspace),
    ingest: (p, by, c) => memory.ingest(p.episodes, by, c.workspace),
    relate: (p, by, c) => memory.relate(p, by, c.workspace),
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
      forgetVectors(rowids);
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
      service_started: started,
      skipped_journal_lines: report.skippedLines ?? 0,
      clients: connections.size,
      version: VERSION,
      ...lastRecovery(opts.memory),
      ...(sync ? { sync: sync.status() } : {}),
    }),
    export: (p) => memory.export(p),
    shutdown: () => {
      setImmediate(() => void shutdown('asked to stop'));
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
    'project.list': (_p, by) => ({ current: by.project ?? null, projects: memory.projects() }),
    'project.assign': (p, by) => memory.assignProject(p, by),
    brief: (p, by) => memory.brief({ ...inProject(p, by), budgetTokens: p.budget_tokens }),
    'graph.neighbourhood': (p) => browse.neighbourhood(p),
    'export.page': (p) => memory.exportPage(p),
    ...syncHandlers(memory, sync || undefined),
  };
  const isMethod = (name: string): name is Method => Object.hasOwn(handlers, name);

  /** Runs one method: its params checked against the protocol (invalid_input when they do not fit), then its handler. */
  const dispatch = async <M extends Method>(method: M, params: unknown, by: Provenance, conn: ConnectedClient): Promise<ResultOf<M>> => {
    const checked = checkParams(method, params);
    if (!checked.ok) throw checked.error;
    return handlers[method](checked.params, by, conn);
  };

  /**
   * A write whose request id was applied before a restart: run again only where that is
   * harmless (a stored turn or a current fact is found, not added), else answer without applying.
   */
  const againAfterRestart = async (method: Method, params: unknown, by: Provenance, conn: ConnectedClient): Promise<unknown> => {
    if (method === 'remember' || method === 'ingest' || method === 'relate') return dispatch(method, params, by, conn);
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

  /** An answer over the message limit would be dropped by the client: say so instead (the request itself was served). */
  const sendResult = (
    conn: ConnectedClient,
    id: string | number,
    method: Method,
    result: unknown,
    failWith: (e: MemoryError) => void,
  ): void => {
    const line = JSON.stringify({ jsonrpc: '2.0', id, result });
    const bytes = Buffer.byteLength(line);
    if (!overMessageLimit(bytes)) return void (conn.socket.destroyed || conn.socket.write(line + '\n'));
    failWith(messageTooBig('answer', method, bytes));
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
      const workspace = checked.params.workspace;
      if (workspace !== undefined && !path.isAbsolute(workspace))
        return failWith(
          invalid(`The workspace "${workspace}" is not an absolute path.`, 'Send the workspace root as an absolute path, or none.'),
        );
      conn.surface = checked.params.surface;
      const { project } = checked.params;
      conn.workspace = workspace;
      // The connection's project is where its writes land and what its reads see; said once, like the surface.
      conn.provenance = { authority: authorityOf(conn.surface), source: conn.surface, ...(project !== undefined ? { project } : {}) };
    }
    if (!conn.provenance) return fail(RPC_ERRORS.invalidRequest, 'Say hello first: {"method":"hello","params":{"surface":…}}.');
    inFlight++;
    lastRequestAt++;
    const rid = WRITE_METHODS.has(method) && typeof msg.rid === 'string' && msg.rid.length <= 100 ? msg.rid : undefined;
    const by: Provenance = rid ? { ...conn.provenance, rid } : conn.provenance;
    try {
      const result = rid
        ? await recentWrites.answer(
            rid,
            () => dispatch(method, params, by, conn),
            () => againAfterRestart(method, params, by, conn),
          )
        : await dispatch(method, params, by, conn);
      if (id !== null) sendResult(conn, id, method, result, failWith);
      if (WRITE_METHODS.has(method)) {
        vectors.catchUp(); // what the write added (turns, entities, facts) gets embedded in the background
        sync?.kick(); // and leaves for the team's log in the background
        const note = { jsonrpc: '2.0', method: 'changed', params: { method, seq: memory.seq } };
        for (const other of connections) send(other, note);
      }
    } catch (err) {
      if (err instanceof MemoryError) return failWith(err);
      log(`internal error in ${method}: ${(err as Error).stack ?? err}`);
      fail(RPC_ERRORS.internal, `Internal error in ${method}: ${(err as Error).message}`);
    } finally {
      inFlight--;
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
          error: {
            code: RPC_ERRORS.invalidRequest,
            message: `A message over the ${mib(LIMITS.serviceMessageBytes)} MiB limit was refused; the connection is closed.`,
            data: { code: 'invalid_input', hint: 'Send it in smaller parts (ingest in batches, export page by page).' },
          },
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
  sync?.start();

  const shutdown = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    clearTimeout(snapshotTimer);
    clearTimeout(idleTimer);
    server.close();
    for (const c of connections) c.socket.destroy();
    await sync?.close();
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
