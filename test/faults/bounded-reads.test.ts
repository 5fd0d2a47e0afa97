/**
 * Reads that must stay bounded whatever the memory or the question holds: a traversal of a hub
 * entity stops at its bound inside a hop and says so; a question of thousands of distinct
 * Chinese or Japanese character pairs is answered, not refused by FTS4.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/model/limits';
import { cleanup, recall, tmpMemory, withClient } from './kit';

after(cleanup);

test('recall_traverse of a hub stays within its bound inside a hop and says it was cut', async () => {
  // The report's hub: Root with 120 neighbours, each with 120 facts of its own (14,520 facts).
  const memory = tmpMemory('hub');
  const triples: { subject: string; predicate: string; object: string }[] = [];
  for (let i = 0; i < 120; i++) {
    triples.push({ subject: 'Root', predicate: 'uses', object: `N${i}` });
    for (let j = 0; j < 120; j++) triples.push({ subject: `N${i}`, predicate: 'uses', object: `M${i}_${j}` });
  }
  await withClient(memory, async (c) => {
    const { id } = await c.call('remember', { text: 'the hub graph', project: null });
    for (let at = 0; at < triples.length; at += 100)
      await c.call('extracted', { episode: id, facts: triples.slice(at, at + 100), extractor: 'test' });
  });
  const one = await recall(memory, ['traverse', 'Root', '--depth', '1', '--all', '--json']);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(JSON.parse(one.stdout).facts.length, 120);
  assert.equal(JSON.parse(one.stdout).truncated, false);

  const two = await recall(memory, ['traverse', 'Root', '--depth', '2', '--all', '--json']);
  assert.equal(two.code, 0, two.stderr);
  const t = JSON.parse(two.stdout);
  assert.ok(t.facts.length <= LIMITS.traverseFacts, `${t.facts.length} facts, bound ${LIMITS.traverseFacts}`);
  assert.equal(t.truncated, true);
  // Every fact of the first hop comes before any of the second, and every entity shown is an end of a fact shown.
  assert.equal(t.facts.filter((f: any) => f.depth === 1).length, 120);
  const ends = new Set(t.facts.flatMap((f: any) => [f.subject, f.object]));
  for (const e of t.entities) assert.ok(ends.has(e.name), e.name);
  const text = await recall(memory, ['traverse', 'Root', '--depth', '2', '--all']);
  assert.match(text.stdout, new RegExp(`cut at ${LIMITS.traverseFacts} facts`));
});

/**
 * Deterministic text with nearly every pair of characters distinct: kanji alone (Chinese), or
 * kanji, hiragana and katakana in varying runs (Japanese).
 */
function cjkText(chars: number, seed: number, kana: boolean): string {
  let s = seed;
  const next = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = (from: number, size: number): string => String.fromCharCode(from + Math.floor(next() * size));
  let out = '';
  while (out.length < chars) {
    const r = kana ? next() : 0;
    out += r < 0.5 ? pick(0x4e00, 6000) : r < 0.8 ? pick(0x3041, 83) : r < 0.95 ? pick(0x30a1, 86) : '、';
  }
  return out;
}

test('a long Chinese or Japanese question is answered by query, search and episodes, not an FTS error', async () => {
  const memory = tmpMemory('cjk');
  const note = 'データベースの接続プールは認証キャッシュを直してから再起動する';
  assert.equal((await recall(memory, ['remember', note])).code, 0);
  const questions = {
    'CJK x10000': cjkText(LIMITS.queryChars, 7, false),
    'Japanese, 5,000 characters, the note first': note + cjkText(5_000 - note.length, 11, true),
  };
  for (const [label, q] of Object.entries(questions)) {
    for (const cmd of ['query', 'search', 'episodes']) {
      const r = await recall(memory, [cmd, q, '--all', '--json']);
      assert.equal(r.code, 0, `${cmd} ${label}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /FTS|expression/);
    }
  }
  const found = await recall(memory, ['query', questions['Japanese, 5,000 characters, the note first'], '--all', '--json']);
  assert.ok(
    JSON.parse(found.stdout).episodes.some((e: any) => e.text === note),
    'the note the question starts with is found',
  );
});
