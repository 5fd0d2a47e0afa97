/**
 * The graph and the journal kept in step: opening (a snapshot plus the journal's tail, or a full
 * replay), committing events to both, and writing snapshots. Memory's operations sit on top.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryConfig } from '../model/config.js';
import { LIMITS } from '../model/limits.js';
import type { EventBody, MemoryEvent, Provenance } from '../model/events.js';
import { FTS_TABLES, mergeIndexSegments } from '../store/fts.js';
import { Graph } from '../store/graph.js';
import { readOrigin } from '../store/ids.js';
import { getMeta } from '../store/meta.js';
import { JOURNAL_FILE } from '../model/folder-layout.js';
import { Journal } from '../store/journal.js';
import {
  compareWithSnapshot,
  recordRecovery,
  setJournalAside,
  verifySnapshot,
  writeSnapshot,
  type JournalVerdict,
} from '../store/recovery.js';
import { SCHEMA_VERSION } from '../store/schema.js';
import { atomically, forgetStatements, loadSqlJs, type Database } from '../store/sqlite.js';

export const SNAPSHOT_FILE = 'snapshot.sqlite';

/** Request ids kept across snapshots: far more than can be in flight when a service dies. */
const KEPT_REQUEST_IDS = 1000;

export interface OpenReport {
  rebuilt: boolean;
  replayed: number;
  reason?: string;
  /** Unreadable journal lines skipped by this replay (absent when none): what they held is lost. */
  skippedLines?: number;
  /** The request ids (Provenance.rid) of recent writes, oldest first (the snapshot's, then the replayed events'); absent when none. */
  requestIds?: string[];
}

export class JournaledGraph {
  private eventsSinceSnapshot: number;
  private indexCompacted = false;
  /** Recent writes' request ids, oldest first, written into each snapshot. */
  private requestIds: string[] = [];
  /** Journal position and file size at the last snapshot (what a busy service weighs a new one against). */
  private snapshotPosition = 0;
  private lastSnapshotBytes = 0;

  private constructor(
    readonly folder: string,
    readonly config: MemoryConfig,
    readonly db: Database,
    readonly graph: Graph,
    readonly journal: Journal,
    private readonly log: (msg: string) => void,
    readonly openReport: OpenReport,
  ) {
    this.eventsSinceSnapshot = openReport.replayed;
  }

