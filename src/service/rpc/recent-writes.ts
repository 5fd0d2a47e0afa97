/**
 * Request ids (`rid`) of recent writes, so a client's retry after "the service went away" is not
 * applied twice. While the service runs, a repeated rid gets the first answer. After a restart the
 * journal tells which rids were applied: the write that lost its answer is in the replayed tail,
 * since a snapshot is only taken after the answer was handed to the socket.
 */
import { MemoryError } from '../../core/model/errors.js';

/** How many writes are remembered: far more than can be in flight when a connection drops. */
const REMEMBERED_WRITES = 1000;

export class RecentWrites {
  private readonly answers = new Map<string, Promise<unknown>>();
  private readonly applied: Set<string>;

  /** `replayed`: the rids in the journal events replayed at start-up, oldest first. */
  constructor(replayed: readonly string[]) {
    this.applied = new Set(replayed.slice(-REMEMBERED_WRITES));
  }

  /**
   * The answer to write `rid`: the first answer when it was seen, `again()` when it was applied
   * before a restart (its answer lost), else `run()`'s, remembered.
   */
  answer<T>(rid: string, run: () => Promise<T>, again: () => Promise<T>): Promise<T> {
    const known = this.answers.get(rid);
    if (known) return known as Promise<T>;
    // Started now, not a tick later: requests on a connection run in the order they came.
    const answer = this.applied.has(rid) ? again() : run();
    this.answers.set(rid, answer);
    // A write that failed changed nothing: its retry may run.
    answer.catch(() => this.answers.delete(rid));
    if (this.answers.size > REMEMBERED_WRITES) this.answers.delete(this.answers.keys().next().value!);
    return answer;
  }
}

/** For a write that was applied before the service restarted and cannot safely be run again. */
export function appliedBeforeRestart(method: string): MemoryError {
  return new MemoryError(
    'unavailable',
    `This ${method} was applied before the memory service restarted; it was not applied again.`,
    'Look at the memory (query, status) to see its effect.',
  );
}
