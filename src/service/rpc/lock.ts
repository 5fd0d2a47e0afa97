/**
 * One service per memory folder. The lock file holds the owner's pid, its start time and a secret
 * nonce; a lock whose owner is dead (crashed, SIGKILLed, a zombie) or whose pid now names another
 * process is stale and taken over, so a crash never locks a memory out.
 */
import * as fs from 'node:fs';
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
 * zombie is dead and a pid started at another time is someone else; a lock without a start time
 * (an older version's) counts only if the pid runs a service script. Elsewhere: the pid exists.
 */
export function isLiveOwner(holder: LockHolder): boolean {
  if (!hasProcFs()) return isAlive(holder.pid);
  const info = processInfo(holder.pid);
  if (!info || info.zombie) return false;
  if (holder.ticks !== undefined) return info.startTicks === holder.ticks;
  return info.cmdline.some((arg) => /service\.js$/.test(arg));
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
    let fd: number | undefined;
    try {
      fd = fs.openSync(path, 'wx', 0o600);
      fs.writeSync(fd, JSON.stringify(mine));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return { acquired: true, holder: mine };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A full disk: leave no empty lock behind for the next contender to puzzle over.
        if (fd !== undefined) {
          try {
            fs.closeSync(fd);
          } catch {
            // Closed already, or the close failed as well: the lock goes either way.
          }
          fs.rmSync(path, { force: true });
        }
        throw err;
      }
    }
    const seen = readText(path);
    const holder = readLock(path);
    if (holder && holder.pid !== process.pid && isLiveOwner(holder)) return { acquired: false, holder };
    // Stale (its owner is gone) or half-written by a contender that died: remove and try again.
    // A holder mid-write has an unreadable file for microseconds; wait a moment before judging it.
    if (!holder) sleepMs(20);
    if (!holder && readLock(path)) continue;
    removeStale(path, seen);
  }
  const holder = readLock(path);
  return holder ? { acquired: false, holder } : { acquired: false, holder: { pid: -1, started: '' } };
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
