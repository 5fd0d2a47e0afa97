/**
 * The memory service's side of team sync: pushes this memory's own events to the shared log in
 * the background and pulls everyone else's, in order, through Memory.applyRemote. A write never
 * waits for it: it is acknowledged once in the local journal. Server down: the loop retries with
 * backoff and the backlog waits in the journal; nothing is applied twice (origin, originSeq).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Memory, RemoteApplied } from '../core/memory/memory.js';
import type { MemoryEvent } from '../core/model/events.js';
import { SYNC_LIMITS } from '../core/model/limits.js';
import { writeFileDurably } from '../core/store/durable.js';
import { canonicalId, ensureOrigin, mapEventIds } from '../core/store/ids.js';
import { withoutPassword, type SyncConfig } from './config.js';
import { projectOf, ServerLog } from './server-log.js';

/** Where pulling resumes: the log it was read from and the last row applied. */
export const SYNC_STATE_FILE = 'sync-state.json';

export interface SyncStatus {
  server: string;
  origin: string;
  author: string;
  connected: boolean;
  /** The highest seq of this memory the server holds. */
  pushed_seq: number;
  /** This memory's events not yet on the server. */
  backlog: number;
  /** The last row of the shared log applied here. */
  pulled_id: number;
  /** Rows of the shared log not yet applied here (as of the last look). */
  behind: number;
  last_push?: string;
  last_pull?: string;
  last_error?: string;
}

export class SyncLoop {
  private server?: ServerLog;
  private readonly origin: string;
  private pushed = 0;
  private pending: MemoryEvent[] = [];
  private read = { position: 0, generation: -1 };
  private pulled = 0;
  private logId?: string;
  private head = 0;
  private running = false;
  private again = false;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private retryMs: number = SYNC_LIMITS.retryMinMs;
  private lastPush?: string;
  private lastPull?: string;
  private lastError?: string;

  constructor(
    private readonly memory: Memory,
    private readonly cfg: SyncConfig,
    private readonly log: (msg: string) => void,
    private readonly onApplied: (r: RemoteApplied) => void,
  ) {
    this.origin = memory.origin ?? ensureOrigin(memory.folder);
    const state = readState(memory.folder);
    this.logId = state.logId;
    this.pulled = state.pulled;
  }

  start(): void {
    this.kick();
  }

  /** Something may be new (a local write, a wake-up from the server): run soon. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), 0);
  }

  status(): SyncStatus {
    if (!this.running) this.readTail();
    return {
      server: withoutPassword(this.cfg.connectionString),
      origin: this.origin,
      author: this.cfg.author,
      connected: this.server !== undefined,
      pushed_seq: this.pushed,
      backlog: this.pending.length,
      pulled_id: this.pulled,
      behind: Math.max(0, this.head - this.pulled),
      ...(this.lastPush ? { last_push: this.lastPush } : {}),
      ...(this.lastPull ? { last_pull: this.lastPull } : {}),
      ...(this.lastError ? { last_error: this.lastError } : {}),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    // A server gone silent must not hold up the service's exit.
    await Promise.race([this.server?.close(), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.server = undefined;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        await this.connect();
        await this.pushAll();
        await this.pullAll();
      } while (this.again && !this.closed);
      this.retryMs = SYNC_LIMITS.retryMinMs;
      this.lastError = undefined;
      this.schedule(SYNC_LIMITS.pollMs);
    } catch (err) {
      const message = (err as Error).message || String(err);
      if (this.lastError !== message) this.log(`sync: ${message}; retrying (writes wait in the journal)`);
      this.lastError = message;
      await this.server?.close();
      this.server = undefined;
      this.schedule(this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, SYNC_LIMITS.retryMaxMs);
    } finally {
      this.running = false;
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), ms);
    this.timer.unref();
  }

  private async connect(): Promise<void> {
    if (this.server) return;
    const server = await ServerLog.connect(
      this.cfg,
      (origin) => {
        if (origin !== this.origin) this.kick();
      },
      (err) => {
        this.lastError = err.message;
        if (this.server === server) this.server = undefined;
      },
    );
    if (this.logId !== server.logId) {
      // A log this memory has not read (first connection, or the database was replaced): from the start.
      if (this.logId !== undefined) this.log(`sync: the server's log is new (${server.logId}); reading it from the start`);
      this.logId = server.logId;
      this.pulled = 0;
      saveState(this.memory.folder, { logId: this.logId, pulled: 0 });
    }
    this.pushed = await server.pushedSeq(this.origin);
    // Re-read what is pending against what the server holds: it is the judge of what arrived.
    this.read = { position: 0, generation: -1 };
    this.pending = [];
    this.server = server;
    this.log(`sync: connected to ${withoutPassword(this.cfg.connectionString)} as ${this.cfg.author} (memory ${this.origin})`);
  }

  /** This memory's own events (no origin) past what the server holds, from where the journal was last read. */
  private readTail(): void {
    const from = this.memory.journalGeneration === this.read.generation ? this.read.position : 0;
    if (from === 0) this.pending = [];
    const { events, position, generation } = this.memory.journalFrom(from);
    this.read = { position, generation };
    for (const e of events) if (e.origin === undefined && e.seq > this.pushed) this.pending.push(e);
  }

