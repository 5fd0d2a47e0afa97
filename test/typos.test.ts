import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory.js';
import { DEFAULT_RECIPE, withoutMethods, type RetrievalConfig } from '../src/core/retrieval/recipes.js';
import { oneSlipApart } from '../src/core/retrieval/typos.js';

const KEYWORD: RetrievalConfig = { ...DEFAULT_RECIPE, channels: { ...DEFAULT_RECIPE.channels, vector: false } };
const OFF = withoutMethods(KEYWORD, ['typos']);

async function memoryOf(texts: string[]): Promise<{ memory: Memory; done: () => void }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-typos-'));
  const memory = await Memory.open(folder);
  memory.ingest(
    texts.map((text, i) => ({
      text,
      session: 's1',
      speaker: i % 2 ? 'Nate' : 'Joanna',
      time: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    })),
    { authority: 'user', source: 'test' },
  );
  return {
    memory,
    done: () => {
      memory.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

const top = (memory: Memory, query: string, recipe: RetrievalConfig, limit = 3): string[] =>
  memory.query({ query, limit, mode: 'keyword' }, recipe).episodes.map((e) => e.text);

test('typos: a slip is a letter missing, added, swapped with its neighbour, or changed into a key beside it', () => {
  assert.ok(oneSlipApart('raspberri', 'rasberri'), 'a letter missing');
  assert.ok(oneSlipApart('rasberri', 'raspberri'), 'a letter added');
  assert.ok(oneSlipApart('tournament', 'tournamnet'), 'two neighbours swapped');
  assert.ok(oneSlipApart('concert', 'concery'), 't and y are side by side');
  assert.ok(!oneSlipApart('concert', 'concern'), 't and n are not: two real words');
  assert.ok(!oneSlipApart('writer', 'wrote'), 'two changes');
  assert.ok(!oneSlipApart('photograph', 'photograph'), 'the same word is no slip');
});

test('typos: a question finds the turn that misspells its word, and a misspelt question finds the word', async () => {
  // Misspelt as in LoCoMo conv-42 (snap-research/locomo): "fresh rasberries".
  const misspelt = 'Made a chocolate tart with fresh rasberries for the party!';
  const { memory, done } = await memoryOf([
    'The raspberries at the market were expensive this week.',
    'Raspberries again? You really love them.',
    'The party was loud, the chocolate was gone by nine.',
    'Our team won the tournament last night.',
    'What did you make for the party?',
    // Far from the turns that spell it right: none of them lends it a score (spread).
    misspelt,
  ]);
  try {
    assert.ok(top(memory, 'raspberries', KEYWORD, 4).includes(misspelt), 'the misspelling of a word the memory holds');
    assert.ok(!top(memory, 'raspberries', OFF, 4).includes(misspelt), 'not without the method');
    assert.deepEqual(top(memory, 'who won the tournamnet?', KEYWORD, 1), ['Our team won the tournament last night.']);
    assert.ok(!top(memory, 'tournamnet', OFF).includes('Our team won the tournament last night.'));
    // A snapshot reopens the database (sql.js export): the index's word list is read again.
    memory.snapshot();
    memory.ingest([{ text: 'A tournamant next week too.', session: 's2', speaker: 'Nate' }], { authority: 'user', source: 'test' });
    assert.ok(top(memory, 'tournament', KEYWORD, 5).includes('Our team won the tournament last night.'));
  } finally {
    done();
  }
});

test('typos: a real word one key too far is no slip, and the question is searched as it was', async () => {
  // "concert" is the commoner word, so a slip of it would be searched too: "concern" is not one.
  const { memory, done } = await memoryOf([
    'The concert was great.',
    'Another concert on Friday?',
    'Lunch first.',
    'Then the gym.',
    'I have a concern about the budget.',
  ]);
  try {
    const scored = (recipe: RetrievalConfig): [string, number | undefined][] =>
      memory.query({ query: 'concert', limit: 5, mode: 'keyword' }, recipe).episodes.map((e) => [e.text, e.score]);
    assert.deepEqual(scored(KEYWORD), scored(OFF));
  } finally {
    done();
  }
});
