/**
 * One service per memory folder. The lock file holds the owner's pid; a lock whose owner is
 * dead (crashed, SIGKILLed) is stale and taken over, so a crash never locks a memory out.
 */
import * as fs from 'node:fs';

export interface LockHolder {
  pid: number;
  started: string;
}

export function readLock(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(fs.readFileSync(path, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock for this process; returns the live holder instead when someone else has it. */
export function acquireLock(path: string): { acquired: true } | { acquired: false; holder: LockHolder } {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = fs.openSync(path, 'wx', 0o600);
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, started: new Date().toISOString() }));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return { acquired: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(path);
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) return { acquired: false, holder };
    // Stale (its owner is gone) or half-written by a contender that died: remove and try again.
    // A holder mid-write has an unreadable file for microseconds; wait a moment before judging it.
    if (!holder) sleepMs(20);
    if (!holder && readLock(path)) continue;
    try {
      fs.unlinkSync(path);
    } catch {
      // Someone else removed it first; the next attempt decides.
    }
  }
  const holder = readLock(path);
  return holder ? { acquired: false, holder } : { acquired: false, holder: { pid: -1, started: '' } };
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

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
