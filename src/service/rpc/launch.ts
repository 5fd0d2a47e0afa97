/** Asking about, and stopping, the service of a memory folder without starting one. */
import { MemoryError } from '../../core/model/errors.js';
import { isLiveOwner, readLock, type LockHolder } from './lock.js';
import { MemoryClient } from './client.js';
import { lockPath } from './paths.js';

/** The pid of the live service owning this folder, if any. */
export function runningServicePid(memory: string): number | undefined {
  const holder = readLock(lockPath(memory));
  return holder && isLiveOwner(holder) ? holder.pid : undefined;
}

/**
 * Asks the service to stop (it snapshots first); signals it if it does not. Returns whether one
 * ran. Only a process that proved it is the owner is ever signalled: by answering on the socket
 * with the lock's secret, or (Linux) by being the very process that wrote the lock, not merely
 * one that has its pid now.
 */
export async function stopService(memory: string, timeoutMs = 15_000): Promise<boolean> {
  const holder = readLock(lockPath(memory));
  if (!holder || !isLiveOwner(holder)) return false;
  try {
    // The client checks the proof before it sends anything else.
    const client = await MemoryClient.connect({ memory, surface: 'cli', autostart: false });
    await client.call('shutdown', {}).catch(() => undefined);
    client.close();
  } catch {
    signalOwner(memory, holder, 'SIGTERM');
  }
  const deadline = Date.now() + timeoutMs;
  while (isLiveOwner(holder) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isLiveOwner(holder) && !signalOwner(memory, holder, 'SIGKILL')) {
    throw new MemoryError(
      'unavailable',
      `The memory service (pid ${holder.pid}) did not stop, and nothing proves that pid is still ours: it was not signalled.`,
      `Check pid ${holder.pid} yourself.`,
    );
  }
  return true;
}

/** Signals the lock's holder if it still is the process that wrote the lock (never a stranger). */
function signalOwner(memory: string, holder: LockHolder, signal: NodeJS.Signals): boolean {
  const now = readLock(lockPath(memory));
  // Without a start time to compare (no /proc, or an older lock) nothing proves the pid is ours.
  if (holder.ticks === undefined || now?.pid !== holder.pid || now.ticks !== holder.ticks || !isLiveOwner(holder)) return false;
  try {
    process.kill(holder.pid, signal);
  } catch {
    // Gone in between.
  }
  return true;
}
