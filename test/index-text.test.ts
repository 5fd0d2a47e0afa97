/**
 * What the keyword index reads of a turn (store/index-text.ts): FTS4 takes every non-ASCII
 * character for part of a word, so a word glued to a dash, a typographic apostrophe or an emoji
 * was one token no question found. Real transcripts from public repositories (test/fixtures/real,
 * origins in SOURCES.md) hold such words; which turns hold them is counted here with a regular
 * expression over the parsed text, not through the index.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory';
import { parseTranscript } from '../src/core/ingest/detect';
import { indexText } from '../src/core/store/index-text';
import { storeOf } from './helpers';

const REAL = path.join(__dirname, 'fixtures', 'real');

test('indexText: dashes, typographic quotes, emoji and their joiners part words; letters of any script and accents stay', () => {
  assert.equal(indexText('plain ASCII - stays as it is'), 'plain ASCII - stays as it is');
  assert.equal(indexText('Mel’s party—great👍'), "Mel's party great ");
  assert.equal(indexText('“quoted” … done'), ' quoted    done');
  assert.equal(indexText('dev 👩‍💻 ok'), 'dev     ok');
  assert.equal(indexText('Zoë, café, 日本語, Ελλάδα'), 'Zoë, café, 日本語, Ελλάδα');
  assert.equal(indexText('a\u00a0b'), 'a b');
});

/** A memory holding one real transcript, and its turns' texts. */
async function memoryOf(fixture: string): Promise<{ memory: Memory; texts: string[]; done: () => void }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-index-text-'));
  const memory = await Memory.open(folder);
  const parsed = parseTranscript(fs.readFileSync(path.join(REAL, fixture), 'utf8'), path.basename(fixture));
  memory.ingest(parsed.episodes, { authority: 'user', source: fixture });
  return {
    memory,
    texts: parsed.episodes.map((e) => e.text),
    done: () => {
      memory.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

for (const [fixture, word] of [
  ['specstory/legacy-user-assistant.md', 'infrastructure'],
  ['aider/multi-session-slice.aider.chat.history.md', 'Toyota'],
] as const) {
  test(`a word glued to a dash or a typographic apostrophe in a real transcript is found: "${word}" in ${fixture}`, async () => {
    const { memory, texts, done } = await memoryOf(fixture);
    try {
      const holding = texts.filter((t) => new RegExp(`\\b${word}\\b`, 'i').test(t));
      assert.ok(
        holding.some((t) => new RegExp(`${word}[\u2014\u2019]`, 'i').test(t)),
        'glued to a dash or an apostrophe in one at least',
      );
      const found = memory.query({ query: word, limit: 10, mode: 'keyword' }).episodes.map((e) => e.text);
      for (const t of holding) assert.ok(found.includes(t), `not found: ${t.slice(0, 120)}`);
    } finally {
      done();
    }
  });
}

test('a forgotten turn leaves the index whole: what it read through the view comes out again', async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-index-text-'));
  const memory = await Memory.open(folder);
  try {
    memory.ingest(
      [
        { text: 'Mel’s birthday—party at the lake 🎉', entities: ['Lake party'] },
        { text: 'the lake was cold', session: 's' },
      ],
      { authority: 'user', source: 'test' },
    );
    assert.equal(memory.query({ query: 'birthday party', mode: 'keyword' }).episodes.length, 1);
    memory.forget('Lake party', { authority: 'human', source: 'cli' });
    assert.equal(memory.query({ query: 'birthday party', mode: 'keyword' }).episodes.length, 0);
    // FTS4 checks every index entry against its content (the view): a token left behind fails it.
    const db = storeOf(memory);
    assert.doesNotThrow(() => db.exec("INSERT INTO episodes_fts(episodes_fts) VALUES('integrity-check')"));
  } finally {
    memory.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
