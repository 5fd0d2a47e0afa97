/**
 * One service per memory folder. The lock file holds the owner's pid, its start time and a secret
 * nonce; a lock whose owner is dead (crashed, SIGKILLed, a zombie) or whose pid now names another
 * process is stale and taken over, so a crash never locks a memory out.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { hasProcFs, newNonce, processInfo, proofMatches } from './proof.js';

export interface LockHolder {
  pid: number;
  started: string;
  /** Secret the owner proves it knows when asked on its socket (see proof.ts). */
  nonce?: string;
  /** The owner's start time in clock ticks since boot (Linux): tells a reused pid apart. */
  ticks?: number;
  /** Where the owner listens, so clients with another environment still find it. */
  socket?: string;
}

export function readLock(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(fs.readFileSync(path, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process runs: it exists and is not a zombie (killed, not yet reaped by its parent). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !processInfo(pid)?.zombie;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lock's holder is still the process that wrote it. Where /proc tells (Linux), a
 * zombie is dead and a pid started at another time is someone else. Where nothing that exact
 * tells (no /proc, or an older version's lock without a start time), a lock dated before the
 * machine last booted is stale; otherwise the pid must exist, and on Linux run a service script.
 */
export function isLiveOwner(holder: LockHolder): boolean {
  if (!hasProcFs()) return !fromEarlierBoot(holder) && isAlive(holder.pid);
  const info = processInfo(holder.pid);
  if (!info || info.zombie) return false;
  if (holder.ticks !== undefined) return info.startTicks === holder.ticks;
  return !fromEarlierBoot(holder) && info.cmdline.some((arg) => /service\.js$/.test(arg));
}

/** How long before the boot a lock must be dated to count as older: clocks are set after boot. */
const BOOT_MARGIN_MS = 5 * 60_000;

/** A pid reused after a reboot (common on macOS) would otherwise lock the memory out. */
function fromEarlierBoot(holder: LockHolder): boolean {
  const started = Date.parse(holder.started);
  return Number.isFinite(started) && started < Date.now() - os.uptime() * 1000 - BOOT_MARGIN_MS;
}

/** Takes the lock for this process; returns the live holder instead when someone else has it. */
export function acquireLock(
  path: string,
  extra: { socket?: string } = {},
): { acquired: true; holder: LockHolder } | { acquired: false; holder: LockHolder } {
  for (let attempt = 0; attempt < 50; attempt++) {
    const mine: LockHolder = {
      pid: process.pid,
      started: new Date().toISOString(),
      nonce: newNonce(),
      ticks: processInfo(process.pid)?.startTicks,
      ...extra,
    };
    if (createLock(path, JSON.stringify(mine))) return { acquired: true, holder: mine };
    const seen = readText(path);
    const holder = readLock(path);
    if (holder && holder.pid !== process.pid && isLiveOwner(holder)) return { acquired: false, holder };
    // Stale (its owner is gone) or half-written by a contender that died: remove and try again.
    // Where locks are written in place (no hard links), one mid-write is unreadable for a moment.
    if (!holder) sleepMs(20);
    if (!holder && readLock(path)) continue;
    removeStale(path, seen);
  }
  const holder = readLock(path);
  return holder ? { acquired: false, holder } : { acquired: false, holder: { pid: -1, started: '' } };
}

/**
 * Creates the lock whole or not at all: written aside, then hard-linked into place, which fails
 * if a lock exists. A contender descheduled mid-write can then never look like one that died.
 * Where the file system has no hard links, an exclusive create written in place.
 */
function createLock(path: string, text: string, tries = 3): boolean {
  // durable.ts's temp name, which the start-up sweep removes when a crash leaves one.
  const aside = `${path}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    writeSynced(aside, text);
    fs.linkSync(aside, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // The owner's start-up sweep of temp files took ours between writing and linking.
    if (code === 'ENOENT' && tries > 1) return createLock(path, text, tries - 1);
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return createInPlace(path, text);
    throw err;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function createInPlace(path: string, text: string): boolean {
  try {
    writeSynced(path, text);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Creates, writes, fsyncs and closes a new file; on failure (a full disk) leaves no empty one
 * behind. Like core/store/durable.ts, which the extension host (a client of the lock) must not load.
 */
function writeSynced(file: string, text: string): void {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } catch (err) {
    try {
      fs.closeSync(fd);
    } catch {
      // The close failed as well: the file goes either way.
    }
    fs.rmSync(file, { force: true });
    throw err;
  }
  fs.closeSync(fd);
}

/**
 * Whether the process that answered hello on the socket owns the folder: it returned the proof
 * of the lock's nonce for our challenge. A lock without a nonce (an older version's) proves
 * nothing either way and is taken on trust, as before; no lock at all means nobody owns it.
 */
export function ownerProven(path: string, hello: { pid: number; proof?: string }, challenge: string): boolean {
  const holder = readLock(path);
  if (!holder) return false;
  if (!holder.nonce) return true;
  return holder.pid === hello.pid && proofMatches(holder.nonce, challenge, hello.proof);
}

/** Removes the lock only if this process holds it. */
export function releaseLock(path: string): void {
  if (readLock(path)?.pid === process.pid) {
    try {
      fs.unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Removes the lock only if it still holds what was judged stale, one contender at a time: two
 * contenders that both saw the dead owner must not both remove it, or the second would remove
 * the first one's fresh lock and two services would own the folder.
 */
function removeStale(path: string, seen: string | undefined): void {
  const mutex = `${path}.takeover`;
  try {
    fs.closeSync(fs.openSync(mutex, 'wx', 0o600));
  } catch {
    // Another contender is taking over; a mutex left by one that died is cleared after a while.
    const age = Date.now() - (fs.statSync(mutex, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 2_000) fs.rmSync(mutex, { force: true });
    sleepMs(20);
    return;
  }
  try {
    if (readText(path) === seen) fs.rmSync(path, { force: true });
  } finally {
    fs.rmSync(mutex, { force: true });
  }
}

function readText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