  /** Loads the snapshot when it lines up with the journal (else rebuilds from the top) and replays what follows it. */
  static async open(folder: string, config: MemoryConfig, log: (msg: string) => void): Promise<JournaledGraph> {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const SQL = await loadSqlJs();
    let journal = Journal.open(path.join(folder, JOURNAL_FILE), log);
    const snapshotPath = path.join(folder, SNAPSHOT_FILE);

    let db: Database | undefined;
    let tail: MemoryEvent[] | undefined;
    let reason: string | undefined;
    // Set when the journal lost part of what the snapshot holds: the snapshot is kept instead.
    let kept: { verdict: JournalVerdict; seq: number } | undefined;
    const skipped = { lines: 0 };
    if (fs.existsSync(snapshotPath)) {
      try {
        const bytes = fs.readFileSync(snapshotPath);
        db = new SQL.Database(bytes);
        verifySnapshot(snapshotPath, bytes, db);
        const version = Graph.schemaVersion(db);
        if (version !== SCHEMA_VERSION) throw new Error(`its schema version is ${version}, this version reads ${SCHEMA_VERSION}`);
        const position = Number(getMeta(db, 'journal_position'));
        const seq = Number(getMeta(db, 'seq') ?? 0);
        if (position >= 0 && position <= journal.position) tail = readLogged(journal, position, log, skipped);
        if (!tail || (tail[0] && tail[0].seq !== seq + 1)) {
          const verdict = compareWithSnapshot(journal, seq);
          if (verdict.covers) throw new Error(tail ? 'it does not line up with the journal' : 'it covers more journal than exists');
          kept = { verdict, seq };
          tail = verdict.newer;
          skipped.lines = 0; // setting the journal aside says what its unreadable lines cost
        }
      } catch (err) {
        reason = `snapshot ${snapshotPath} is unusable (${(err as Error).message}); rebuilding it from the journal`;
        log(reason);
        if (!/schema version/.test(reason)) recordRecovery(folder, reason, log);
        db?.close();
        db = undefined;
        tail = undefined;
        kept = undefined;
        skipped.lines = 0;
      }
    }
    const rebuilt = db === undefined;
    if (!db) {
      db = new SQL.Database();
      Graph.createSchema(db);
    }
    const graph = new Graph(db, config);
    // Before replay: shared events name this memory's old ids as ep_<origin>_N.
    const origin = readOrigin(folder);
    if (origin) graph.setMeta('origin', origin);
    const events = tail ?? readLogged(journal, 0, log, skipped);
    atomically(db, () => graph.applyAll(events));
    if (kept) {
      // The snapshot first, covering none of the fresh journal: a crash before the journal is
      // set aside finds this same state again.
      graph.setMeta('journal_position', 0);
      writeSnapshot(snapshotPath, exportImage(db, graph));
      ({ journal, note: reason } = setJournalAside(journal, kept.verdict, kept.seq, log));
      log(`recovery: ${reason}`);
      recordRecovery(folder, reason, log);
    }
    // A snapshot covers the writes it holds, so it carries their request ids too (forget snapshots before it answers).
    const requestIds = [...new Set([...storedRequestIds(graph), ...events.flatMap((e) => (e.by.rid ? [e.by.rid] : []))])].slice(
      -KEPT_REQUEST_IDS,
    );
    const opened = new JournaledGraph(folder, config, db, graph, journal, log, {
      rebuilt,
      replayed: events.length,
      reason,
      ...(skipped.lines ? { skippedLines: skipped.lines } : {}),
      ...(requestIds.length ? { requestIds } : {}),
    });
    if (kept) opened.eventsSinceSnapshot = 0;
    opened.snapshotPosition = Number(graph.getMeta('journal_position') ?? 0);
    opened.lastSnapshotBytes = opened.snapshotBytes();
    opened.requestIds = requestIds;
    // Beyond the log: status shows it until the next recovery, after the snapshot stops replaying those lines.
    if (skipped.lines)
      recordRecovery(
        folder,
        `${skipped.lines} unreadable line(s) in ${JOURNAL_FILE} skipped on replay; what they held is not in the memory`,
        log,
      );
    return opened;
  }

  /**
   * Applies events inside a transaction, appends them to the journal (fsynced), then commits:
   * if the append fails nothing changes; once this returns the write is durable.
   */
  commit(bodies: EventBody[], by: Provenance): MemoryEvent[] {
    if (bodies.length === 0) return [];
    const at = new Date().toISOString();
    let seq = this.seq;
    const events = bodies.map((b) => ({ ...b, seq: ++seq, at, by }) as MemoryEvent);
    atomically(this.db, () => {
      this.graph.applyAll(events);
      this.journal.append(events);
    });
    this.eventsSinceSnapshot += events.length;
    if (by.rid) {
      this.requestIds.push(by.rid);
      if (this.requestIds.length > KEPT_REQUEST_IDS * 2) this.requestIds = this.requestIds.slice(-KEPT_REQUEST_IDS);
    }
    return events;
  }

  /**
   * Appends events another memory wrote (team sync), each with its origin and originSeq, and
   * applies them as a replay would; one already applied (by origin and originSeq) is skipped,
   * so pulling the same events twice, or again after a crash, changes nothing.
   */
  commitRemote(incoming: MemoryEvent[]): MemoryEvent[] {
    const seen = new Map<string, number>();
    let seq = this.seq;
    const events: MemoryEvent[] = [];
    for (const e of incoming) {
      if (e.origin === undefined || e.originSeq === undefined) continue;
      const applied = seen.get(e.origin) ?? this.graph.originSeq(e.origin);
      if (e.originSeq <= applied) continue;
      seen.set(e.origin, e.originSeq);
      events.push({ ...e, seq: ++seq });
    }
    if (events.length === 0) return [];
    atomically(this.db, () => {
      this.graph.applyAll(events);
      this.journal.append(events);
    });
    this.eventsSinceSnapshot += events.length;
    return events;
  }

