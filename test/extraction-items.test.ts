/**
 * A language model's reading produces knowledge items under the same rules as every other source:
 * the prompt asks for them, the answer is read defensively, and the service records them at the
 * model's (agent) authority with the turn as evidence, one item per piece of knowledge. The model
 * is scripted (its answer is a fixed string, as a model could write it); the turns, the service
 * and its store are real.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LIMITS } from '../src/core/model/limits';
import { buildExtractionPrompt, parseExtractedItems, parseExtraction } from '../src/core/ingest/extraction-prompt';
import { MemoryClient } from '../src/service/rpc/client';
import { onCleanup, ROOT, tmpFolder } from './helpers';

const SERVICE = path.join(ROOT, 'dist', 'service.js');

const TURNS = [
  { speaker: 'user', text: 'From now on, do NOT print the connection string in the status endpoint, ever. Also we use Postgres 16.' },
  {
    speaker: 'assistant',
    text: 'The build failed because `tsc` picked up the generated files in dist/; excluding dist in tsconfig.json fixed it.',
  },
  { speaker: 'user', text: 'Again: never print the connection string in the status endpoint.' },
];

/** What a model answered for the three turns: prose and a fence around the JSON, and a few items that must not count. */
const ANSWER = [
  'Here is what I found:',
  '```json',
  JSON.stringify([
    { turn: 1, subject: 'ledger', predicate: 'uses', object: 'Postgres 16' },
    { turn: 1, kind: 'rule', statement: 'Do NOT print the connection string in the status endpoint, ever.', subject: 'status endpoint' },
    { turn: 1, kind: 'decision', statement: 'We use Postgres 16.', subject: 'database' },
    {
      turn: 2,
      kind: 'lesson',
      statement: 'The build failed because tsc picked up generated files in dist/; excluding dist in tsconfig.json fixed it.',
      subject: 'build',
    },
    { turn: 3, kind: 'rule', statement: 'Never print the connection string in the status endpoint.', subject: 'status endpoint' },
    { turn: 3, kind: 'opinion', statement: 'Tabs are nicer than spaces.', subject: 'style' },
    { turn: 9, kind: 'rule', statement: 'Always deploy on Fridays.', subject: 'deploys' },
    { turn: 3, kind: 'rule', statement: 'x '.repeat(LIMITS.statementChars), subject: 'padding' },
    { turn: 3, kind: 'rule', statement: 'Use tabs.' },
  ]),
  '```',
  'Let me know if you need more.',
].join('\n');

test('the prompt asks for knowledge items by kind, negative rules included, and not from quoted or tool text', () => {
  const prompt = buildExtractionPrompt(TURNS);
  assert.match(prompt, /"kind": "\.\.\.", "statement": "\.\.\.", "subject": "\.\.\."/);
  for (const kind of ['rule', 'decision', 'preference', 'fact', 'lesson']) assert.ok(prompt.includes(`"${kind}"`), kind);
  assert.match(prompt, /negative ones too/);
  assert.match(prompt, /Not text quoted, in code or in tool output/);
});

test('a scripted model’s items are read per turn; unknown kinds, turns out of range, overlong or subjectless items are dropped', () => {
  const items = parseExtractedItems(ANSWER, TURNS.length);
  assert.deepEqual(
    items.map((t) => t.map((i) => [i.kind, i.subject])),
    [
      [
        ['rule', 'status endpoint'],
        ['decision', 'database'],
      ],
      [['lesson', 'build']],
      [['rule', 'status endpoint']],
    ],
  );
  assert.deepEqual(
    parseExtraction(ANSWER, TURNS.length).map((t) => t.length),
    [1, 0, 0],
    'relationships are read from the same answer as before',
  );
  assert.deepEqual(parseExtractedItems('I could not find anything.', 2), [[], []]);
});

test('the service records them at the model’s authority with the turn as evidence: the same rule twice is one item', async () => {
  const memory = tmpFolder('lm-items');
  // The offline reader off: what is stored is the model's reading alone (the reader's own is tested in knowledge-read.test.ts).
  fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify({ extract: false }));
  const person = await MemoryClient.connect({ memory, surface: 'cli', serviceScript: SERVICE });
  const model = await MemoryClient.connect({ memory, surface: 'lm', serviceScript: SERVICE });
  onCleanup(() => {
    person.close();
    model.close();
  });
  const ids = (await person.call('ingest', { episodes: TURNS.map((t, i) => ({ ...t, session: 's1', key: String(i) })) })).results.map(
    (r) => r.id,
  );
  const items = parseExtractedItems(ANSWER, TURNS.length);
  const facts = parseExtraction(ANSWER, TURNS.length);
  for (const [i, episode] of ids.entries())
    await model.call('extracted', { episode, facts: facts[i]!, items: items[i]!, extractor: 'scripted-model' });

  const stored = (await person.call('export', {})).facts.filter((f) => f.kind !== undefined);
  const rules = stored.filter((f) => f.kind === 'rule');
  assert.equal(rules.length, 1, `one rule: ${JSON.stringify(rules.map((r) => r.statement))}`);
  assert.deepEqual([...rules[0]!.evidence].sort(), [ids[0], ids[2]].sort(), 'said twice: two evidence turns');
  assert.deepEqual(stored.map((f) => f.kind).sort(), ['decision', 'lesson', 'rule']);
  assert.ok(
    stored.every((f) => f.authority === 'agent'),
    'a model’s reading is weighed as the agent’s, whoever spoke',
  );
  assert.equal(stored.find((f) => f.kind === 'lesson')!.evidence[0], ids[1]);

  // Sent directly, bad items are refused with a clear error and nothing is written.
  const before = (await person.call('export', {})).facts.length;
  await assert.rejects(
    model.call('extracted', {
      episode: ids[0]!,
      facts: [],
      items: [{ kind: 'opinion' as never, statement: 'Tabs.', subject: 'style' }],
      extractor: 'm',
    }),
    /kind/,
  );
  await assert.rejects(
    model.call('extracted', {
      episode: ids[0]!,
      facts: [],
      items: [{ kind: 'rule', statement: 'x '.repeat(LIMITS.statementChars), subject: 'x' }],
      extractor: 'm',
    }),
    /keep it under 500/,
  );
  assert.equal((await person.call('export', {})).facts.length, before);
});