  private async pushAll(): Promise<void> {
    this.readTail();
    while (this.pending.length > 0 && this.server) {
      const batch = this.pending.slice(0, SYNC_LIMITS.batch);
      const shared = batch.filter((e) => this.shares(e)).map((e) => this.travelling(e));
      await this.server.push(this.origin, shared);
      this.pushed = batch[batch.length - 1]!.seq;
      this.pending.splice(0, batch.length);
      this.lastPush = new Date().toISOString();
    }
  }

  private async pullAll(): Promise<void> {
    for (;;) {
      if (!this.server) return;
      const rows = await this.server.pull(this.origin, this.pulled, SYNC_LIMITS.batch);
      if (rows.length === 0) break;
      const applied = this.memory.applyRemote(rows.map((r) => r.event));
      this.pulled = rows[rows.length - 1]!.id;
      saveState(this.memory.folder, { logId: this.logId!, pulled: this.pulled });
      this.lastPull = new Date().toISOString();
      if (applied.applied > 0) this.onApplied(applied);
    }
    this.head = this.server ? await this.server.head() : this.head;
    // What was just applied is in the journal too: skip it when looking for own events.
    this.readTail();
  }

  /** Whether an own event leaves this memory: everything, or only the projects chosen (and, if asked, the personal). */
  private shares(e: MemoryEvent): boolean {
    if (!this.cfg.projects) return true;
    // A forget removes the entity everywhere it was shared; it carries names and ids, no text.
    if (e.type === 'entity.forget') return true;
    const project = projectOf(e) ?? this.factProject(e);
    return project === null ? this.cfg.personal : this.cfg.projects.includes(project);
  }

  /** Evidence, corrections and anchors name a fact, not a project: they go where the fact went. */
  private factProject(e: MemoryEvent): string | null {
    const id =
      e.type === 'relationship.evidence' || e.type === 'relationship.correct' ? e.id : e.type === 'anchors.set' ? e.target : undefined;
    if (id === undefined || !id.startsWith('rel_')) return null;
    return this.memory.factProject(id) ?? null; // a fact forgotten since has nothing left to share
  }

  /** The event as it travels: old-style ids gain this memory's origin, and the author is named. */
  private travelling(e: MemoryEvent): MemoryEvent {
    const moved = mapEventIds(e, (_prefix, id) => canonicalId(id, this.origin));
    return { ...moved, by: { ...e.by, author: e.by.author ?? this.cfg.author } };
  }
}

function readState(folder: string): { logId?: string; pulled: number } {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(folder, SYNC_STATE_FILE), 'utf8')) as { logId?: string; pulled?: number };
    return { logId: typeof s.logId === 'string' ? s.logId : undefined, pulled: Number(s.pulled) || 0 };
  } catch {
    return { pulled: 0 };
  }
}

function saveState(folder: string, s: { logId: string; pulled: number }): void {
  writeFileDurably(path.join(folder, SYNC_STATE_FILE), Buffer.from(JSON.stringify(s) + '\n'));
}
