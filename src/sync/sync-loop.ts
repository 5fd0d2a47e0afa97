/**
 * The memory service's side of team sync: pushes this memory's own events to the shared log in
 * the background, signed with its key, and pulls everyone else's, in order, through
 * Memory.applyRemote once each row is judged (pulled.ts): a row that fails is quarantined and the
 * pull goes on. A write never waits for sync: it is acknowledged once in the local journal.
 * Server down: the loop retries with backoff and the backlog waits in the journal; nothing is
 * applied twice (origin, originSeq).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Memory, RemoteApplied } from '../core/memory/memory.js';
import type { MemoryEvent } from '../core/model/events.js';
import { SYNC_LIMITS } from '../core/model/limits.js';
import { writeFileDurably } from '../core/store/durable.js';
import { canonicalId, ensureOrigin, mapEventIds } from '../core/store/ids.js';
import { withoutPassword, type SyncConfig } from './config.js';
import { Pins, type MemberView } from './members.js';
import { applyPulled } from './apply-pulled.js';
import type { RawRow } from './pulled.js';
import { Quarantine, type QuarantineEntry } from './quarantine.js';
import { projectOf, ServerLog } from './server-log.js';
import { KEY_FILE, memberKey, verifyRow, type MemberKey } from './signing.js';

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
  /** Rows of the shared log refused here (bad signature, shape, size…), and the latest. */
  quarantined: number;
  last_quarantined?: QuarantineEntry;
  /** Rows under this memory's id that it did not write, removed from the server since the service started. */
  removed_forged: number;
  last_push?: string;
  last_pull?: string;
  last_error?: string;
}

interface SyncState {
  logId?: string;
  pulled: number;
  /** This memory's own rows on the server checked up to this seq (rows past it are checked at the next connection). */
  ownChecked: number;
}