  /**
   * Appends events a forget from the team erased and the person restored, as they were (origin
   * and originSeq kept, so they are neither pulled again nor pushed as this memory's own).
   */
  commitRestored(held: MemoryEvent[]): MemoryEvent[] {
    let seq = this.seq;
    const events = [...held].sort((a, b) => a.seq - b.seq).map((e) => ({ ...e, seq: ++seq }));
    if (events.length === 0) return [];
    atomically(this.db, () => {
      this.graph.applyAll(events);
      this.journal.append(events);
    });
    this.eventsSinceSnapshot += events.length;
    return events;
  }

  /** This memory's origin id (set when it is first shared), else undefined. */
  get origin(): string | undefined {
    return this.graph.getMeta('origin');
  }

  /** Position of the last event: grows with every write. */
  get seq(): number {
    return Number(this.graph.getMeta('seq') ?? 0);
  }

  get pendingSnapshotEvents(): number {
    return this.eventsSinceSnapshot;
  }

  /** So much journal since the last snapshot that replaying it would cost more than loading a snapshot. */
  get snapshotOverdue(): boolean {
    return this.journal.position - this.snapshotPosition >= Math.max(LIMITS.snapshotBacklogBytes, this.lastSnapshotBytes);
  }

  /** Something worth a snapshot: new events, or index work that would be lost on restart. */
  get snapshotDue(): boolean {
    return this.eventsSinceSnapshot > 0 || this.indexCompacted;
  }

  /** Merges the keyword indexes' segments for up to `budgetMs`; true when they are fully merged. */
  compactIndex(budgetMs: number): boolean {
    const deadline = Date.now() + budgetMs;
    for (const table of FTS_TABLES) {
      while (mergeIndexSegments(this.db, table)) {
        this.indexCompacted = true;
        if (Date.now() >= deadline) return false;
      }
    }
    return true;
  }

  /** Writes the snapshot atomically, recording the journal position it covers. Blocks; call when idle. */
  snapshot(): void {
    const started = Date.now();
    this.graph.setMeta('journal_position', this.journal.position);
    this.graph.setMeta('request_ids', JSON.stringify(this.requestIds.slice(-KEPT_REQUEST_IDS)));
    const bytes = exportImage(this.db, this.graph);
    writeSnapshot(path.join(this.folder, SNAPSHOT_FILE), bytes);
    this.snapshotPosition = this.journal.position;
    this.lastSnapshotBytes = bytes.length;
    this.log(`snapshot: ${this.eventsSinceSnapshot} new event(s), ${(bytes.length / 1e6).toFixed(1)} MB in ${Date.now() - started} ms`);
    this.eventsSinceSnapshot = 0;
    this.indexCompacted = false;
  }

  snapshotBytes(): number {
    const snapshotPath = path.join(this.folder, SNAPSHOT_FILE);
    return fs.existsSync(snapshotPath) ? fs.statSync(snapshotPath).size : 0;
  }

  close(opts: { snapshot?: boolean } = {}): void {
    if (opts.snapshot && this.eventsSinceSnapshot > 0) this.snapshot();
    this.journal.close();
    forgetStatements(this.db);
    this.db.close();
  }
}

/**
 * The database image for a snapshot. sql.js frees statements, drops create_function registrations
 * and temporary tables on export(): the search index arms itself again.
 */
function exportImage(db: Database, graph: Graph): Uint8Array {
  forgetStatements(db);
  const bytes = db.export();
  graph.index.rearm();
  return bytes;
}

function readLogged(journal: Journal, position: number, log: (msg: string) => void, skipped: { lines: number }): MemoryEvent[] {
  const { events, corruptLines } = journal.readFrom(position);
  skipped.lines += corruptLines;
  if (corruptLines > 0) log(`journal: skipped ${corruptLines} unreadable line(s) in ${journal.path}`);
  return events;
}

function storedRequestIds(graph: Graph): string[] {
  try {
    const ids: unknown = JSON.parse(graph.getMeta('request_ids') ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
