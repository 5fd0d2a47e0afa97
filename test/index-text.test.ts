/**
 * What the keyword index reads of a turn (store/index-text.ts): FTS4 takes every non-ASCII
 * character for part of a word, so a word glued to a dash, a typographic apostrophe or an emoji
 * was one token no question found; and it keeps a code identifier whole (`fillText`,
 * `billing_events`), so its words found nothing. Real transcripts from public repositories
 * (test/fixtures/real, origins in SOURCES.md) hold such words; which turns hold them is counted
 * here with a regular expression over the parsed text, not through the index.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory';
import { cjkBigrams, identifierParts, identifierWords, indexText, withoutAccents } from '../src/core/store/index-text';
import { SCHEMA_VERSION } from '../src/core/store/schema';
import { SNAPSHOT_FILE } from '../src/core/memory/journaled-graph';
import { loadSqlJs } from '../src/core/store/sqlite';
import { writeSnapshot } from '../src/core/store/recovery';
import { queryTerms } from '../src/core/retrieval/text';
import { withSettings } from '../src/bench/ablation';
import { namedEntities } from '../src/core/retrieval/analyse';
import { KEYWORD_RECIPE } from '../src/core/retrieval/recipe';
import { passagesOf } from '../src/core/retrieval/passages';
import { memoryWith, reopenStore, tmpFolder } from './helpers';

const REAL = path.join(__dirname, 'fixtures', 'real');

test('indexText: dashes, typographic quotes, emoji and their joiners part words; letters of any script stay, Latin accents go', () => {
  assert.equal(indexText('plain ASCII - stays as it is'), 'plain ASCII - stays as it is');
  assert.equal(indexText('Mel’s party—great👍'), "Mel's party great ");
  assert.equal(indexText('“quoted” … done'), ' quoted    done');
  assert.equal(indexText('dev 👩‍💻 ok'), 'dev     ok');
  assert.equal(indexText('Zoë, café, Ελλάδα'), 'Zoe, cafe, Ελλάδα');
  assert.equal(indexText('a\u00a0b'), 'a b');
});

test('Chinese, Japanese and Korean are read by overlapping pairs of characters; other scripts are not', () => {
  assert.equal(cjkBigrams('データベース'), ' デー ータ タベ ベー ース ');
  assert.equal(cjkBigrams('3D建物生成を使う'), '3D 建物 物生 生成 成を を使 使う ');
  assert.equal(cjkBigrams('日本 語'), ' 日本   語 ');
  assert.equal(cjkBigrams('한국어 사용'), ' 한국 국어   사용 ');
  assert.equal(cjkBigrams('Zoë, café, Ελλάδα'), 'Zoë, café, Ελλάδα');
  assert.deepEqual(queryTerms('データベースは Supabase?'), ['デー', 'ータ', 'タベ', 'ベー', 'ース', 'スは', 'supabase']);
});

test('a Chinese or Japanese name is named in a question wherever it stands; a Latin one on word boundaries', async () => {
  const { memory } = await memoryWith([{ text: '田中さんと会った', entities: ['田中', 'Mel'] }]);
  const store = await reopenStore(memory);
  const id = (name: string): number => Number(store.db.exec('SELECT id FROM entities WHERE name = ?', [name])[0]!.values[0]![0]);
  assert.deepEqual(namedEntities(store.graph.index, '田中さんは何を作りましたか'), [id('田中')]);
  assert.deepEqual(namedEntities(store.graph.index, 'What did Mel make?'), [id('Mel')]);
  assert.deepEqual(namedEntities(store.graph.index, 'What did Melanie make?'), []);
});

test("accents: a Latin letter's are left out, other scripts' marks stay", () => {
  assert.equal(withoutAccents('configuração, não, Zoë, façade, Việt'), 'configuracao, nao, Zoe, facade, Viet');
  // NFD as written (a combining acute after the e) reads as the composed form does.
  assert.equal(withoutAccents('cafe\u0301'), 'cafe');
  assert.equal(withoutAccents('ガイドが必要 Ελλάδα русский й'), 'ガイドが必要 Ελλάδα русский й');
  assert.deepEqual(queryTerms('Qual é a solução?'), ['qual', 'solucao']);
});

test('a long Japanese turn is cut into passages at its sentence marks', () => {
  // The first lines of a real Japanese SpecStory history that end with 。, run together as one turn.
  const lines = fs.readFileSync(path.join(REAL, 'specstory/agent-model-mode-tool-use-slice.md'), 'utf8').split('\n');
  const turn = lines.filter((l) => l.endsWith('。') && l.length < 80).join('');
  const indexed = indexText(turn);
  assert.ok(!indexed.includes('。') && indexed.includes('. '), 'a sentence mark reads as a full stop');
  const passages = passagesOf(indexed, KEYWORD_RECIPE.candidates.passages).map((p) => indexed.slice(p.start, p.end));
  assert.ok(passages.length >= 2, `${passages.length} passages`);
  for (const p of passages) assert.match(p, /\.$/, 'every passage ends at a sentence end');
});

for (const [fixture, word] of [
  ['specstory/legacy-user-assistant.md', 'infrastructure'],
  ['aider/multi-session-slice.aider.chat.history.md', 'Toyota'],
] as const) {
  test(`a word glued to a dash or a typographic apostrophe in a real transcript is found: "${word}" in ${fixture}`, async () => {
    const { memory, texts } = await memoryWith({ fixture });
    const holding = texts.filter((t) => new RegExp(`\\b${word}\\b`, 'i').test(t));
    assert.ok(
      holding.some((t) => new RegExp(`${word}[\u2014\u2019]`, 'i').test(t)),
      'glued to a dash or an apostrophe in one at least',
    );
    const found = memory.query({ query: word, limit: 10, mode: 'keyword' }).episodes.map((e) => e.text);
    for (const t of holding) assert.ok(found.includes(t), `not found: ${t.slice(0, 120)}`);
  });
}

test('a forgotten turn leaves the index whole: what it read through the view comes out again', async () => {
  const { memory } = await memoryWith([
    { text: 'Mel’s birthday—party at the lake 🎉', entities: ['Lake party'] },
    { text: 'the lake was cold', session: 's' },
  ]);
  assert.equal(memory.query({ query: 'birthday party', mode: 'keyword' }).episodes.length, 1);
  memory.forget('Lake party', { authority: 'human', source: 'cli' });
  assert.equal(memory.query({ query: 'birthday party', mode: 'keyword' }).episodes.length, 0);
  // FTS4 checks every index entry against its content (the view): a token left behind fails it.
  const store = await reopenStore(memory);
  assert.doesNotThrow(() => store.db.exec("INSERT INTO episodes_fts(episodes_fts) VALUES('integrity-check')"));
});

for (const [fixture, words] of [
  ['specstory/agent-model-mode-tool-use-slice.md', ['建物', 'データベース', '要件定義', '二次元マップ']],
  ['claude-code/skill-command-args-slice.jsonl', ['重构', '分析']],
] as const) {
  test(`a Chinese or Japanese word inside a run of text is found in a real transcript: ${words.join(', ')} in ${fixture}`, async () => {
    const { memory, texts } = await memoryWith({ fixture });
    for (const word of words) {
      const holding = texts.filter((t) => t.includes(word));
      assert.ok(holding.length >= 2, `${holding.length} turns hold ${word}`);
      const found = memory.query({ query: word, limit: 10, mode: 'keyword' }).episodes.map((e) => e.text);
      for (const t of holding) assert.ok(found.includes(t), `${word} not found: ${t.slice(0, 80)}`);
    }
  });
}

test('a question typed without accents finds the accented words of a real transcript, and back', async () => {
  // hpm27/agente-bsc-rag (Portuguese; origin in test/fixtures/real/SOURCES.md) writes every accent.
  const { memory, texts } = await memoryWith({ fixture: 'specstory/user-timestamp-think-details.md' });
  for (const [typed, written] of [
    ['solucao', 'solução'],
    ['configuracao', 'configuração'],
    ['seguranca', 'segurança'],
  ] as const) {
    const holding = texts.filter((t) => new RegExp(`(?<![\\p{L}])${written}(?![\\p{L}])`, 'iu').test(t));
    assert.ok(holding.length >= 2, `${holding.length} turns hold ${written}`);
    assert.ok(!texts.some((t) => new RegExp(`\\b${typed}\\b`, 'i').test(t)), `no turn writes ${typed}`);
    for (const query of [typed, written]) {
      const found = memory.query({ query, limit: 10, mode: 'keyword' }).episodes.map((e) => e.text);
      for (const t of holding.slice(0, 10)) assert.ok(found.includes(t), `${query} did not find: ${t.slice(0, 80)}`);
    }
  }
});

test('identifier words: snake_case, camelCase, PascalCase, acronyms and digits part; a plain word has none', () => {
  assert.deepEqual(identifierWords('fetchInvoices'), ['fetch', 'Invoices']);
  assert.deepEqual(identifierWords('get_user_by_id'), ['get', 'user', 'by', 'id']);
  assert.deepEqual(identifierWords('parseJSONBody'), ['parse', 'JSON', 'Body']);
  assert.deepEqual(identifierWords('HTTPServer'), ['HTTP', 'Server']);
  assert.deepEqual(identifierWords('utf8Decode'), ['utf8', 'Decode']);
  assert.deepEqual(identifierWords('__init__'), ['init']);
  assert.deepEqual(identifierWords('listURLs'), ['list', 'URLs']);
  for (const plain of ['invoices', 'Invoices', 'LGBTQ', 'utf8', '2022', 'APIs', 'URLs', 'IDs'])
    assert.deepEqual(identifierWords(plain), [], plain);
  assert.equal(identifierParts('Call fetchInvoices, then MAX_RETRIES — see get_user_by_id.'), 'fetch Invoices MAX RETRIES get user by id');
  assert.equal(identifierParts('No identifier here, only words.'), '');
});

test('query terms: a code identifier is searched whole and by its words', () => {
  assert.deepEqual(queryTerms('Where is get_user_by_id defined?'), ['get_user_by_id', 'defined', 'user', 'id']);
  assert.deepEqual(queryTerms('Why does fetchInvoices retry?'), ['fetchinvoices', 'retry', 'fetch', 'invoices']);
});

for (const [fixture, identifier, question] of [
  ['aider/multiline-prompts.aider.chat.history.md', 'fillText', 'where do we fill the text?'],
  ['specstory/agent-model-mode-tool-use-slice.md', 'billing_events', 'billing events'],
  ['specstory/agent-model-mode-tool-use-slice.md', 'billing_events', 'which turns write billing_events?'],
] as const) {
  test(`a code identifier in a real transcript is found by its words: ${identifier} for "${question}" in ${fixture}`, async () => {
    const { memory, texts } = await memoryWith({ fixture });
    const words = identifierWords(identifier).map((w) => w.toLowerCase());
    // Turns holding the identifier and none of its words on their own: only its parts can find them.
    const holding = texts.filter((t) => t.includes(identifier) && !words.some((w) => new RegExp(`\\b${w}\\b`, 'i').test(t)));
    assert.ok(holding.length >= 2, `${holding.length} turns hold ${identifier} alone`);
    const found = memory.query({ query: question, limit: 10, mode: 'keyword' }).episodes.map((e) => e.text);
    for (const t of holding) assert.ok(found.includes(t), `not found: ${t.slice(0, 120)}`);
  });
}

test("an entity named by a code identifier is found by the identifier's words", async () => {
  const { memory } = await memoryWith([{ text: 'It retries three times now.', entities: ['fetchInvoices', 'Lunch'] }]);
  const names = memory.query({ query: 'fetch invoices', mode: 'keyword' }).entities.map((e) => e.name);
  assert.deepEqual(names, ['fetchInvoices']);
});

test('a snapshot indexed before identifier words were read is rebuilt from the journal, and then finds them', async () => {
  const folder = tmpFolder('index-text');
  const turns = [
    { text: 'The retry loop lives in fetchInvoices now.', session: 's' },
    { text: 'Lunch was good.', session: 't' },
  ];
  let memory = await Memory.open(folder);
  memory.ingest(turns, { authority: 'user', source: 'test' });
  memory.close({ snapshot: true });
  // The index as schema version 4 wrote it: text and speaker only.
  const file = path.join(folder, SNAPSHOT_FILE);
  const SQL = await loadSqlJs();
  const db = new SQL.Database(fs.readFileSync(file));
  db.create_function('recall_index_text', (t: string | null) => (t === null ? null : indexText(String(t))));
  db.exec(`DROP TABLE episodes_fts; DROP VIEW episodes_indexed;
    CREATE VIEW episodes_indexed AS SELECT rowid AS rowid, recall_index_text(text) AS text, recall_index_text(COALESCE(speaker, '')) AS speaker FROM episodes;
    CREATE VIRTUAL TABLE episodes_fts USING fts4(content="episodes_indexed", text, speaker, tokenize=porter);
    INSERT INTO episodes_fts(episodes_fts) VALUES('rebuild');
    UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
  writeSnapshot(file, db.export());
  db.close();
  const logged: string[] = [];
  memory = await Memory.open(folder, {}, (m) => logged.push(m));
  try {
    assert.ok(
      logged.some((m) =>
        new RegExp(`its schema version is 4, this version reads ${SCHEMA_VERSION}\\); rebuilding it from the journal`).test(m),
      ),
      logged.join('\n'),
    );
    const found = memory.query({ query: 'fetch invoices', mode: 'keyword' }).episodes.map((e) => e.text);
    assert.deepEqual(found, [turns[0]!.text]);
    // With the parts column weighed 0 the turn still matches but scores nothing.
    const off = memory.query({ query: 'fetch invoices', mode: 'keyword' }, withSettings(KEYWORD_RECIPE, { 'candidates.columns.parts': 0 }));
    assert.equal(off.episodes[0]?.score ?? 0, 0);
  } finally {
    memory.close();
  }
});
