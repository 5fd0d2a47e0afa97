/**
 * The one way every surface reaches a memory: connect to its service (starting it, detached, if
 * none runs), say which surface we are, and call methods. A request that finds the service gone
 * starts it again and is retried once.
 */
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { MemoryError, type ErrorCode } from '../../core/model/errors.js';
import { messageTooBig, overMessageLimit } from './message-limit.js';
import { isAlive, isLiveOwner, ownerProven, readLock } from './lock.js';
import { ensureMemoryFolder, lockPath, logPath, socketPath } from './paths.js';
import { newChallenge } from './proof.js';
import { ServiceStart, START_FD, START_FD_ENV } from './service-start.js';
import { VERSION } from './version.js';
import {
  LineReader,
  WRITE_METHODS,
  type ChangedNotification,
  type Method,
  type ParamsOf,
  type ResultOf,
  type Surface,
} from './protocol.js';

/**
 * V8 settings for the service: --expose-gc so it can collect right after a snapshot (server.ts); a
 * small nursery and --optimize-for-size, because a service beside the editor all day is judged by
 * its resident memory, not by the few ms a query pays for it.
 */
const SERVICE_NODE_FLAGS = ['--expose-gc', '--max-semi-space-size=4', '--optimize-for-size'];

/**
 * glibc malloc settings for the service (a setting the user exported wins): two arenas instead of
 * one per thread, and fixed mmap/trim thresholds so the model's large buffers are mapped and given
 * back on their own instead of leaving holes in the main heap.
 */
const MALLOC_TUNING: Record<string, string> = {
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? String(1 << 20),
  MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? String(4 << 20),
};

export interface ClientOptions {
  memory: string;
  surface: Surface;
  /** The project this client works in (null: the person's global memory); absent: none known. */
  project?: string | null;
  /** The workspace root (absolute) that project was derived from: code anchors are taken and checked there. */
  workspace?: string;
  /** Start the service when none answers (default true). */
  autostart?: boolean;
  /** The service bundle to start; defaults to service.js beside this bundle. */
  serviceScript?: string;
  /** How long to wait for a starting service to answer. */
  startTimeoutMs?: number;
  log?: (msg: string) => void;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** The connection dropped before an answer came: the service died or was stopped. */
class ServiceGone extends Error {}

export class MemoryClient extends EventEmitter {
  private socket?: net.Socket;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private connecting?: Promise<void>;
  private closed = false;

  private constructor(private readonly opts: ClientOptions) {
    super();
  }

  static async connect(opts: ClientOptions): Promise<MemoryClient> {
    const client = new MemoryClient(opts);
    await client.ensureConnected();
    return client;
  }

  get memory(): string {
    return this.opts.memory;
  }

  /**
   * Calls a service method; if the service is gone, starts it and retries once. A write carries a
   * request id, the same on the retry, so a write that landed before the answer was lost is not
   * applied twice.
   */
  async call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    const rid = WRITE_METHODS.has(method) ? crypto.randomUUID() : undefined;
    try {
      await this.ensureConnected();
      return await this.send(method, params, rid);
    } catch (err) {
      if (!(err instanceof ServiceGone) || this.closed || method === 'shutdown') throw err;
      this.opts.log?.(`memory service went away during ${method}; restarting it and retrying once`);
      await this.ensureConnected();
      return await this.send(method, params, rid);
    }
  }

  onChanged(listener: (n: ChangedNotification) => void): () => void {
    this.on('changed', listener);
    return () => this.off('changed', listener);
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = undefined;
  }

  private ensureConnected(): Promise<void> {
    if (this.closed) return Promise.reject(new MemoryError('unavailable', 'This memory client is closed.'));
    if (this.socket && !this.socket.destroyed) return Promise.resolve();
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Connects and says hello, starting the service if none answers. A dying service can still
   * accept a connection for a moment and then drop it; that counts as "none answers" and we
   * try again, a few times, before giving up.
   */
  private async open(): Promise<void> {
    let replacedStale = false;
    for (let attempt = 1; ; attempt++) {
      this.attach(await this.connectOrStart());
      try {
        const challenge = newChallenge();
        const { project, workspace } = this.opts;
        const hello = await this.send('hello', { surface: this.opts.surface, challenge, project, workspace });
        if (!ownerProven(lockPath(this.opts.memory), hello, challenge)) {
          // Whatever listens there cannot show the owner's secret: tell it nothing more.
          this.socket?.destroy();
          if (attempt < 3) throw new ServiceGone('The listener did not prove it is the memory service.');
          throw new MemoryError(
            'unavailable',
            `The process answering on ${this.socketFile()} is not the memory service of ${this.opts.memory}: it could not prove it owns the folder.`,
            'Nothing was sent to it. Stop whatever listens there (or remove the socket), then try again.',
          );
        }
        if (!replacedStale && isOlder(hello.version, VERSION)) {
          // A service left running by an older version (an upgrade within its idle period) may
          // not know our methods: stop it and start ours. Only older ones, so two versions in use
          // at once do not take turns stopping each other's service.
          replacedStale = true;
          this.opts.log?.(`the memory service runs version ${hello.version}, this client ${VERSION}: restarting it`);
          await this.send('shutdown', {}).catch(() => undefined);
          this.socket?.destroy();
          await waitUntilGone(hello.pid);
          continue;
        }
        this.emit('connected');
        return;
      } catch (err) {
        if (!(err instanceof ServiceGone) || attempt >= 3) throw err;
        await delay(100 * attempt);
      }
    }
  }

  /** Where the owner said it listens (its environment may differ from ours), else where it would. */
  private socketFile(): string {
    return readLock(lockPath(this.opts.memory))?.socket ?? socketPath(this.opts.memory);
  }

  private async connectOrStart(): Promise<net.Socket> {
    let socket = await tryConnect(this.socketFile());
    if (socket) return socket;
    if (this.opts.autostart === false) {
      throw new MemoryError(
        'unavailable',
        `No memory service is running for ${this.opts.memory}.`,
        'Start it with `recall service start`.',
      );
    }
    let started: ServiceStart | undefined;
    let waitedOn: number | undefined;
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 30_000);
    for (let starts = 0; Date.now() < deadline;) {
      // An owner still opening the memory holds the lock but does not listen yet: wait for it
      // rather than start another that would step aside, or take over once the owner is gone.
      const holder = readLock(lockPath(this.opts.memory));
      const ownerRuns = holder !== undefined && isLiveOwner(holder);
      if (ownerRuns) waitedOn = holder.pid;
      if (!ownerRuns && starts < 3 && (!started || started.outcome === 'stepped-aside')) {
        starts++;
        started = this.startService();
      }
      await delay(50);
      socket = await tryConnect(this.socketFile());
      if (socket) return (started?.detach(), socket);
      if (started?.outcome === 'failed') {
        throw new MemoryError(
          'unavailable',
          `The memory service for ${this.opts.memory} could not start: ${started.why()}`,
          `See ${logPath(this.opts.memory)}.`,
        );
      }
    }
    started?.detach();
    if (!started && waitedOn !== undefined) {
      throw new MemoryError(
        'unavailable',
        `The memory service for ${this.opts.memory} (pid ${waitedOn}) holds the folder but did not answer in time.`,
        `See ${logPath(this.opts.memory)}; if it hangs, \`recall service stop\` ends it.`,
      );
    }
    throw new MemoryError(
      'unavailable',
      `The memory service for ${this.opts.memory} did not start in time.`,
      `See ${logPath(this.opts.memory)} for why.`,
    );
  }

