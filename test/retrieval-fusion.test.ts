/**
 * Fusion (retrieval/fuse.ts): weighted reciprocal rank over the channels' lists, each cut at the
 * recipe's depth; and, on a memory, what the keyword recipe leaves out of the vector channel.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSettings } from '../src/bench/ablation.js';
import { fuseEntities, fuseEpisodes } from '../src/core/retrieval/fuse.js';
import { DEFAULT_RECIPE } from '../src/core/retrieval/recipe.js';
import type { Hit } from '../src/core/retrieval/types.js';
import { memoryWith, minute } from './helpers.js';

test('fusion: the recipe says which channels count, how much, and how deep each list goes', async () => {
  const hits = (...rowids: number[]) => rowids.map((rowid, i) => ({ rowid, score: 10 - i }));
  const rowids = (list: Hit[]): number[] => list.map((h) => h.rowid);
  const keyword = { episodes: hits(1, 2, 3), entities: hits(7) };
  const vector = { episode: hits(3, 4, 5), entity: hits(8, 7) };
  // Depth 3 x limit 1: three of each list; rowid 3 is in both episode lists, so it leads.
  assert.deepEqual(
    rowids(fuseEpisodes({ keyword: keyword.episodes, vector: vector.episode, evidence: [] }, DEFAULT_RECIPE, 1)).slice(0, 1),
    [3],
  );
  assert.deepEqual(rowids(fuseEpisodes({ keyword: hits(1, 2, 3, 4), evidence: [] }, DEFAULT_RECIPE, 1)), [1, 2, 3], 'cut at the depth');
  assert.deepEqual(rowids(fuseEntities({ keyword: keyword.entities, vector: vector.entity }, DEFAULT_RECIPE, 1)), [7, 8]);
  const vectorHeavy = withSettings(DEFAULT_RECIPE, { 'fusion.keyword': 0.1 });
  assert.deepEqual(
    rowids(fuseEpisodes({ keyword: keyword.episodes, vector: vector.episode, evidence: [] }, vectorHeavy, 3)).slice(0, 3),
    [3, 4, 5],
  );

  // On a memory: the vector channel's facts are cut at the same depth, and the keyword recipe leaves every vector hit out.
  const person = { authority: 'human' as const, source: 'test' };
  const { memory: m } = await memoryWith(
    [1, 2, 3, 4, 5].map((i) => ({ text: `turn ${i} about lunch`, session: 's', time: minute(i) })),
    { config: { extract: false }, by: person },
  );
  // Three doubtful facts, then a sure one: fourth by its vector rank, first by rank x confidence once it takes part.
  const facts = ['a', 'b', 'c'].map((x) => m.relate({ subject: x, predicate: 'is', object: 'doubtful', prior: 'speculative' }, person).id);
  facts.push(m.relate({ subject: 'd', predicate: 'is', object: 'sure', prior: 'explicit' }, person).id);
  const vectorHits = { episode: [], entity: [], fact: hits(...m.rowidsOf('rel', facts)) };
  const top = (limit: number): string[] => m.query({ query: 'zebra', limit, mode: 'hybrid', vectorHits }).facts.map((f) => f.id);
  assert.deepEqual(top(1), [facts[0]], 'limit 1: only the first three vector facts take part');
  assert.equal(top(2)[0], facts[3], 'limit 2: six take part, and the sure one leads');
  const episodeHits = { episode: hits(...m.rowidsOf('ep', ['ep_5'])), entity: [], fact: vectorHits.fact };
  const plain = m.query({ query: 'turn 1 lunch', limit: 2, mode: 'keyword' });
  const given = m.query({ query: 'turn 1 lunch', limit: 2, mode: 'keyword', vectorHits: episodeHits });
  assert.deepEqual(given.episodes, plain.episodes, 'the keyword recipe leaves the vector hits out');
  assert.deepEqual(given.facts, []);
  assert.ok(!given.channels.includes('vector'));
});
