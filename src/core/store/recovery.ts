/**
 * Start-up after damage: what to trust when the snapshot and the journal disagree, what to keep
 * aside, and the note that tells the person what happened. The journal stays the source of truth
 * whenever it still holds everything the snapshot does; when it lost part of it (cut short,
 * deleted, overwritten) the snapshot is kept and a fresh journal continues from it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { MemoryEvent } from '../model/events.js';
import { syncDir, writeFileDurably } from './durable.js';
import { Journal } from './journal.js';
import { all, type Database } from './sqlite.js';

const RECOVERY_FILE = 'recovery.json';
/** Beside the snapshot: its checksum, and the previous one's (a crash between the two writes). */
const CHECK_SUFFIX = '.check';

const checksumOf = (bytes: Uint8Array): number | undefined => (typeof zlib.crc32 === 'function' ? zlib.crc32(bytes) : undefined);

/**
 * Writes the snapshot with its checksum. The checksum goes first and keeps the previous one, so
 * a crash between the two writes leaves a snapshot that still matches.
 */
export function writeSnapshot(file: string, bytes: Uint8Array): void {
  const crc = checksumOf(bytes);
  const before = readCheck(file);
  if (crc !== undefined) {
    const previous = before?.crc32[0];
    writeFileDurably(file + CHECK_SUFFIX, Buffer.from(JSON.stringify({ crc32: previous === undefined ? [crc] : [crc, previous] })));
  }
  try {
    writeFileDurably(file, bytes);
  } catch (err) {
    // The snapshot on disk is still the previous one: its checksum must stay first.
    try {
      if (before) writeFileDurably(file + CHECK_SUFFIX, Buffer.from(JSON.stringify(before)));
    } catch {
      // It still lists the previous checksum second, which the snapshot on disk matches.
    }
    throw err;
  }
}

/**
 * Fails unless the loaded snapshot is whole. Its stored checksum decides when there is one (a
 * page check of a large snapshot costs seconds at every start); without one, SQLite checks pages.
 */
export function verifySnapshot(file: string, bytes: Uint8Array, db: Database): void {
  const stored = readCheck(file);
  const crc = checksumOf(bytes);
  if (stored && crc !== undefined) {
    if (!stored.crc32.includes(crc)) throw new Error('it is damaged (its checksum does not match)');
    return;
  }
  checkIntegrity(db);
}

function readCheck(file: string): { crc32: number[] } | undefined {
  try {
    const check = JSON.parse(fs.readFileSync(file + CHECK_SUFFIX, 'utf8')) as { crc32: number[] };
    return Array.isArray(check.crc32) ? check : undefined;
  } catch {
    return undefined;
  }
}

/** Fails unless SQLite finds the database's pages consistent (a damaged snapshot is rebuilt). */
export function checkIntegrity(db: Database): void {
  const rows = all(db, 'PRAGMA quick_check');
  const problems = rows.map((r) => String(Object.values(r)[0])).filter((v) => v !== 'ok');
  if (problems.length > 0 || rows.length === 0)
    throw new Error(`it is damaged (${problems.slice(0, 3).join('; ') || 'no answer from quick_check'})`);
}

export interface JournalVerdict {
  /** The journal holds everything the snapshot does (e.g. a forget cut short): rebuild from it. */
  covers: boolean;
  /** Events newer than the snapshot that the journal still has, to apply on top of it. */
  newer: MemoryEvent[];
  corruptLines: number;
  lastSeq: number;
}

/**
 * Reads the whole journal when it does not line up with the snapshot. It covers the snapshot
 * when it is whole (no unreadable line) and reaches at least the snapshot's last event; a journal
 * cut short, deleted or damaged does not, and rebuilding from it would lose what the snapshot has.
 */
export function compareWithSnapshot(journal: Journal, snapshotSeq: number): JournalVerdict {
  const { events, corruptLines } = journal.readFrom(0);
  const lastSeq = events.reduce((max, e) => Math.max(max, e.seq), 0);
  return {
    covers: corruptLines === 0 && events.length > 0 && lastSeq >= snapshotSeq,
    newer: events.filter((e) => e.seq > snapshotSeq),
    corruptLines,
    lastSeq,
  };
}

/**
 * Moves a journal that lost part of the snapshot aside (journal.jsonl.damaged-<time>) and opens
 * a fresh one. Call only after the snapshot was rewritten to cover position 0 of the fresh one.
 * Returns the new journal and what to tell the person.
 */
export function setJournalAside(
  journal: Journal,
  verdict: JournalVerdict,
  snapshotSeq: number,
  log: (msg: string) => void,
): { journal: Journal; note: string } {
  const size = journal.position;
  journal.close();
  let aside: string | undefined;
  if (size > 0) {
    aside = `${journal.path}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(journal.path, aside);
    syncDir(journal.path);
  }
  const fresh = Journal.open(journal.path, log);
  const state =
    size === 0
      ? 'missing or empty'
      : `damaged (${verdict.corruptLines} unreadable line(s); it reaches event ${verdict.lastSeq}, the snapshot ${snapshotSeq})`;
  const note =
    `${path.basename(journal.path)} was ${state}: kept the snapshot` +
    (verdict.newer.length ? ` and ${verdict.newer.length} newer event(s) from the journal` : '') +
    (aside ? `; the damaged journal is kept as ${path.basename(aside)}` : '') +
    '; a fresh journal continues the sequence.' +
    (verdict.corruptLines ? ' What the unreadable lines held after the snapshot is lost.' : '');
  return { journal: fresh, note };
}

/** Remembers what start-up recovered (already logged), for `status` to show until the next recovery. */
export function recordRecovery(folder: string, note: string, log: (msg: string) => void): void {
  try {
    writeFileDurably(path.join(folder, RECOVERY_FILE), Buffer.from(JSON.stringify({ at: new Date().toISOString(), note }) + '\n'));
  } catch (err) {
    log(`could not record the recovery note: ${(err as Error).message}`);
  }
}

/** The last recovery, as `status` shows it: `{ recovered }`, or nothing when there was none. */
export function lastRecovery(folder: string): { recovered?: string } {
  try {
    const { at, note } = JSON.parse(fs.readFileSync(path.join(folder, RECOVERY_FILE), 'utf8')) as { at: string; note: string };
    return { recovered: `${at}: ${note}` };
  } catch {
    return {};
  }
}

/**
 * Removes temp files that a crash left mid-write (writeFileDurably's `<file>.tmp-<pid>-<hex>`):
 * a snapshot's may still hold text that was later forgotten. Call while holding the folder's lock.
 */
export function removeLeftovers(folder: string, log: (msg: string) => void): void {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names.filter((n) => /\.tmp-\d+-[0-9a-f]{8}$/.test(n))) {
    try {
      fs.rmSync(path.join(folder, name), { force: true });
      log(`removed ${name}, left by a write a crash cut short`);
    } catch (err) {
      log(`could not remove ${name}: ${(err as Error).message}`);
    }
  }
}