  private startService(): ServiceStart {
    const script = this.opts.serviceScript ?? path.join(__dirname, 'service.js');
    if (!fs.existsSync(script)) {
      throw new MemoryError('unavailable', `The memory service program is missing (${script}).`, 'Build it with `npm run build`.');
    }
    ensureMemoryFolder(this.opts.memory);
    const log = fs.openSync(logPath(this.opts.memory), 'a', 0o600);
    const logStart = fs.fstatSync(log).size;
    this.opts.log?.(`starting the memory service for ${this.opts.memory}`);
    const reportPipe = process.platform !== 'win32';
    // process.execPath is Electron inside desktop VS Code: ELECTRON_RUN_AS_NODE makes it plain Node.
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, script, '--memory', this.opts.memory], {
      detached: true,
      stdio: reportPipe ? ['ignore', log, log, 'pipe'] : ['ignore', log, log],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...MALLOC_TUNING, ...(reportPipe ? { [START_FD_ENV]: String(START_FD) } : {}) },
      windowsHide: true,
    });
    child.unref();
    fs.closeSync(log);
    return new ServiceStart(child, logPath(this.opts.memory), logStart);
  }

  private attach(socket: net.Socket): void {
    this.socket = socket;
    const reader = new LineReader(
      (line) => this.receive(line),
      () => {
        // Not "the service went away": sending the same request again would get the same answer.
        this.failAll(
          new MemoryError('internal', 'The memory service sent an answer over the message size limit.', 'Ask for less at a time.'),
        );
        socket.destroy();
      },
    );
    socket.on('data', (chunk) => reader.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.socket === socket) this.socket = undefined;
      const pending = [...this.pending.values()];
      this.pending.clear();
      for (const p of pending) p.reject(new ServiceGone('The memory service connection closed.'));
      if (!this.closed) this.emit('disconnected');
    });
  }

  private failAll(err: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(err);
  }

  private receive(line: string): void {
    let msg: {
      id?: number;
      result?: unknown;
      error?: { code: number; message: string; data?: { code?: ErrorCode; hint?: string } };
      method?: string;
      params?: unknown;
    };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.method === 'changed') {
      this.emit('changed', msg.params as ChangedNotification);
      return;
    }
    // An error tied to no request: the service refused a message it could not read (too large) and closes.
    if (msg.id === null && msg.error) {
      this.failAll(new MemoryError(msg.error.data?.code ?? 'invalid_input', msg.error.message, msg.error.data?.hint));
      return;
    }
    const pending = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
    if (!pending) return;
    this.pending.delete(msg.id!);
    if (msg.error) pending.reject(new MemoryError(msg.error.data?.code ?? 'internal', msg.error.message, msg.error.data?.hint));
    else pending.resolve(msg.result);
  }

  private send<M extends Method>(method: M, params: ParamsOf<M>, rid?: string): Promise<ResultOf<M>> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return Promise.reject(new ServiceGone('Not connected to the memory service.'));
    const id = this.nextId++;
    const line = JSON.stringify({ jsonrpc: '2.0', id, method, params, rid });
    const bytes = Buffer.byteLength(line);
    // Refused here, not by the service closing the connection (which would look like it went away, and be resent).
    if (overMessageLimit(bytes)) return Promise.reject(messageTooBig('request', method, bytes));
    return new Promise((resolve, reject) => {
      // The one place a wire result becomes its type: the service answers each method with ResultOf it.
      this.pending.set(id, { resolve: (result) => resolve(result as ResultOf<M>), reject });
      socket.write(line + '\n');
    });
  }
}

function tryConnect(sock: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(sock);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether version a is older than b ("dev" builds compare as neither). */
export function isOlder(a: string, b: string): boolean {
  if (a === 'dev' || b === 'dev') return false;
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

async function waitUntilGone(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await delay(50);
}
