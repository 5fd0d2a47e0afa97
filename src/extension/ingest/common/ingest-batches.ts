/**
 * Storing parsed turns through the person's connection, a batch at a time: shared by Import
 * Conversations… and the chat-session auto-ingest. A batch is whole episodes, so stopping between
 * batches (cancellation) never stores half of one; the service skips turns it already holds.
 */
import { batchEpisodes } from '../../../core/ingest/batches.js';
import type { EpisodeInput } from '../../../core/model/events.js';
import { LIMITS } from '../../../core/model/limits.js';
import type { MemoryAccess } from '../../../tools/catalogue.js';

export interface StoredTurn {
  id: string;
  episode: EpisodeInput;
}

export interface IngestOutcome {
  added: number;
  skipped: number;
  /** Turns the memory did not hold before (for follow-up work such as language-model extraction). */
  fresh: StoredTurn[];
  /** False when cancelled before every batch was sent. */
  complete: boolean;
}

export async function ingestInBatches(
  connection: MemoryAccess,
  episodes: readonly EpisodeInput[],
  opts: { isCancelled?: () => boolean; onBatch?: (done: number, batchSize: number) => void } = {},
): Promise<IngestOutcome> {
  const out: IngestOutcome = { added: 0, skipped: 0, fresh: [], complete: true };
  let done = 0;
  for (const batch of batchEpisodes(episodes, { maxBytes: LIMITS.serviceMessageBytes })) {
    if (opts.isCancelled?.()) {
      out.complete = false;
      break;
    }
    const r = await connection.call('ingest', { episodes: batch });
    out.added += r.added;
    out.skipped += r.skipped;
    r.results.forEach((res, j) => {
      if (!res.duplicate) out.fresh.push({ id: res.id, episode: batch[j]! });
    });
    done += batch.length;
    opts.onBatch?.(done, batch.length);
  }
  return out;
}
