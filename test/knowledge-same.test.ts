/**
 * One item per piece of knowledge (issue 28, part 6), on the real store: the same rule said again in
 * other words, or the same lesson, is one item with every turn as its evidence, whichever source
 * reads it (the offline reader, `recall_remember`); a different choice or the opposite rule stays
 * another item. Real turns from test/fixtures/real (origins in its SOURCES.md).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { readTranscriptFile } from '../src/core/ingest/files';
import { sameStatement, statementKey } from '../src/core/memory/knowledge-same';
import { memoryWith, ROOT } from './helpers';

const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
const turnsOf = (file: string, ...at: number[]) => {
  const episodes = readTranscriptFile(path.join(REAL, file)).episodes;
  return at.map((i) => ({ text: episodes[i]!.text, role: episodes[i]!.role, session: 's', project: 'p' }));
};
const same = (a: string, b: string): boolean => sameStatement(statementKey(a), statementKey(b));

test('the same rule said again in other words is one item with both turns (copilot chatsession-v3, turns 0 and 28)', async () => {
  const turns = turnsOf('copilot/chatsession-v3-prompt-completion.json', 0, 28);
  assert.match(turns[0]!.text, /Ensure modular, clean code in a single Python file/);
  assert.match(turns[1]!.text, /Ensure code is modular with comments but in a single file/);
  const { memory, ids } = await memoryWith(turns);
  const modular = memory.export().facts.filter((f) => f.kind === 'rule' && /modular/.test(f.statement ?? ''));
  assert.equal(modular.length, 1, JSON.stringify(modular));
  assert.deepEqual([...modular[0]!.evidence].sort(), [...ids].sort(), 'both turns are its evidence');
});

test('the same lesson the agent states twice is one item (cline feedback, turns 3 and 4)', async () => {
  const { memory } = await memoryWith(turnsOf('cline/feedback-resumption-api_conversation_history.slice.json', 3, 4));
  const lessons = memory.export().facts.filter((f) => f.kind === 'lesson' && /peer dependency conflict/.test(f.statement ?? ''));
  assert.equal(lessons.length, 1, JSON.stringify(lessons.map((l) => l.statement)));
  assert.equal(lessons[0]!.evidence.length, 2);
});

test('near misses stay two items: another choice, the opposite rule', async () => {
  const pairs: [string, string][] = [
    ['Always use pnpm.', 'Never use pnpm.'],
    ['Do not use pnpm in this project.', 'Use pnpm in this project.'],
    ['Always use pnpm in this project for every install.', 'Always use npm in this project for every install.'],
    ['Use pnpm.', 'Use npm.'],
  ];
  for (const [a, b] of pairs) {
    assert.equal(same(a, b), false, `${a} | ${b}`);
    const { memory } = await memoryWith([
      { text: a, role: 'user', project: 'p' },
      { text: b, role: 'user', project: 'p' },
    ]);
    const items = memory.export().facts.filter((f) => f.kind);
    assert.equal(items.length, 2, `${a} | ${b}: ${JSON.stringify(items.map((f) => f.statement))}`);
  }
  // The negative said in other words is still the same rule.
  assert.equal(
    same('Do NOT print the connection string in the status endpoint, ever.', 'Never print the connection string in the status endpoint.'),
    true,
  );
  assert.equal(same("Don't use external libraries.", 'Avoid external libraries.'), true);
  // A statement that names another among many more words lists it: Creative-Planning/pyfabric
  // CLAUDE.md (origin in test/fixtures/knowledge/SOURCES.md), its "Testing" line and its layout block.
  assert.equal(
    same(
      'Testing: pytest (tests in `tests/`)',
      'Sub-package Structure: client/ (Auth, REST API, HTTP client for Fabric service); items/ (Create, load, save, validate Fabric item definitions); data/ (OneLake DFS, SQL connections, lakehouse table I/O); workspace/ (Workspace-level operations); testing/ (pytest fixtures, DuckDB Spark mock for users); cli.py (CLI entry point)',
    ),
    false,
  );
  assert.equal(
    same(
      'Ensure modular, clean code in a single file.',
      'Ensure code is modular, clean and kept in a single Python file that runs directly.',
    ),
    true,
  );
});

test('the opposite rule in the other languages the reader reads is another item; "always" there marks, as in English', () => {
  const opposite: [string, string][] = [
    ['Toujours utiliser YARN pour les paquets', 'Ne jamais utiliser YARN pour les paquets'],
    ['Utilise YARN pour les paquets', "N'utilise pas YARN pour les paquets"],
    ['Verwende TypeScript im Backend', 'Verwende kein TypeScript im Backend'],
    ['Usa PostgreSQL en el backend', 'No usa PostgreSQL en el backend'],
    ['Usare PostgreSQL nel backend', 'Non usare PostgreSQL nel backend'],
    ['pnpm을 사용하세요', 'pnpm을 사용하지 마세요'],
  ];
  for (const [a, b] of opposite) assert.equal(same(a, b), false, `${a} | ${b}`);
  assert.equal(same('Verwende immer TypeScript im Backend', 'Verwende TypeScript im Backend'), true);
  assert.equal(same('Responde siempre en español', 'Responde en español'), true);
  // A word that only starts like a negation ("non-blocking") says nothing of the rule's polarity.
  assert.equal(same('Use non-blocking IO in the server', 'Use blocking IO in the server'), false);
  assert.equal(same('Use non-blocking IO in the server', 'Always use non-blocking IO in the server'), true);
  // A file's do's and don'ts marked, not worded: "❌ X" is the opposite of "✅ X".
  assert.equal(same('❌ Use `any` in new code', '✅ Use `any` in new code'), false);
  assert.equal(same('❌ Use `any` in new code', 'Never use `any` in new code'), true);
});

test('one rule for every source: a rule the agent remembers is the rule the person said (remember, then a turn)', async () => {
  const { memory } = await memoryWith([]);
  const by = { authority: 'agent' as const, source: 'mcp', project: 'p' };
  const remembered = memory.remember(
    { text: 'Keep the code modular, with comments, in a single file.', kind: 'rule', subject: 'code', project: 'p' },
    by,
  );
  const said = memory.ingest([{ text: 'Ensure modular, clean code in a single file.', role: 'user', project: 'p' }], {
    authority: 'user',
    source: 'cli',
    project: 'p',
  });
  const rules = memory.export().facts.filter((f) => f.kind === 'rule');
  assert.equal(rules.length, 1, JSON.stringify(rules.map((f) => f.statement)));
  assert.ok(rules[0]!.evidence.includes(said.results[0]!.id), 'the turn is new evidence for the remembered rule');
  assert.ok(remembered.item, JSON.stringify(remembered));
});
