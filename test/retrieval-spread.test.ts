/**
 * What neighbours lend (retrieval/spread.ts, the rescore stage): a reply found through the turn it
 * answers, a thought sent as several messages found as one, and a removed turn lending nothing.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutMethods, withSettings } from '../src/bench/ablation.js';
import { Memory } from '../src/core/memory/memory.js';
import { resolveConfig } from '../src/core/model/config.js';
import type { EpisodeRecord } from '../src/core/model/events.js';
import { analyseQuery } from '../src/core/retrieval/analyse.js';
import { episodeCandidates, searchTurns } from '../src/core/retrieval/candidates.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';
import { rescoreEpisodes } from '../src/core/retrieval/rescore.js';
import type { Hit } from '../src/core/retrieval/types.js';
import { unindexEpisode } from '../src/core/store/fts.js';
import { Graph } from '../src/core/store/graph.js';
import type { SearchIndex } from '../src/core/store/search-index.js';
import { loadSqlJs } from '../src/core/store/sqlite.js';
import { conversation, keywordScores, keywordTexts, memoryWith, minute, tmpFolder } from './helpers.js';

/** The keyword half of a question's episodes: its analysis, the candidates, rescored (retrieve.ts prepare, without the scope and entities). */
function keywordHalf(index: SearchIndex, text: string, limit: number, recipe: RetrievalRecipe): Hit[] {
  const q = analyseQuery(index, text, recipe);
  return rescoreEpisodes(index, episodeCandidates(index, q, limit, recipe, {}), q, limit, recipe);
}

const person = { authority: 'human' as const, source: 'test' };

test('a reply is found through the turn it answers, and a removed turn leaves no trace', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    Graph.createSchema(db);
    const graph = new Graph(db, resolveConfig());
    const turns = ['Where did you go last weekend?', 'To the aquarium with my nephew.', 'Did he like the octopus?', 'He loved it.'];
    const episodes: EpisodeRecord[] = turns.map((text, i) => ({
      id: `ep_${i + 1}`,
      hash: `h${i}`,
      authority: 'user',
      text,
      speaker: i % 2 ? 'Bea' : 'Al',
      session: 's1',
      time: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    }));
    graph.apply({ type: 'episodes.add', episodes, seq: 1, at: '2024-01-01T00:00:00.000Z', by: { authority: 'user' } });
    const q = (text: string) => keywordHalf(graph.index, text, 10, DEFAULT_RECIPE).map((h) => h.rowid);
    // The answer turn (2) holds neither "weekend" nor "go": its question (1) does, and lends it score.
    assert.deepEqual(q('where did they go last weekend').slice(0, 2), [1, 2]);
    // Only the keyword index holds the text's words; the speaker column matches names.
    assert.deepEqual(
      searchTurns(graph.index, [{ term: 'bea', weight: 1 }], 10, DEFAULT_RECIPE)
        .map((h) => h.rowid)
        .sort(),
      [2, 4],
    );
    unindexEpisode(db, 3);
    db.run('DELETE FROM episodes WHERE rowid = 3');
    assert.deepEqual(searchTurns(graph.index, [{ term: 'octopus', weight: 1 }], 10, DEFAULT_RECIPE), []);
    assert.deepEqual(q('octopus'), [], "nothing lends the removed turn's words to its neighbours");
  } finally {
    db.close();
  }
});

test('a turn asking with the full-width question mark of Chinese and Japanese lends its reply more than its other neighbours', async () => {
  const { memory: m } = await memoryWith([
    { text: '今日は晴れ', session: 's', time: minute(0) },
    { text: '好きな料理は何ですか？', session: 's', time: minute(1) },
    { text: 'ラーメンです', session: 's', time: minute(2) },
  ]);
  const score = new Map(m.query({ query: '料理', limit: 3, mode: 'keyword' }).episodes.map((e) => [e.text, e.score]));
  assert.ok(score.get('ラーメンです')! > score.get('今日は晴れ')!, JSON.stringify([...score]));
});

test('spread: a turn that asks lends more to the turn right after it, the reply', async () => {
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Ann', 'Any news on the adoption?'],
      ['s1', 'Bob', 'Passed the interview last Friday!'],
      ['s2', 'Ann', 'Adoption news soon, I hope.'],
      ['s2', 'Bob', 'Fingers crossed for you.'],
    ]),
  );
  const scoreOf = (text: string, reply: number): number =>
    keywordScores(memory, 'adoption news', withSettings(DEFAULT_RECIPE, { 'rescore.spread.reply': reply })).get(text) ?? 0;
  assert.ok(scoreOf('Passed the interview last Friday!', 1.5) > scoreOf('Passed the interview last Friday!', 1), 'the reply to a question');
  assert.equal(scoreOf('Fingers crossed for you.', 1.5), scoreOf('Fingers crossed for you.', 1), 'a turn after a statement');
  assert.ok(
    keywordTexts(memory, 'adoption news').indexOf('Passed the interview last Friday!') <
      keywordTexts(memory, 'adoption news').indexOf('Fingers crossed for you.'),
  );
});

test('spread: a thought sent as several messages is one run, and a hit lends along it', async () => {
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Ann', 'omg guess what'],
      ['s1', 'Ann', 'I got the museum job!!'],
      ['s1', 'Ann', 'starting in March'],
      ['s1', 'Ann', 'mornings only'],
      ['s1', 'Ann', 'in the gift shop'],
      ['s1', 'Bob', 'So proud of you'],
      ['s2', 'Ann', 'Museum tickets for Saturday?'],
      ['s2', 'Bob', 'sure'],
      ['s2', 'Ann', 'the blue ones'],
    ]),
  );
  const off = withoutMethods(DEFAULT_RECIPE, ['runs']);
  const scoreOf = (text: string, recipe: RetrievalRecipe): number => keywordScores(memory, 'museum job', recipe, 20).get(text) ?? 0;
  const on = DEFAULT_RECIPE;
  assert.equal(scoreOf('in the gift shop', off), 0, "three messages on, out of the neighbours' reach");
  assert.ok(scoreOf('in the gift shop', on) > 0, 'the same speaker, nobody in between: the run reaches it');
  assert.ok(scoreOf('starting in March', on) > scoreOf('starting in March', off), 'the next message of the run');
  assert.ok(scoreOf('omg guess what', on) > scoreOf('omg guess what', off), 'the run before the hit too');
  assert.equal(scoreOf('So proud of you', on), scoreOf('So proud of you', off), 'another speaker ends the run');
  assert.equal(scoreOf('the blue ones', on), scoreOf('the blue ones', off), 'a reply in between: no run');
});

test('forgetting an episode takes its words out of its neighbours too', async () => {
  const m = await Memory.open(tmpFolder('core'), { extract: false });
  m.ingest(
    [
      { text: 'we talked about the weather', session: 's', speaker: 'a', time: '2024-01-01T10:00:00Z' },
      { text: 'the flamingo codename is secret', session: 's', speaker: 'b', time: '2024-01-01T10:01:00Z', entities: ['Flamingo'] },
      { text: 'lunch was fine', session: 's', speaker: 'a', time: '2024-01-01T10:02:00Z' },
    ],
    person,
  );
  // The neighbouring turns are findable through the flamingo turn's words (context column).
  assert.ok(m.query({ query: 'flamingo codename' }).episodes.length >= 2);
  m.forget('Flamingo', person);
  const after = m.query({ query: 'flamingo codename' });
  assert.equal(after.episodes.length, 0, JSON.stringify(after.episodes.map((e) => e.text)));
  assert.equal(m.status().episodes, 2);
  m.close();
});
