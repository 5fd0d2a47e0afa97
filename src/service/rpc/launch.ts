/** Asking about, and stopping, the service of a memory folder without starting one. */
import { isAlive, readLock } from './lock.js';
import { MemoryClient } from './client.js';
import { lockPath } from './paths.js';

/** The pid of the live service owning this folder, if any. */
export function runningServicePid(memory: string): number | undefined {
  const holder = readLock(lockPath(memory));
  return holder && isAlive(holder.pid) ? holder.pid : undefined;
}

/** Asks the service to stop (it snapshots first); signals it if it does not. Returns whether one ran. */
export async function stopService(memory: string, timeoutMs = 15_000): Promise<boolean> {
  const pid = runningServicePid(memory);
  if (pid === undefined) return false;
  try {
    const client = await MemoryClient.connect({ memory, surface: 'cli', autostart: false });
    await client.call('shutdown', {}).catch(() => undefined);
    client.close();
  } catch {
    process.kill(pid, 'SIGTERM');
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  return true;
}
