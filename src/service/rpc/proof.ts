/**
 * How a process proves it is the service that owns a memory folder. The owner writes a random
 * nonce into its lock file, inside the memory folder that only its user can read; whoever answers
 * on the socket must return an HMAC of the client's challenge keyed with that nonce. A process of
 * another user, or one that merely reuses a dead service's pid, cannot.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';

export const newNonce = (): string => crypto.randomBytes(16).toString('hex');
export const newChallenge = (): string => crypto.randomBytes(16).toString('hex');

export function proofOf(nonce: string, challenge: string): string {
  return crypto.createHmac('sha256', nonce).update(challenge).digest('hex');
}

export function proofMatches(nonce: string, challenge: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(proofOf(nonce, challenge));
  const given = Buffer.from(proof);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/**
 * What the kernel says about a pid (Linux, from /proc): whether it is a zombie and when it
 * started, in clock ticks since boot. Undefined where there is no /proc or no such process.
 */
export function processInfo(pid: number): { zombie: boolean; startTicks: number; cmdline: string[] } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let cmdline: string[] = [];
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    // Gone in between, or not ours to read: judged by stat alone.
  }
  // fields[0] is the state (field 3); fields[19] is starttime (field 22).
  return { zombie: fields[0] === 'Z' || fields[0] === 'X', startTicks: Number(fields[19]), cmdline };
}

export const hasProcFs = (): boolean => fs.existsSync('/proc/self/stat');

/** The hello answer's proof for a client's challenge (nothing when it sent none). */
export function proveOwnership(holder: { nonce?: string }, challenge: unknown): { proof?: string } {
  return holder.nonce && typeof challenge === 'string' && challenge.length <= 200 ? { proof: proofOf(holder.nonce, challenge) } : {};
}