export class SyncLoop {
  private server?: ServerLog;
  private readonly origin: string;
  private key?: MemberKey;
  private readonly pins: Pins;
  private readonly quarantine: Quarantine;
  private state: SyncState;
  private pushed = 0;
  private pending: MemoryEvent[] = [];
  private read = { position: 0, generation: -1 };
  private head = 0;
  private removedForged = 0;
  /** Set by trust: the next pull starts again from here (a pull under way must not overwrite it). */
  private rewindTo?: number;
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
    this.state = readState(memory.folder);
    this.pins = new Pins(memory.folder);
    this.quarantine = new Quarantine(memory.folder);
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
    const last = this.quarantine.latest();
    return {
      server: withoutPassword(this.cfg.connectionString),
      origin: this.origin,
      author: this.cfg.author,
      connected: this.server !== undefined,
      pushed_seq: this.pushed,
      backlog: this.pending.length,
      pulled_id: this.state.pulled,
      behind: Math.max(0, this.head - this.state.pulled),
      quarantined: this.quarantine.count,
      ...(last ? { last_quarantined: last } : {}),
      removed_forged: this.removedForged,
      ...(this.lastPush ? { last_push: this.lastPush } : {}),
      ...(this.lastPull ? { last_pull: this.lastPull } : {}),
      ...(this.lastError ? { last_error: this.lastError } : {}),
    };
  }

  /** The rows refused here, oldest first. */
  quarantined(): QuarantineEntry[] {
    return this.quarantine.list();
  }

  /** The team's members as this memory knows them: pinned keys, and keys it does not take without the person. */
  members(): MemberView[] {
    return this.pins.list();
  }

  /** The person trusts the key the server lists for `origin`; its refused rows are pulled again. */
  trust(origin: string): MemberView {
    const m = this.pins.trust(origin);
    const first = this.quarantine.firstOf(origin);
    if (first !== undefined) this.rewindTo = Math.min(this.rewindTo ?? Infinity, first - 1);
    this.kick();
    return this.pins.list().find((v) => v.origin === m.origin)!;
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
    this.key ??= memberKey(this.memory.folder);
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
    try {
      if (this.state.logId !== server.logId) {
        // A log this memory has not read (first connection, or the database was replaced): from the start.
        if (this.state.logId !== undefined) this.log(`sync: the server's log is new (${server.logId}); reading it from the start`);
        this.setState({ logId: server.logId, pulled: 0, ownChecked: 0 });
      }
      const registered = await server.register(this.origin, this.cfg.author, this.key.publicKey);
      if (registered.publicKey !== this.key.publicKey)
        throw new Error(
          `the server lists another key for memory ${this.origin} than this memory's (${path.join(this.memory.folder, KEY_FILE)}): ` +
            'nothing is pushed until that is settled (restore the key file, or ask whoever runs the server who changed it)',
        );
      if (registered.author !== this.cfg.author)
        throw new Error(
          `this memory is registered with the team as ${registered.author}, but sync.author is now ${this.cfg.author}: ` +
            `set it back (recall sync --postgres URL --author ${registered.author}); teammates know this memory by its first author`,
        );
      await this.checkOwnRows(server);
      // Re-read what is pending against what the server holds: it is the judge of what arrived.
      this.read = { position: 0, generation: -1 };
      this.pending = [];
      this.server = server;
    } catch (err) {
      await server.close();
      throw err;
    }
    this.log(`sync: connected to ${withoutPassword(this.cfg.connectionString)} as ${this.cfg.author} (memory ${this.origin})`);
  }

  /**
   * Rows under this memory's origin are its own only when its key signed them: others (a forged
   * row, one from before signing) are removed, so they neither hold this memory's seqs nor stop
   * its pushes. A signed row past this journal's end means the folder went back in time (restored
   * from an older copy): pushing then would reuse seqs the team has, so it stops and says so.
   */
  private async checkOwnRows(server: ServerLog): Promise<void> {
    let checked = this.state.ownChecked;
    for (;;) {
      const rows = await server.rowsOf(this.origin, checked, SYNC_LIMITS.batch);
      if (rows.length === 0) break;
      const forged = rows.filter((r) => !this.isOwn(r));
      if (forged.length) {
        await server.remove(forged.map((r) => r.id));
        this.removedForged += forged.length;
        this.log(
          `sync: removed ${forged.length} row(s) under this memory's id that it did not write (seq ${forged.map((r) => r.originSeq).join(', ')})`,
        );
      }
      checked = rows[rows.length - 1]!.originSeq;
    }
    this.pushed = await server.pushedSeq(this.origin);
    if (this.pushed > this.memory.seq)
      throw new Error(
        `the server holds this memory's events up to seq ${this.pushed}, but its journal ends at ${this.memory.seq}: ` +
          'was the memory folder restored from an older copy? Nothing is pushed, so no event of the team is overwritten',
      );
    this.setState({ ownChecked: this.pushed });
  }

  private isOwn(r: RawRow): boolean {
    return (
      r.body !== null &&
      r.author === this.cfg.author &&
      verifyRow(
        { origin: r.origin, originSeq: r.originSeq, author: r.author, body: r.body as Record<string, unknown> },
        r.signature,
        r.digests,
        this.key!.publicKey,
      )
    );
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
      const replaced = await this.server.push(this.origin, this.key!, this.cfg.author, shared, (r) => this.isOwn(r));
      if (replaced) {
        this.removedForged += replaced;
        this.log(`sync: replaced ${replaced} row(s) under this memory's id that it did not write`);
      }
      this.pushed = batch[batch.length - 1]!.seq;
      this.pending.splice(0, batch.length);
      this.lastPush = new Date().toISOString();
    }
  }

  private async pullAll(): Promise<void> {
    for (;;) {
      if (!this.server) return;
      if (this.rewindTo !== undefined) {
        this.setState({ pulled: Math.min(this.state.pulled, this.rewindTo) });
        this.rewindTo = undefined;
      }
      const rows = await this.server.pull(this.origin, this.state.pulled, SYNC_LIMITS.batch);
      if (rows.length === 0) break;
      const unknown = this.pins.unknown(rows.map((r) => r.origin));
      if (unknown.length) this.pins.learn(await this.server.members(unknown));
      const applied = applyPulled(this.memory, rows, {
        pins: this.pins,
        quarantine: this.quarantine,
        scope: { shares: (project) => this.sharesProject(project) },
        log: this.log,
      });
      this.quarantine.flush();
      this.setState({ pulled: rows[rows.length - 1]!.id });
      this.lastPull = new Date().toISOString();
      if (applied.applied > 0) this.onApplied(applied);
    }
    this.head = this.server ? await this.server.head() : this.head;
    // What was just applied is in the journal too: skip it when looking for own events.
    this.readTail();
  }

  /** Whether this memory shares what belongs to `project` (null: the person's own memory). */
  private sharesProject(project: string | null): boolean {
    if (!this.cfg.projects) return true;
    return project === null ? this.cfg.personal : this.cfg.projects.includes(project);
  }

  /** Whether an own event leaves this memory: everything, or only the projects chosen (and, if asked, the personal). */
  private shares(e: MemoryEvent): boolean {
    if (!this.cfg.projects) return true;
    // A forget removes the entity everywhere it was shared; it carries names and ids, no text.
    if (e.type === 'entity.forget') return true;
    return this.sharesProject(projectOf(e) ?? this.factProject(e));
  }

  /** Evidence, corrections and anchors name a fact, not a project: they go where the fact went. */
  private factProject(e: MemoryEvent): string | null {
    const id =
      e.type === 'relationship.evidence' ||
      e.type === 'relationship.correct' ||
      e.type === 'relationship.check' ||
      e.type === 'check.outcome' ||
      e.type === 'relationship.retract'
        ? e.id
        : e.type === 'anchors.set'
          ? e.target
          : undefined;
    if (id === undefined || !id.startsWith('rel_')) return null;
    return this.memory.factProject(id) ?? null; // a fact forgotten since has nothing left to share
  }

  /** The event as it travels: old-style ids gain this memory's origin, and the author is named. */
  private travelling(e: MemoryEvent): MemoryEvent {
    const moved = mapEventIds(e, (_prefix, id) => canonicalId(id, this.origin));
    return { ...moved, by: { ...e.by, author: this.cfg.author } };
  }

  private setState(change: Partial<SyncState>): void {
    this.state = { ...this.state, ...change };
    writeFileDurably(path.join(this.memory.folder, SYNC_STATE_FILE), Buffer.from(JSON.stringify(this.state) + '\n'));
  }
}

function readState(folder: string): SyncState {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(folder, SYNC_STATE_FILE), 'utf8')) as Partial<SyncState>;
    return {
      logId: typeof s.logId === 'string' ? s.logId : undefined,
      pulled: Number(s.pulled) || 0,
      ownChecked: Number(s.ownChecked) || 0,
    };
  } catch {
    return { pulled: 0, ownChecked: 0 };
  }
}
