/**
 * Episode candidates (retrieval/candidates.ts): how BM25 over the turns is bounded when every word
 * of a question is common.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSettings } from '../src/bench/ablation.js';
import { resolveConfig } from '../src/core/model/config.js';
import type { EpisodeRecord } from '../src/core/model/events.js';
import { searchTurns } from '../src/core/retrieval/candidates.js';
import { DEFAULT_RECIPE } from '../src/core/retrieval/recipe.js';
import { Graph } from '../src/core/store/graph.js';
import { loadSqlJs } from '../src/core/store/sqlite.js';

test('a question of only common words scores the newest matching rows, and still fills its limit', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    Graph.createSchema(db);
    const graph = new Graph(db, resolveConfig());
    // 400 turns say "build"; every fourth also says "cache". With the bound at 40 both words are common.
    const episodes: EpisodeRecord[] = Array.from({ length: 400 }, (_, i) => ({
      id: `ep_${i + 1}`,
      hash: `h${i}`,
      authority: 'user',
      text: i % 4 === 0 ? `the build cache step ${i}` : `the build ran step ${i}`,
      time: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    }));
    graph.apply({ type: 'episodes.add', episodes, seq: 1, at: '2024-01-01T00:00:00.000Z', by: { authority: 'user' } });
    const bound = withSettings(DEFAULT_RECIPE, { 'candidates.maxScoredRows': 40 });
    const build = searchTurns(graph.index, [{ term: 'build', weight: 1 }], 10, bound).map((h) => h.rowid);
    assert.equal(build.length, 10);
    // 400 matches, bound 40: the window starts 40 rowids from the newest (400).
    assert.ok(
      build.every((r) => r >= 360),
      `scored outside the newest window: ${build.join(', ')}`,
    );
    const both = searchTurns(
      graph.index,
      [
        { term: 'build', weight: 1 },
        { term: 'cache', weight: 1 },
      ],
      10,
      bound,
    ).map((h) => h.rowid);
    assert.equal(both.length, 10);
    // The rarer word sets the window (100 matches: the newest 40 x 400 / 100 = 160 rowids); rows
    // holding both words come first.
    assert.ok(
      both.every((r) => r >= 240 && (r - 1) % 4 === 0),
      `expected newest rows with both words: ${both.join(', ')}`,
    );
    // A limit the window cannot fill widens to every row.
    assert.equal(searchTurns(graph.index, [{ term: 'cache', weight: 1 }], 100, bound).length, 100);
    assert.ok(
      searchTurns(graph.index, [{ term: 'build', weight: 1 }], 10, DEFAULT_RECIPE).some((r) => r.rowid < 360),
      'under the bound every row is scored',
    );
  } finally {
    db.close();
  }
});
