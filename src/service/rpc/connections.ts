/**
 * The service's socket: one line of JSON-RPC per message, per client. A connection says hello
 * once (its surface fixes its authority; its project and workspace come with it), then each
 * request is checked, dispatched to the handler table and answered; a write tells every client
 * that the memory changed. A write's request id (`rid`) makes its retry after a lost answer safe.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { invalid, MemoryError } from '../../core/model/errors.js';
import { LIMITS } from '../../core/model/limits.js';
import type { Provenance } from '../../core/model/events.js';
import type { Memory } from '../../core/memory/memory.js';
import type { Handlers } from './handlers.js';
import { messageTooBig, mib, overMessageLimit } from './message-limit.js';
import { checkParams } from './params.js';
import { authorityOf, LineReader, RPC_ERRORS, WRITE_METHODS, type Method, type ResultOf, type Surface } from './protocol.js';
import { appliedBeforeRestart, type RecentWrites } from './recent-writes.js';

/** One client's socket, and who it said it is (hello) once it has. */
interface ConnectedClient {
  socket: net.Socket;
  surface?: Surface;
  provenance?: Provenance;
  /** The client's workspace root (hello), where code anchors are taken and checked. */
  workspace?: string;
}

/** What the loop reports to the idle scheduling: requests starting and ending, clients coming and going. */
export interface Activity {
  requestStarted(): void;
  requestEnded(): void;
  clientsChanged(count: number): void;
}

export interface ConnectionOptions {
  handlers: Handlers;
  /** Its seq goes out with each change notification; a correct applied before a restart reads its fact. */
  memory: Memory;
  recentWrites: RecentWrites;
  activity: Activity;
  /** After a write was answered and before the clients hear of it. */
  written: (method: Method) => void;
  log: (msg: string) => void;
}

export class Connections {
  private readonly clients = new Set<ConnectedClient>();
  private readonly server = net.createServer((socket) => this.accept(socket));

  constructor(private readonly opts: ConnectionOptions) {}

  get size(): number {
    return this.clients.size;
  }

  /** Listens on the memory's socket, readable by this user alone. */
  async listen(sock: string): Promise<void> {
    if (process.platform !== 'win32' && fs.existsSync(sock)) fs.unlinkSync(sock); // left by a crashed owner; we hold the lock
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(sock, () => resolve());
    });
    if (process.platform !== 'win32') fs.chmodSync(sock, 0o600);
  }

  /** Tells every client the memory changed, by `method` (or `sync` for pulled events). */
  changed(method: string): void {
    const note = { jsonrpc: '2.0', method: 'changed', params: { method, seq: this.opts.memory.seq } };
    for (const other of this.clients) this.send(other, note);
  }

  /** Stops listening and drops every client. */
  close(): void {
    this.server.close();
    for (const c of this.clients) c.socket.destroy();
  }

  private accept(socket: net.Socket): void {
    const conn: ConnectedClient = { socket };
    this.clients.add(conn);
    this.opts.activity.clientsChanged(this.clients.size);
    const reader = new LineReader(
      (line) => void this.handleMessage(conn, line),
      () => {
        this.send(conn, {
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
      this.clients.delete(conn);
      this.opts.activity.clientsChanged(this.clients.size);
    });
  }

  private isMethod(name: string): name is Method {
    return Object.hasOwn(this.opts.handlers, name);
  }

  /** Runs one method: its params checked against the protocol (invalid_input when they do not fit), then its handler. */
  private async dispatch<M extends Method>(method: M, params: unknown, by: Provenance, conn: ConnectedClient): Promise<ResultOf<M>> {
    const checked = checkParams(method, params);
    if (!checked.ok) throw checked.error;
    return this.opts.handlers[method](checked.params, by, conn);
  }

  /**
   * A write whose request id was applied before a restart: run again only where that is
   * harmless (a stored turn or a current fact is found, not added), else answer without applying.
   */
  private async againAfterRestart(method: Method, params: unknown, by: Provenance, conn: ConnectedClient): Promise<unknown> {
    if (method === 'remember' || method === 'ingest' || method === 'relate') return this.dispatch(method, params, by, conn);
    if (method === 'correct') {
      const checked = checkParams('correct', params);
      if (!checked.ok) throw checked.error;
      // "The same as" answers with the item kept, as it did the first time.
      return this.opts.memory.fact(checked.params.as ?? checked.params.id);
    }
    throw appliedBeforeRestart(method);
  }

  private send(conn: ConnectedClient, msg: object): void {
    if (!conn.socket.destroyed) conn.socket.write(JSON.stringify(msg) + '\n');
  }

  /** An answer over the message limit would be dropped by the client: say so instead (the request itself was served). */
  private sendResult(
    conn: ConnectedClient,
    id: string | number,
    method: Method,
    result: unknown,
    failWith: (e: MemoryError) => void,
  ): void {
    const line = JSON.stringify({ jsonrpc: '2.0', id, result });
    const bytes = Buffer.byteLength(line);
    if (!overMessageLimit(bytes)) return void (conn.socket.destroyed || conn.socket.write(line + '\n'));
    failWith(messageTooBig('answer', method, bytes));
  }

  private async handleMessage(conn: ConnectedClient, line: string): Promise<void> {
    let msg: { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown; rid?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      this.send(conn, {
        jsonrpc: '2.0',
        id: null,
        error: { code: RPC_ERRORS.parse, message: 'Parse error: each line must be one JSON-RPC message.' },
      });
      return;
    }
    const id = typeof msg?.id === 'number' || typeof msg?.id === 'string' ? msg.id : null;
    const fail = (code: number, message: string, data?: object): void =>
      this.send(conn, { jsonrpc: '2.0', id, error: { code, message, data } });
    if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string')
      return fail(RPC_ERRORS.invalidRequest, 'Invalid request: expected {"jsonrpc":"2.0","id":…,"method":…}.');
    const method = msg.method;
    if (!this.isMethod(method)) return fail(RPC_ERRORS.methodNotFound, `Unknown method "${method}".`);
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
    this.opts.activity.requestStarted();
    const rid = WRITE_METHODS.has(method) && typeof msg.rid === 'string' && msg.rid.length <= 100 ? msg.rid : undefined;
    const by: Provenance = rid ? { ...conn.provenance, rid } : conn.provenance;
    try {
      const result = rid
        ? await this.opts.recentWrites.answer(
            rid,
            () => this.dispatch(method, params, by, conn),
            () => this.againAfterRestart(method, params, by, conn),
          )
        : await this.dispatch(method, params, by, conn);
      if (id !== null) this.sendResult(conn, id, method, result, failWith);
      if (WRITE_METHODS.has(method)) {
        this.opts.written(method);
        this.changed(method);
      }
    } catch (err) {
      if (err instanceof MemoryError) return failWith(err);
      this.opts.log(`internal error in ${method}: ${(err as Error).stack ?? err}`);
      fail(RPC_ERRORS.internal, `Internal error in ${method}: ${(err as Error).message}`);
    } finally {
      this.opts.activity.requestEnded();
    }
  }
}
