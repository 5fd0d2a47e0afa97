/**
 * What the service does only when nobody waits on it: merging the keyword index a slice at a time
 * and snapshotting once requests pause, and exiting once no client has been connected for a while.
 */
import type { Memory } from '../../core/memory/memory.js';
import { collectGarbage } from '../collect-garbage.js';

export interface IdleOptions {
  /** Snapshot this long after the last request, when there is anything new. */
  snapshotIdleMs: number;
  /** Exit after this long with no client connected. */
  idleExitMs: number;
  /** Called once nobody has been connected for idleExitMs. */
  exit: () => void;
  log: (msg: string) => void;
}

export class IdleWork {
  private snapshotTimer: NodeJS.Timeout | undefined;
  private exitTimer: NodeJS.Timeout | undefined;
  /** Requests being served, and a count bumped by each one that arrives: idle work waits for a real pause. */
  private inFlight = 0;
  private lastRequestAt = 0;

  constructor(
    private readonly memory: Memory,
    private readonly opts: IdleOptions,
  ) {}

  requestStarted(): void {
    this.inFlight++;
    this.lastRequestAt++;
  }

  requestEnded(): void {
    this.inFlight--;
    this.schedule();
  }

  /** The exit timer runs only while no client is connected. */
  clientsChanged(count: number): void {
    clearTimeout(this.exitTimer);
    if (count === 0) this.exitTimer = setTimeout(this.opts.exit, this.opts.idleExitMs);
  }

  /**
   * Idle work, never on a request's path: merge the keyword index a slice at a time, then
   * snapshot. Re-armed by every request, so it runs once traffic pauses.
   */
  schedule(): void {
    const memory = this.memory;
    clearTimeout(this.snapshotTimer);
    // A snapshot blocks the service for as long as it takes to copy the database (seconds at
    // hundreds of MB): taken in a pause, or between requests only once the journal tail is overdue.
    const overdue = memory.pendingSnapshotEvents >= memory.config.snapshotEvery * 4 && memory.snapshotOverdue;
    const armed = this.lastRequestAt;
    // setImmediate: a starved process runs expired timers before reading its sockets; this lets
    // requests that arrived meanwhile start first, and a pause is only a pause if none did.
    this.snapshotTimer = setTimeout(
      () =>
        setImmediate(() => {
          if (!overdue && (this.lastRequestAt !== armed || this.inFlight > 0)) return;
          try {
            const merged = memory.compactIndex(200);
            // The snapshot is a full copy of the database, garbage once it is on disk.
            if (memory.snapshotDue) {
              memory.snapshot();
              collectGarbage();
            }
            if (!merged) this.schedule();
          } catch (err) {
            this.opts.log(`idle maintenance failed (the journal still has everything): ${(err as Error).message}`);
          }
        }),
      overdue ? 0 : this.opts.snapshotIdleMs,
    );
  }

  /** No more idle work, and no exit by itself: the service is stopping. */
  stop(): void {
    clearTimeout(this.snapshotTimer);
    clearTimeout(this.exitTimer);
  }
}
