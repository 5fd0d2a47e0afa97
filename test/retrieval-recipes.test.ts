/**
 * Recipes (retrieval/recipe.ts): one per mode, frozen, and passed per query, so two queries with
 * different recipes rank differently and neither changes the other.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutMethods, withSettings } from '../src/bench/ablation.js';
import {
  DEFAULT_RECIPE,
  HYBRID_RECIPE,
  KEYWORD_RECIPE,
  recipeFor,
  VECTOR_RECIPE,
  type RetrievalRecipe,
} from '../src/core/retrieval/recipe.js';
import { memoryWith, minute } from './helpers.js';

test('recipes: one per mode, frozen through and through; a query takes its own', async () => {
  assert.equal(recipeFor(undefined), DEFAULT_RECIPE);
  assert.equal(DEFAULT_RECIPE, HYBRID_RECIPE);
  assert.equal(recipeFor('keyword'), KEYWORD_RECIPE);
  assert.equal(recipeFor('vector'), VECTOR_RECIPE);
  assert.equal(recipeFor('constructor'), DEFAULT_RECIPE, 'only the modes name recipes');
  const before = structuredClone(DEFAULT_RECIPE);
  for (const recipe of [DEFAULT_RECIPE, KEYWORD_RECIPE, VECTOR_RECIPE]) {
    assert.ok(
      Object.isFrozen(recipe) &&
        Object.isFrozen(recipe.candidates.bm25) &&
        Object.isFrozen(recipe.channels) &&
        Object.isFrozen(recipe.facts) &&
        Object.isFrozen(recipe.rescore.methods),
    );
  }
  assert.throws(() => {
    (DEFAULT_RECIPE as { candidates: unknown }).candidates = {};
  }, TypeError);
  assert.throws(() => {
    (DEFAULT_RECIPE.candidates.bm25 as { k1: number }).k1 = 9;
  }, TypeError);
  assert.throws(() => {
    (DEFAULT_RECIPE.rescore.methods as string[]).pop();
  }, TypeError);
  assert.deepEqual(DEFAULT_RECIPE, before);
});

test('two queries with different recipes rank differently, and neither changes the other', async () => {
  const turns = [
    { text: 'Morning, how was the trip?', speaker: 'Bea' },
    { text: 'Bea told me the market was closed.', speaker: 'Al' },
    { text: 'Shall we meet at noon?', speaker: 'Bea' },
  ];
  const { memory: m } = await memoryWith(
    turns.map((t, i) => ({ ...t, entities: [t.speaker], session: 's1', time: minute(i) })),
    { config: { extract: false } },
  );
  // Only the columns differ: what a turn says, or who said it. No boosts or spread to blur it.
  const plain = withoutMethods(KEYWORD_RECIPE, ['boosts', 'neighbours']);
  const said = withSettings(plain, { 'candidates.columns.text': 1, 'candidates.columns.speaker': 0, 'candidates.columns.parts': 0 });
  const speaker = withSettings(plain, { 'candidates.columns.text': 0, 'candidates.columns.speaker': 1, 'candidates.columns.parts': 0 });
  const texts = (recipe: RetrievalRecipe): string[] => m.query({ query: 'Bea', limit: 3 }, recipe).episodes.map((e) => e.text);
  // Every turn matches "Bea" in one column or the other; a column weighed 0 scores nothing.
  const bySaid = texts(said);
  const bySpeaker = texts(speaker);
  assert.equal(bySaid[0], turns[1]!.text, bySaid.join(' | '));
  assert.equal(bySpeaker.at(-1), turns[1]!.text, bySpeaker.join(' | '));
  assert.deepEqual(texts(said), bySaid, 'the second recipe left nothing behind');
  // The mode names the recipe when none is given: keyword + graph, no vector channel.
  assert.deepEqual(m.query({ query: 'Bea', mode: 'keyword' }).channels, ['keyword', 'entities']);
  assert.deepEqual(m.query({ query: 'Bea' }, { ...KEYWORD_RECIPE, channels: { keyword: true, graph: false, vector: false } }).channels, [
    'keyword',
  ]);
});
