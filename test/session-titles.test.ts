/**
 * Sessions named as their tools name them, from real transcripts (test/fixtures/real, origins in
 * SOURCES.md): Copilot's customTitle, Claude Code's summary line, else the first question; kept
 * through the journal (a reopened memory rebuilt from it names them the same).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { readTranscriptFile } from '../src/core/ingest/files';
import { LIMITS } from '../src/core/model/limits';
import { MemoryError } from '../src/core/model/errors';
import { SNAPSHOT_FILE } from '../src/core/memory/journaled-graph';
import { tmpFolder } from './helpers';

const REAL = path.join(__dirname, 'fixtures', 'real');
const importer = { authority: 'human' as const, source: 'extension' };

const parse = (file: string) => readTranscriptFile(path.join(REAL, file)).episodes;

test('parsers carry the title each tool gives a session', () => {
  const copilot = parse('copilot/chatsessions-oplog-BUILT-FROM-SOURCE.jsonl');
  assert.ok(
    copilot.every((e) => e.sessionTitle === 'Vitest cannot find module'),
    'Copilot: customTitle set by the operation log',
  );
  // This file continues earlier sessions: only the summary whose leaf is one of its own turns names it.
  const claude = parse('claude-code/compact-summary-slice.jsonl');
  assert.equal(claude[0]!.sessionTitle, 'Three Module Knowledge Base Status and Build Process');
  assert.equal(
    parse('claude-code/background-bash-task-notification.jsonl')[0]!.sessionTitle,
    'Fix Discover Page ChatWelcomeMessageDemo Type Mismatch',
  );
  assert.equal(parse('copilot/chatsession-v3-prompt-completion.json')[0]!.sessionTitle, undefined, 'no title in the file: none invented');
});

test('the Episodes view lists sessions by title, else by the first question, and the journal keeps titles', async () => {
  const dir = tmpFolder('titles');
  const m = await Memory.open(dir, { extract: false });
  const files = [
    'copilot/chatsessions-oplog-BUILT-FROM-SOURCE.jsonl',
    'copilot/chatsession-v3-prompt-completion.json',
    'claude-code/compact-summary-slice.jsonl',
  ];
  for (const f of files) m.ingest(parse(f), importer);
  const listed = () =>
    new Map(
      m
        .browseHandlers()
        .sessions({})
        .sessions.map((s) => [s.session, s.title]),
    );
  const titles = listed();
  assert.equal(titles.get('b5c1e7a2-5d0e-4b8f-9f3a-2c4d6e8f0a1b'), 'Vitest cannot find module');
  assert.equal(titles.get('6cf1b78b-d583-41c0-9193-7e078b05f254'), 'Three Module Knowledge Base Status and Build Process');
  const untitled = titles.get('f62c7874-549c-4c07-9677-f413049d7799')!;
  const firstQuestion = parse('copilot/chatsession-v3-prompt-completion.json')
    .find((e) => e.role === 'user')!
    .text.split('\n')[0]!;
  assert.ok(firstQuestion.startsWith(untitled.replace(/…$/, '')), `"${untitled}" is the first question's first line`);
  assert.ok(untitled.length <= 100);
  m.close({ snapshot: false });

  fs.rmSync(path.join(dir, SNAPSHOT_FILE), { force: true });
  const again = await Memory.open(dir, { extract: false });
  assert.deepEqual(
    new Map(
      again
        .browseHandlers()
        .sessions({})
        .sessions.map((s) => [s.session, s.title]),
    ),
    titles,
    'rebuilt from the journal',
  );
  again.close();
});

test('a title is bounded and redacted; a bad one is refused', async () => {
  const m = await Memory.open(tmpFolder('titles'), { extract: false });
  const key = 'sk-' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0';
  m.remember({ text: 'hello', session: 's1', sessionTitle: `deploy with ${key}` }, importer);
  const title = m.browseHandlers().sessions({}).sessions[0]!.title!;
  assert.ok(!title.includes(key), `the secret is redacted: ${title}`);
  assert.throws(
    () => m.remember({ text: 'x', session: 's2', sessionTitle: 'y'.repeat(LIMITS.sessionTitleChars + 1) }, importer),
    (e: MemoryError) => e.code === 'invalid_input',
  );
  assert.throws(
    () => m.remember({ text: 'x', session: 's2', sessionTitle: 7 as unknown as string }, importer),
    (e: MemoryError) => e.code === 'invalid_input',
  );
  m.close();
});
