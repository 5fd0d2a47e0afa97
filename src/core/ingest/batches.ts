/**
 * Parsed turns cut into the batches of one `ingest` request each, for the CLI and the extension
 * alike. A batch is whole episodes, in order, at most a count of them and at most a byte budget
 * (the service's message limit, which the caller passes: this room does not know the service).
 */
import type { EpisodeInput } from '../model/events.js';

/** Turns per `ingest` call: big enough to be quick, small enough that progress and cancellation stay responsive. */
export const INGEST_BATCH_TURNS = 500;

/** Room left in the byte budget for the request around the episodes (JSON-RPC envelope, method, id). */
const ENVELOPE_BYTES = 1024;

/**
 * Every episode in exactly one batch, in the order given. An episode larger than the budget on its
 * own (far past the memory's text limit) travels alone: the service refuses that request, and
 * nothing is dropped here unseen.
 */
export function batchEpisodes(episodes: readonly EpisodeInput[], limits: { maxBytes: number; maxCount?: number }): EpisodeInput[][] {
  const maxCount = Math.max(1, limits.maxCount ?? INGEST_BATCH_TURNS);
  const budget = limits.maxBytes - ENVELOPE_BYTES;
  const batches: EpisodeInput[][] = [];
  let batch: EpisodeInput[] = [];
  let bytes = 0;
  for (const episode of episodes) {
    // As it is sent: its JSON and the comma after it in the array.
    const size = Buffer.byteLength(JSON.stringify(episode) ?? 'null') + 1;
    if (batch.length > 0 && (batch.length >= maxCount || bytes + size > budget)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(episode);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
