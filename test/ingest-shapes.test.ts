/**
 * The transcript shapes that broke provenance (issue 29), read from the real public files that have
 * them (test/fixtures/real, SOURCES.md): only the person's words at user authority, the model's and
 * the tools' never, and a turn dated from the file whenever it says when. The few inputs written
 * here are labelled: they cut a rule down to its smallest case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTranscriptFile } from '../src/core/ingest/files';
import { parseTranscript } from '../src/core/ingest/detect';
import { Fences } from '../src/core/ingest/fences';
import { ROOT } from './helpers';

const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
const read = (file: string) => readTranscriptFile(path.join(REAL, file));
const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

test("aider architect mode: the architect's plan echoed to the editor model is not the person's", () => {
  const { episodes } = read('aider/architect-echo-heading.aider.chat.history.md');
  const user = episodes.filter((e) => e.authority === 'user');
  const replies = episodes.filter((e) => e.authority === 'agent').map((e) => flat(e.text));
  for (const u of user) assert.ok(!replies.includes(flat(u.text)), `a reply stored as the person's: ${u.text.slice(0, 60)}`);
  assert.ok(!user.some((u) => u.text.startsWith('To implement a program using the Actix framework')), 'the first echoed plan');
  assert.ok(!user.some((u) => u.text === '<blank>'), "aider's note for an empty input is nobody's words");
  // The model's own `#### ` heading stays in its reply.
  const reply = episodes.find((e) => e.ref === 'line 1420');
  assert.equal(reply?.authority, 'agent');
  assert.match(reply!.text, /^#### `tests\/integration_test\.rs`$/m);
  // Each response ends at aider's cost line: two responses in a row are two turns.
  assert.deepEqual(
    episodes.filter((e) => ['line 1230', 'line 1271'].includes(e.ref!)).map((e) => e.authority),
    ['agent', 'agent'],
  );
});

test("aider: a reply that writes many `####` headings keeps them; aider's own yes/no question answered is nobody's turn", () => {
  // Ahmad-A0/Inversity-SnapSwap (test/fixtures/knowledge/SOURCES.md): 15 of its 76 `#### ` lines are the replies'
  // headings, without the two spaces aider ends a prompt line with, and were read as the person's turns.
  const file = path.join(ROOT, 'test/fixtures/knowledge/transcripts/aider/tf-snapswap-client-openai.aider.chat.history.md');
  const { episodes } = readTranscriptFile(file);
  const user = episodes.filter((e) => e.authority === 'user');
  assert.deepEqual(
    user.map((e) => e.ref),
    ['line 21', 'line 139', 'line 549', 'line 634', 'line 812', 'line 1676', 'line 2388', 'line 3422', 'line 3489'],
  );
  assert.ok(!user.some((u) => /^Add the function to handle the image upload/.test(u.text)), "a reply's heading");
  assert.ok(!user.some((u) => /\(Y\)es\/\(N\)o/.test(u.text)), "aider's question and its answer");
  assert.match(episodes.find((e) => e.ref === 'line 31')!.text, /^#### Add the function to handle the image upload$/m);
});

test('aider: <think> blocks a model left in its reply are not stored (written here: no public history has one)', () => {
  const history = [
    '# aider chat started at 2025-05-01 10:00:00',
    '',
    '#### which port does the api use?  ',
    '',
    '<think>',
    'The user asks about the port. Let me look at config.ts.',
    '</think>',
    '',
    'The API listens on port 8080 (config.ts).',
    '',
    '> Tokens: 1.0k sent, 50 received.  ',
  ].join('\n');
  const { episodes } = parseTranscript(history, '.aider.chat.history.md');
  assert.deepEqual(
    episodes.map((e) => [e.authority, e.text]),
    [
      ['user', 'which port does the api use?'],
      ['agent', 'The API listens on port 8080 (config.ts).'],
    ],
  );
});

test('Claude session export in markdown: tool results, tool calls, thinking and command expansions are no turn', () => {
  const { episodes, format } = read('claude-export/session-export-json-blocks.md');
  assert.equal(format, 'markdown');
  for (const e of episodes) {
    assert.doesNotMatch(e.text, /"tool_use_id"|"type": "(tool_use|tool_result|thinking)"|^\[/, e.text.slice(0, 60));
    assert.equal(e.session, '0ebcb499-3590-48f2-9f1a-c7ecc8f43e94', 'the session the export names');
  }
  assert.deepEqual(
    episodes.filter((e) => e.authority === 'user').map((e) => e.text),
    ['1'],
  );
  assert.equal(episodes[0]!.text.slice(0, 40), "I'll help you catch up on this project. ");
  assert.equal(episodes[0]!.time, new Date('12/1/2025, 12:39:04 AM').toISOString(), 'the date under its marker');
});

test('content blocks written as Python repr under "## USER (date)" (written here: the shape of a public export)', () => {
  const md = [
    '# Claude Code - demo',
    '',
    '## USER (2026-07-20 11:20:47)',
    '',
    'sync the two volumes',
    '',
    '---',
    '',
    '## ASSISTANT (2026-07-20 11:20:52)',
    '',
    "[{'type': 'thinking', 'thinking': 'The user wants to sync.', 'signature': 'Ep4E'}]",
    '',
    '---',
    '',
    '## ASSISTANT (2026-07-20 11:20:54)',
    '',
    "[{'type': 'tool_use', 'id': 'toolu_1', 'name': 'Bash', 'input': {'command': 'df -h'}}]",
    '',
    '---',
    '',
    '## USER (2026-07-20 11:20:55)',
    '',
    "[{'tool_use_id': 'toolu_1', 'type': 'tool_result', 'content': '/dev3 2.9T', 'is_error': False}]",
    '',
    '---',
    '',
    '## ASSISTANT (2026-07-20 11:21:51)',
    '',
    "[{'type': 'text', 'text': 'Use rclone with \\'--transfers 32\\'.\\nIt is faster.'}]",
  ].join('\n');
  assert.deepEqual(
    parseTranscript(md, 'demo.md').episodes.map((e) => [e.authority, e.time, e.text]),
    [
      ['user', new Date('2026-07-20T11:20:47').toISOString(), 'sync the two volumes'],
      ['agent', new Date('2026-07-20T11:21:51').toISOString(), "Use rclone with '--transfers 32'.\nIt is faster."],
    ],
  );
});

test("Gemini export with quoted bodies: unquoted, and the CLI's setup, its reply and its nudges are nobody's turn", () => {
  const { episodes, format } = read('gemini/quoted-user-model-export.md');
  assert.equal(format, 'gemini');
  for (const e of episodes) assert.doesNotMatch(e.text, /^>|This is the Gemini CLI|^Got it\. Thanks|^Please continue\.$|\*\*Tool Call/m);
  assert.match(episodes.find((e) => e.authority === 'user')!.text, /^ALWAYS begin your response by telling me what AI model/);
  assert.ok(
    episodes.every((e) => e.time === '2025-08-11'),
    'dated by the day its setup context states',
  );
});

test('SpecStory: code fences inside diffs and a fence glued to text do not hide the markers after them', () => {
  const { episodes } = read('specstory/2025-04-27_21-51-project-initialization-task-for-minsky.md');
  assert.deepEqual(
    episodes.map((e) => `${e.authority} ${e.ref}`),
    [
      'user line 5',
      'agent line 29',
      'user line 415',
      'agent line 421',
      'user line 510',
      'agent line 528',
      'user line 629',
      'agent line 637',
      'user line 768',
      'agent line 776',
      'user line 851',
    ],
  );
  for (const e of episodes) assert.doesNotMatch(e.text, /^_\*\*(User|Assistant)\*\*_$/m, 'no marker inside a turn');
  assert.equal(episodes[0]!.time, new Date('2025-04-27T17:51:55').toISOString(), "the title's time");
});

test('fences: a diff context line or a removed fence never closes the diff; a quote that ends ends its fence', () => {
  const f = new Fences();
  const lines = ['```diff', '  ```bash', '- ```', '+ ```sh', '  ```', '```', '**User:** after'];
  assert.deepEqual(
    lines.map((l) => f.step(l)),
    [true, true, true, true, true, true, false],
  );
  const q = new Fences();
  assert.deepEqual(
    ['> ```json', '> {"a": 1}', '**Model:**'].map((l) => q.step(l)),
    [true, true, false],
    'a fence opened in a quote is not left open by the quote',
  );
});

test('Claude Code terminal text with "> " prompts and "⏺ " replies is read; tool calls and bare commands are not turns', () => {
  const { episodes, format } = read('claude-export/terminal-gt-record.txt');
  assert.equal(format, 'claude-export');
  assert.equal(episodes.filter((e) => e.authority === 'user').length, 6);
  for (const e of episodes) assert.doesNotMatch(e.text, /^(\/cost|Update Todos|Read\(|Update\(|Write\()/, e.text.slice(0, 40));
});

test('a markdown turn over 32 KB is flagged as suspect (written here: the smallest such file)', () => {
  const md = `**User:** please look\n\n**Assistant:** ${'a long reply line\n'.repeat(2000)}`;
  assert.deepEqual(parseTranscript(md, 'chat.md').suspect, ['line 3']);
  assert.equal(parseTranscript('**User:** hi\n\n**Assistant:** hello\n', 'chat.md').suspect, undefined);
});

test("turns the file does not date: the date its name starts with, else its modification time, never the import's", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-dates-'));
  try {
    const named = path.join(dir, '2025-03-04_10-20-pick-a-queue.md');
    fs.writeFileSync(named, '**User:** which queue?\n\n**Assistant:** SQS.\n');
    const byName = readTranscriptFile(named);
    assert.deepEqual(byName.dating, { content: 0, name: 2, modified: 0 });
    assert.ok(byName.episodes.every((e) => e.time === '2025-03-04T10:20:00.000Z'));

    const plain = path.join(dir, 'chat.md');
    fs.writeFileSync(plain, '**User:** which queue?\n\n**Assistant:** SQS.\n');
    const when = new Date('2024-11-05T08:00:00Z');
    fs.utimesSync(plain, when, when);
    const byMtime = readTranscriptFile(plain);
    assert.deepEqual(byMtime.dating, { content: 0, name: 0, modified: 2 });
    assert.ok(byMtime.episodes.every((e) => e.time === when.toISOString()));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pretty-printed copy of a Claude Code session gives the same turns with the same keys', () => {
  const a = read('claude-code/queued-command-slice.jsonl').episodes;
  const b = read('claude-code/queued-command-slice.PRETTY-BUILT.json').episodes;
  assert.equal(a.length, 6);
  assert.deepEqual(
    b.map((e) => [e.session, e.speaker, e.key, e.text]),
    a.map((e) => [e.session, e.speaker, e.key, e.text]),
  );
  // The same events saved as one JSON array (`jq -s .`) read the same too.
  const lines = fs.readFileSync(path.join(REAL, 'claude-code/queued-command-slice.jsonl'), 'utf8').split('\n').filter(Boolean);
  const array = parseTranscript(
    JSON.stringify(
      lines.map((l) => JSON.parse(l)),
      null,
      2,
    ),
    'session.json',
  ).episodes;
  assert.deepEqual(
    array.map((e) => e.text),
    a.map((e) => e.text),
  );
});
