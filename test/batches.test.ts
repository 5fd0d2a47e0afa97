import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchEpisodes, INGEST_BATCH_TURNS } from '../src/core/ingest/batches';
import { DEFAULT_CONFIG } from '../src/core/model/config';
import type { EpisodeInput } from '../src/core/model/events';
import { LIMITS } from '../src/core/model/limits';
const MAX_MESSAGE_BYTES = LIMITS.serviceMessageBytes;

const turns = (n: number, text = (i: number): string => `turn ${i}`): EpisodeInput[] =>
  Array.from({ length: n }, (_, i) => ({ text: text(i), speaker: 'user', session: 's', ref: String(i) }));

/** The bytes of the request that carries a batch, as the client writes it. */
const requestBytes = (batch: EpisodeInput[]): number =>
  Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER, method: 'ingest', params: { episodes: batch } }) + '\n');

function assertAllInOrder(batches: EpisodeInput[][], episodes: EpisodeInput[]): void {
  const flat = batches.flat();
  assert.equal(flat.length, episodes.length, 'every episode, once');
  flat.forEach((e, i) => assert.equal(e, episodes[i], `episode ${i} in its place`));
  assert.ok(
    batches.every((b) => b.length > 0),
    'no empty batch',
  );
}

test('by count: full batches of the default size, then the rest', () => {
  const episodes = turns(2 * INGEST_BATCH_TURNS + 7);
  const batches = batchEpisodes(episodes, { maxBytes: MAX_MESSAGE_BYTES });
  assert.deepEqual(
    batches.map((b) => b.length),
    [INGEST_BATCH_TURNS, INGEST_BATCH_TURNS, 7],
  );
  assertAllInOrder(batches, episodes);
  assert.deepEqual(
    batchEpisodes(turns(10), { maxBytes: MAX_MESSAGE_BYTES, maxCount: 4 }).map((b) => b.length),
    [4, 4, 2],
  );
  assert.deepEqual(batchEpisodes([], { maxBytes: MAX_MESSAGE_BYTES }), []);
});

test('by bytes: a request never exceeds the budget, counted in UTF-8 after JSON escaping', () => {
  // Multi-byte letters, quotes and newlines: the JSON is longer in bytes than the text in characters.
  for (const [episodes, maxBytes] of [
    [turns(60, (i) => `${i} ${'é"\n🙂'.repeat(200 + 37 * (i % 7))}`), 64 * 1024],
    // Small turns fill a batch to within a few bytes of its budget: the request around them must fit too.
    [turns(3000, (i) => '"é'.repeat(i % 23)), 4096],
  ] as const) {
    const batches = batchEpisodes(episodes, { maxBytes, maxCount: episodes.length });
    assert.ok(batches.length > 1, 'the budget splits them');
    for (const b of batches) assert.ok(requestBytes(b) <= maxBytes, `${requestBytes(b)} bytes > ${maxBytes}`);
    // Batches are filled: the next episode would not have fitted in the one before.
    for (let i = 0; i + 1 < batches.length; i++) assert.ok(requestBytes([...batches[i]!, batches[i + 1]![0]!]) > maxBytes - 1024);
    assertAllInOrder(batches, [...episodes]);
  }
});

test('an episode larger than the budget travels alone, in its place', () => {
  const episodes = turns(5);
  episodes.splice(2, 0, { text: 'x'.repeat(10_000) });
  const batches = batchEpisodes(episodes, { maxBytes: 4096 });
  assert.deepEqual(
    batches.map((b) => b.length),
    [2, 1, 3],
  );
  assertAllInOrder(batches, episodes);
});

test("turns at the memory's text limit fit the service's message limit", () => {
  const text = 'a'.repeat(DEFAULT_CONFIG.maxTextChars);
  const episodes = turns(Math.ceil(MAX_MESSAGE_BYTES / text.length) + 1, () => text);
  const batches = batchEpisodes(episodes, { maxBytes: MAX_MESSAGE_BYTES });
  assert.equal(batches.length, 2);
  for (const b of batches) assert.ok(requestBytes(b) <= MAX_MESSAGE_BYTES);
  assertAllInOrder(batches, episodes);
});
