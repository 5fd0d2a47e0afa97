/**
 * The memory files people already keep (AGENTS.md, CLAUDE.md, Cursor rules, Cline's memory bank…)
 * read as knowledge items: which files are memory files, the items real ones hold (counted by hand
 * from test/fixtures/memory-files, origins in its SOURCES.md), their authority from git (real
 * repositories in temp folders, the built CLI as a process), and how an item goes stale when its
 * lines change and ends when they are deleted (a real store on disk).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { memoryFileItems } from '../src/core/ingest/memory-file-items';
import { memoryFileType, notMemoryFile, readMemoryFileText } from '../src/core/ingest/memory-files';
import { LIMITS } from '../src/core/model/limits';
import type { Memory } from '../src/core/memory/memory';
import type { MemoryFileInput } from '../src/core/memory/memory-files';
import { CLI, memoryWith, ROOT, tmpFolder } from './helpers';

const FIX = path.join(__dirname, 'fixtures', 'memory-files');
const HUMAN = { authority: 'human' as const };
const MINE = { authority: 'user' as const, authors: [] };
const tmp = (tag: string): string => tmpFolder(`mf-${tag}`);

const kinds = (items: { kind: string }[]): Record<string, number> =>
  items.reduce<Record<string, number>>((acc, i) => ({ ...acc, [i.kind]: (acc[i.kind] ?? 0) + 1 }), {});

test('memory files are known by where they sit; a README, a transcript or Recall’s own instructions are not', () => {
  const home = '/home/p';
  const vscode = '/home/p/.config/Code/User';
  const yes: [string, string, boolean?][] = [
    ['/r/AGENTS.md', 'AGENTS.md'],
    ['/r/CLAUDE.md', 'CLAUDE.md'],
    ['/r/.claude/CLAUDE.md', 'CLAUDE.md'],
    ['/home/p/.claude/CLAUDE.md', '~/.claude/CLAUDE.md', true],
    ['/r/CLAUDE.local.md', 'CLAUDE.local.md'],
    ['/r/.github/copilot-instructions.md', 'Copilot instructions'],
    ['/r/.github/instructions/python.instructions.md', 'Copilot instructions'],
    ['/r/.cursor/rules/general.mdc', 'Cursor rule'],
    ['/r/.cursor/rules/backend/api.mdc', 'Cursor rule'],
    ['/r/.cursorrules', '.cursorrules'],
    ['/r/.clinerules', 'Cline rules'],
    ['/r/.clinerules/01-style.md', 'Cline rules'],
    ['/r/.windsurfrules', '.windsurfrules'],
    ['/r/memory-bank/activeContext.md', 'Cline memory bank'],
    ['/home/p/.claude/projects/-r/memory/MEMORY.md', 'Claude Code memory'],
    [`${vscode}/globalStorage/github.copilot-chat/memory-tool/memories/preferences.md`, 'VS Code memory', true],
    [`${vscode}/workspaceStorage/ab12/GitHub.copilot-chat/memory-tool/memories/repo/testing.json`, 'VS Code memory'],
  ];
  for (const [file, label, global] of yes) {
    const type = memoryFileType(file, home);
    assert.equal(type?.label, label, file);
    assert.equal(type?.global === true, global === true, `${file}: global`);
    assert.equal(notMemoryFile(file, home), undefined);
  }
  const no = [
    '/r/README.md',
    '/r/AGENTS.txt',
    '/r/docs/agents.md',
    '/r/.github/copilot-instructions.txt',
    '/r/.github/workflows/ci.instructions.md',
    '/r/memory-bank/diagram.png',
    '/r/.specstory/history/2025-01-01_chat.md',
    '/r/.cursor/plans/refactor.plan.md',
    // A chat's own scratchpad, cleared with it: not the person's memory.
    `${vscode}/workspaceStorage/ab12/GitHub.copilot-chat/memory-tool/memories/3f2a9c/notes.md`,
  ];
  for (const file of no) {
    assert.equal(memoryFileType(file, home), undefined, file);
    assert.match(notMemoryFile(file, home)!, /is not a memory file \(those are AGENTS\.md, CLAUDE\.md/);
  }
  const own = '/r/.github/instructions/recall.instructions.md';
  assert.equal(memoryFileType(own, home), undefined);
  assert.match(notMemoryFile(own, home)!, /the instructions file Recall writes for Copilot; it is never read back/);
});

/** Hand counts of each fixture under the mapping in src/core/ingest/memory-file-items.ts (see SOURCES.md). */
const REAL: { file: string; kinds: Record<string, number> }[] = [
  { file: 'wxvx/AGENTS.md', kinds: { rule: 16, fact: 6 } },
  // bench's line 11, "Bench is a tool for workflow and resource management.", says what the project is: a fact.
  { file: 'bench/.cursor/rules/general.mdc', kinds: { rule: 16, fact: 10 } },
  // nftbk: a lead whose items are all a few words ("**Multi-Chain Support**:", then chains) is one item with them.
  { file: 'nftbk/memory-bank/activeContext.md', kinds: { fact: 21, rule: 3, decision: 8 } },
  { file: 'bitbank-bot/.cursorrules', kinds: { rule: 3, fact: 2 } },
];

test('real memory files: the items counted by hand, by kind; code, examples and front matter give none', () => {
  const items = new Map(
    REAL.map(({ file }) => {
      const full = path.join(FIX, file);
      return [file, memoryFileItems(readMemoryFileText(full).text, memoryFileType(full)!)] as const;
    }),
  );
  for (const r of REAL) assert.deepEqual(kinds(items.get(r.file)!), r.kinds, r.file);

  const at = (file: string, line: number) => items.get(file)!.find((i) => i.startLine === line);
  const wxvx = 'wxvx/AGENTS.md';
  assert.deepEqual(
    { ...at(wxvx, 16), text: undefined },
    {
      kind: 'rule',
      statement: 'Do not `git commit` anything unless instructed to do so.',
      subject: 'AGENTS.md', // under "General": too generic a heading to be about
      startLine: 16,
      endLine: 16,
      text: undefined,
    },
  );
  assert.equal(at(wxvx, 7), undefined, 'a lead-in ending in ":" is not an item');
  assert.equal(at(wxvx, 8)?.kind, 'fact', '"`wxvx.config` owns config models…" describes');
  assert.equal(at(wxvx, 22)?.subject, 'Formatting');
  assert.equal(at(wxvx, 31)?.kind, 'rule', '"In general, iterate by…": the instruction after the opening clause');

  const bench = 'bench/.cursor/rules/general.mdc';
  assert.ok(!items.get(bench)!.some((i) => i.startLine <= 5), 'the front matter is the rule’s metadata');
  assert.ok(
    !items.get(bench)!.some((i) => (i.startLine >= 29 && i.startLine <= 31) || (i.startLine >= 37 && i.startLine <= 40)),
    'a code fence and examples are not statements',
  );
  assert.equal(at(bench, 27)?.statement, 'Follow Conventional Commits', 'an instructing sentence of a paragraph, link text kept');
  assert.deepEqual(
    [at(bench, 11)?.kind, at(bench, 11)?.statement],
    ['fact', 'Bench is a tool for workflow and resource management.'],
    'what the project is: a fact, though prose',
  );
  assert.equal(at(bench, 33)?.subject, 'type');

  const nftbk = 'nftbk/memory-bank/activeContext.md';
  assert.deepEqual([at(nftbk, 41)?.kind, at(nftbk, 41)?.subject], ['decision', 'Sequential Processing']);
  assert.deepEqual(
    [at(nftbk, 7)?.kind, at(nftbk, 7)?.subject, at(nftbk, 7)?.statement],
    ['fact', 'Multi-Chain Support', 'Multi-Chain Support: Ethereum-based chains (Ethereum, Zora, Base, Arbitrum); Tezos blockchain'],
    'a lead and the short items under it: one statement',
  );
  assert.equal(at(nftbk, 8), undefined, 'read with its lead');
  assert.equal(at(nftbk, 11), undefined, 'a lead with a longer item under it says nothing itself');
  assert.equal(at(nftbk, 12)?.statement, 'Metadata retrieval and storage', 'and its items are read one by one');
});

test('quoted, fenced, tabled and commented text is not the person’s rule; long statements are cut at a sentence', () => {
  const type = memoryFileType('/r/AGENTS.md')!;
  const text = [
    '# Rules',
    '',
    '> Never use tabs.',
    '',
    '```md',
    '- Always deploy on Fridays.',
    '```',
    '',
    '| Use pnpm | always |',
    '|---|---|',
    '<!-- Always skip the tests. -->',
    '<!--',
    '- Never review code.',
    '-->',
    '@docs/more-rules.md',
    '',
    '- Never log the database URL.',
    `- Never keep a module that does two things; ${'split it, and split it again, '.repeat(20).trim()} until each does one.`,
  ].join('\n');
  const items = memoryFileItems(text, type);
  assert.deepEqual(
    items.map((i) => [i.startLine, i.kind, i.statement.slice(0, 30)]),
    [
      [17, 'rule', 'Never log the database URL.'],
      [18, 'rule', 'Never keep a module that does '],
    ],
  );
  assert.ok(
    items[1]!.statement.length <= LIMITS.statementChars && items[1]!.statement.endsWith('…'),
    'a sentence over the bound is cut at a word',
  );
});

test('a list item too long for one statement is read sentence by sentence; a dot inside a name does not end one', () => {
  // The words of a real CLAUDE.md (test/fixtures/knowledge/instructions/mozgoslav/frontend/CLAUDE.md, lines 41–49).
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'mozgoslav', 'frontend', 'CLAUDE.md');
  const items = memoryFileItems(readMemoryFileText(full).text, memoryFileType(full)!).filter((i) => i.startLine >= 41);
  assert.deepEqual(
    items.map((i) => [i.startLine, i.endLine, i.statement.slice(0, 40)]),
    [
      [41, 42, 'Transport policy (per #120): components '],
      [42, 45, 'All GraphQL operations go through Redux-'],
      [45, 48, 'Tests preload state via `testUtils/mockS'],
      [48, 49, 'The sole legitimate REST caller remains '],
    ],
  );
  assert.match(items[1]!.statement, /owns the `graphqlClient\.request`, reducer reflects the outcome, selectors expose the state\.$/);
  assert.equal(items[0]!.kind, 'rule', '"never import": an instruction');
});

test('an instruction ending in ":" is completed by the short items under it; items that instruct stay their own', () => {
  // ALehav1/language-app .windsurfrules (origin in test/fixtures/knowledge/SOURCES.md), lines 248–252 and 262–265.
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'language-app', '.windsurfrules');
  const items = memoryFileItems(readMemoryFileText(full).text, memoryFileType(full)!);
  const at = (line: number) => items.find((i) => i.startLine === line);
  assert.deepEqual(
    [at(248)?.kind, at(248)?.statement, at(248)?.endLine],
    ['rule', 'All shared logic must assume: multiple languages; non-Latin scripts; LTR and RTL layouts; text + voice (future)', 252],
  );
  assert.equal(at(262)?.statement, 'An Added Context tile must exist in: Lookup results; Lesson word detail; Exercise word detail');
  assert.ok(!items.some((i) => i.statement === 'LTR and RTL layouts'), 'the parts are not facts of their own');
  // Written for this test: items that instruct, and a lead-in that is no instruction.
  const read = (text: string) => memoryFileItems(text, memoryFileType('/r/AGENTS.md')!).map((i) => [i.kind, i.statement]);
  assert.deepEqual(read('Before a release you must:\n- run the full test suite\n- update the changelog file\n'), [
    ['rule', 'Before a release you must'],
    ['rule', 'run the full test suite'],
    ['rule', 'update the changelog file'],
  ]);
  // A lead that instructs nothing is completed by short items too (lines 52-56: a gate's checklist), never by an entry
  // described after a dash (muzakily's CLAUDE.md, lines 86-88) or an item that says more.
  assert.equal(
    at(52)?.statement,
    'GATE A: Diagnosis note exists and lists: reproduction steps; expected vs actual; suspected root cause; impacted views',
  );
  assert.ok(!items.some((i) => i.statement === 'expected vs actual'), 'the parts are not facts of their own');
  assert.deepEqual(read('The app has three parts:\n- the web client\n- the API server\n'), [
    ['fact', 'The app has three parts: the web client; the API server'],
  ]);
  const docs = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'muzakily', 'CLAUDE.md');
  const described = memoryFileItems(readMemoryFileText(docs).text, memoryFileType(docs)!).filter((i) => i.startLine >= 86);
  assert.deepEqual(
    described.slice(0, 2).map((i) => [i.startLine, i.statement]),
    [
      [87, '`docs/developer/smart-playlists.md` - Smart playlist rules, materialization, caching'],
      [88, '`docs/api/endpoints/playlists.md` - Playlist API including tag operators'],
    ],
  );
  assert.deepEqual(read('The app has two parts:\n- the web client\n- the API server that every mobile client talks to\n'), [
    ['fact', 'the web client'],
    ['fact', 'the API server that every mobile client talks to'],
  ]);
});

test('a modal in a relative clause, or a verb-like word opening a subject, does not make a rule', () => {
  // Creative-Planning/pyfabric CLAUDE.md (origin in test/fixtures/knowledge/SOURCES.md), line 10, and near misses written here.
  const read = (text: string) => memoryFileItems(`# About\n\n${text}\n`, memoryFileType('/r/AGENTS.md')!).map((i) => [i.kind, i.statement]);
  assert.deepEqual(
    read('Target users are AI coding assistants and developers who need to generate and test Fabric item definitions locally.'),
    [],
  );
  assert.deepEqual(read('Tools that must run offline are listed below.'), []);
  assert.deepEqual(read('Developers who need to deploy must ask first.'), [['rule', 'Developers who need to deploy must ask first.']]);
  assert.deepEqual(read('Ensure countries are always in Title Case.'), [['rule', 'Ensure countries are always in Title Case.']]);
  assert.deepEqual(read('- Test files live in `tests/`'), [['fact', 'Test files live in `tests/`']]);
});

test('an item under "DO NOT:" says it is forbidden; a heading that asks or directs is no subject', () => {
  // Real files in test/fixtures/knowledge/instructions (origins in its SOURCES.md): spatialvault's lines 153-161, pyfabric's 173-178.
  const KNOW = path.join(__dirname, 'fixtures', 'knowledge', 'instructions');
  const read = (file: string, from: number, to: number) => {
    const full = path.join(KNOW, file);
    return memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!).filter((i) => i.startLine >= from && i.startLine <= to);
  };
  const forbidden = read('spatialvault/.github/copilot-instructions.md', 153, 161);
  assert.equal(forbidden.length, 8, 'the eight items under "### DO NOT:"');
  assert.deepEqual(forbidden[0] && [forbidden[0].kind, forbidden[0].statement], [
    'rule',
    'DO NOT: Commit secrets, credentials, or sensitive data',
  ]);
  assert.ok(
    forbidden.every((i) => i.kind === 'rule' && i.statement.startsWith('DO NOT: ')),
    JSON.stringify(forbidden),
  );
  assert.ok(
    read('spatialvault/.github/copilot-instructions.md', 145, 151).every((i) => !i.statement.startsWith('DO')),
    'the items under "### DO:" are as written',
  );
  // "## What NOT to Do": its items say "Do not" themselves, and the heading names nothing they are about.
  const pyfabric = read('pyfabric/CLAUDE.md', 173, 178);
  assert.equal(pyfabric[0]?.statement, 'Do not add `__version__ = "..."` manually anywhere');
  assert.ok(pyfabric.length === 4 && pyfabric.every((i) => i.subject === 'CLAUDE.md'), JSON.stringify(pyfabric));
  // language-app's .windsurfrules, lines 161-164: a paragraph "Forbidden:" leads a list of short items.
  assert.deepEqual(
    read('language-app/.windsurfrules', 161, 164).map((i) => [i.kind, i.statement]),
    [
      ['rule', 'Forbidden: Opportunistic cleanup'],
      ['rule', 'Forbidden: Multi-concern PRs'],
      ['rule', 'Forbidden: Silent behavior changes'],
    ],
  );
  // language-app's lines 133-135 and 149-151: a list item's lead completed by the few words under it is one item,
  // and a lead that instructs ("Define interfaces/types for:") is not what its items are about.
  const led = (from: number) => read('language-app/.windsurfrules', from, from + 2).map((i) => [i.kind, i.statement, i.subject]);
  assert.deepEqual(led(133), [
    ['rule', 'Define interfaces/types for: persisted data; cross-component props', 'TypeScript Rules (No Exceptions)'],
  ]);
  assert.deepEqual(led(149), [['fact', 'Errors: user-friendly UI messages; technical detail in console', 'Errors']]);
  // Made up: a bullet lead-in forbids its sub-items, and is not their subject.
  const lead = memoryFileItems('# Rules\n\n## Git\n\n- **Don’t**:\n  - Use var in new code\n', memoryFileType('/r/AGENTS.md')!);
  assert.deepEqual(
    lead.map((i) => [i.statement, i.subject]),
    [['Don’t: Use var in new code', 'Git']],
  );
  // Made up: an item marked as a don't is a rule, as marked; one marked done or right is left as written,
  // a rule only where its heading sets out rules.
  const marked = (heading: string) =>
    memoryFileItems(
      `# ${heading}\n\n- ❌ Use \`any\` in new code\n- ✅ Use \`unknown\` and narrow it\n`,
      memoryFileType('/r/CLAUDE.md')!,
    ).map((i) => [i.kind, i.statement]);
  assert.deepEqual(marked('Notes'), [
    ['rule', '❌ Use `any` in new code'],
    ['fact', '✅ Use `unknown` and narrow it'],
  ]);
  assert.deepEqual(marked('Rules'), [
    ['rule', '❌ Use `any` in new code'],
    ['rule', '✅ Use `unknown` and narrow it'],
  ]);
  // A bold label that directs or quotes is no subject either: muzakily's CLAUDE.md line 39, orcasync's testing instructions line 69.
  // Its label says never, so it is a rule whatever follows; the emphasis around the code span is gone, the span kept.
  const never = read('muzakily/CLAUDE.md', 39, 39)[0];
  assert.deepEqual(
    [never?.kind, never?.statement, never?.subject],
    ['rule', 'NEVER run `php artisan migrate:fresh` - destroys all data', 'Dangerous Commands - NEVER RUN'],
  );
  const quoted = read('orcasync/.github/instructions/testing.instructions.md', 69, 69)[0];
  assert.ok(quoted && !quoted.subject.includes('mocker'), JSON.stringify(quoted));
  // Made up: a heading with both (do's and don'ts) says nothing of one item.
  const both = memoryFileItems("# Rules\n\n## Do's and Don'ts\n\n- Commit small changes often\n", memoryFileType('/r/AGENTS.md')!);
  assert.deepEqual(
    both.map((i) => i.statement),
    ['Commit small changes often'],
  );
});

test('a list of links indexes other files, a title naming a learning app heads no lessons, a sentence about the file is none', () => {
  // Real files in test/fixtures/knowledge/instructions (origins in its SOURCES.md).
  const KNOW = path.join(__dirname, 'fixtures', 'knowledge', 'instructions');
  const items = (file: string) => {
    const full = path.join(KNOW, file);
    return memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!);
  };
  // translation-bundle's CLAUDE.md, lines 33-35: "- [Code Style & PHP](.claude/code-style.md)" and two more.
  assert.deepEqual(
    items('translation-bundle/CLAUDE.md').filter((i) => i.startLine >= 33 && i.startLine <= 35),
    [],
  );
  // language-app's .windsurfrules opens "# 🌊 Windsurf Rules — Language Learning App": its items are not lessons.
  const opening = items('language-app/.windsurfrules').filter((i) => i.startLine <= 12);
  assert.ok(opening.length > 0 && opening.every((i) => i.kind !== 'lesson'), JSON.stringify(opening));
  // Its line 3, "This file defines how coding agents must operate on this project.", says what the file is: no item.
  assert.ok(!opening.some((i) => i.startLine === 3), JSON.stringify(opening));
});

test('a memory file over its bound, or not text, fails with a clear error naming the limit', () => {
  const dir = tmp('bounds');
  const big = path.join(dir, 'AGENTS.md');
  fs.writeFileSync(big, `- Use tabs.\n${'x'.repeat(LIMITS.memoryFileBytes)}`);
  assert.throws(() => readMemoryFileText(big), new RegExp(`is \\d+ KB; memory files are read up to ${LIMITS.memoryFileBytes / 1024} KB`));
  const binary = path.join(dir, 'CLAUDE.md');
  fs.writeFileSync(binary, Buffer.from([0x2d, 0x20, 0x55, 0x00, 0x01]));
  assert.throws(() => readMemoryFileText(binary), /not a text file/);
  const many = Array.from({ length: LIMITS.memoryFileItems + 1 }, (_, i) => `- Use rule number ${i} everywhere.`).join('\n');
  assert.throws(() => memoryFileItems(many, memoryFileType(big)!), new RegExp(`more than ${LIMITS.memoryFileItems} items`));
});

/** A workspace with the wxvx AGENTS.md in it, and a memory on disk. */
async function workspace(tag: string): Promise<{ ws: string; file: string; memory: Memory }> {
  const ws = tmp(tag);
  const file = path.join(ws, 'AGENTS.md');
  fs.copyFileSync(path.join(FIX, 'wxvx/AGENTS.md'), file);
  const { memory } = await memoryWith([], { tag });
  return { ws, file, memory };
}

const readIn = (memory: Memory, file: string, ws: string, written: MemoryFileInput['written'] = MINE) =>
  memory.readMemoryFile({ file, text: fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '', written, project: null }, HUMAN, ws);

const editLine = (file: string, line: number, to: string | null): void => {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (to === null) lines.splice(line - 1, 1);
  else lines[line - 1] = to;
  fs.writeFileSync(file, lines.join('\n'));
};

test('an item is anchored to its lines: stale when they change, re-anchored when they move, ended when deleted', async () => {
  const { ws, file, memory } = await workspace('stale');
  const first = readIn(memory, file, ws);
  assert.deepEqual([first.items, first.added, first.held, first.ended], [22, 22, 0, 0]);
  const seq = memory.seq;
  assert.deepEqual(readIn(memory, file, ws).ids, first.ids);
  assert.equal(memory.seq, seq, 'reading an unchanged file writes nothing');

  const byLine = (line: number): string => {
    const f = memory.export().facts.find((x) => x.statement && memory.fact(x.id, ws).code?.anchors[0]?.startLine === line);
    return f!.id;
  };
  const format = byLine(22);
  const ask = byLine(17);
  assert.equal(memory.fact(format, ws).code?.status, 'current');
  editLine(file, 22, '- Use `make fmt` to enforce the house rules for import order.');
  assert.equal(memory.fact(format, ws).code?.status, 'changed', 'its lines changed: stale before the file is read again');
  assert.equal(memory.fact(ask, ws).code?.status, 'current', 'the other lines are as they were');

  editLine(file, 1, '# Agent Guidelines for wxvx\n\nThis file is for coding agents.'); // two lines more above everything
  const again = readIn(memory, file, ws);
  assert.deepEqual([again.added, again.ended], [1, 1], 'the edited line is a new item, its old words end');
  assert.equal(memory.fact(format, ws).status, 'retracted');
  assert.equal(memory.fact(ask, ws).code?.anchors[0]?.startLine, 19, 'a moved line is anchored where it is now');
  assert.equal(memory.fact(ask, ws).code?.status, 'current');

  editLine(file, 19, null); // "Always ask the developer questions if you have doubts."
  const third = readIn(memory, file, ws);
  assert.equal(third.ended, 1);
  const ended = memory.fact(ask, ws);
  assert.deepEqual([ended.status, ended.ended_reason], ['retracted', 'removed from AGENTS.md']);
  assert.ok(
    memory.export({ history: true }).facts.some((f) => f.id === ask),
    'kept under history',
  );
  assert.ok(!memory.export().facts.some((f) => f.id === ask), 'no longer current');
});

test('an item the person marked wrong is not read back from its file; confirming it brings back that item', async () => {
  const { ws, file, memory } = await workspace('wrong');
  const first = readIn(memory, file, ws);
  const format = memory.export().facts.find((f) => f.statement?.startsWith('Raise `WXVXError`'))!.id;
  memory.correct({ id: format, verdict: 'wrong', reason: 'we raise ValueError now' }, HUMAN, ws);
  // Read again, unchanged and then with another line edited (the extension reads a workspace's files at every start).
  const again = readIn(memory, file, ws);
  assert.deepEqual([again.added, again.rejected, again.items], [0, 1, first.items]);
  editLine(file, 1, '# Agent Guidelines for wxvx\n\nThis file is for coding agents.');
  assert.equal(readIn(memory, file, ws).rejected, 1);
  const raised = memory.export({ history: true }).facts.filter((f) => f.statement?.startsWith('Raise `WXVXError`'));
  assert.deepEqual(
    raised.map((f) => [f.id, f.status]),
    [[format, 'wrong']],
    'the person’s verdict stands: no second item says it',
  );
  // Confirmed, it is current again, and the file's reading finds it (not a twin).
  memory.correct({ id: format, verdict: 'confirm' }, HUMAN, ws);
  const back = readIn(memory, file, ws);
  assert.equal(back.rejected, undefined);
  assert.ok(back.ids.includes(format));
  assert.equal(memory.export().facts.filter((f) => f.statement?.startsWith('Raise `WXVXError`')).length, 1);
});

/** A teammate's verdict on an item, as a pull applies it (sync/pulled.ts judged it a person's). */
function teammateSaysWrong(memory: Memory, id: string): void {
  const by = { authority: 'human' as const, author: 'teammate@example.org' };
  const at = new Date().toISOString();
  const verdict = {
    type: 'relationship.correct' as const,
    id,
    verdict: 'wrong' as const,
    seq: 0,
    at,
    by,
    origin: 'teammate0001',
    originSeq: 1,
  };
  assert.equal(memory.applyRemote([verdict], { shares: () => true }).applied, 1);
}

test("a teammate's verdict does not keep the person's own file out; a repository's file it does", async () => {
  const raises = (m: Memory, history = false): { id: string; status: string }[] =>
    m.export({ history }).facts.filter((f) => f.statement?.startsWith('Raise `WXVXError`'));
  const mine = await workspace('teammate-mine');
  readIn(mine.memory, mine.file, mine.ws);
  const [format] = raises(mine.memory);
  teammateSaysWrong(mine.memory, format!.id);
  assert.equal(mine.memory.fact(format!.id).status, 'wrong', "the team's verdict applies to the team's item");
  const again = readIn(mine.memory, mine.file, mine.ws);
  assert.equal(again.rejected, undefined, 'the person wrote the file: their words are read');
  assert.equal(raises(mine.memory).length, 1, 'held again, as a new item');
  assert.notEqual(raises(mine.memory)[0]!.id, format!.id, "the teammate's verdict on the old one stands");

  const repo = await workspace('teammate-repo');
  const theirs = { authority: 'external' as const, authors: [OTHER] };
  readIn(repo.memory, repo.file, repo.ws, theirs);
  teammateSaysWrong(repo.memory, raises(repo.memory)[0]!.id);
  assert.equal(readIn(repo.memory, repo.file, repo.ws, theirs).rejected, 1, "others' words stay out, as for the person's own verdict");
  assert.deepEqual(raises(repo.memory), []);
});

test('a confirmed item outlasts its lines; one said elsewhere too loses only this file’s anchor; a gone file ends the rest', async () => {
  const { ws, file, memory } = await workspace('ending');
  readIn(memory, file, ws);
  const claude = path.join(ws, 'CLAUDE.md');
  fs.writeFileSync(claude, "# Notes\n\n- Use Python's `logging` module; avoid print statements.\n");
  const both = readIn(memory, claude, ws).ids[0]!;
  assert.deepEqual(
    memory
      .fact(both, ws)
      .code?.anchors.map((a) => a.path)
      .sort(),
    ['AGENTS.md', 'CLAUDE.md'],
    'one item, two places',
  );
  const confirmed = memory.export().facts.find((f) => f.statement?.startsWith('Raise `WXVXError`'))!.id;
  memory.correct({ id: confirmed, verdict: 'confirm' }, HUMAN, ws);

  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.replace(/^- Raise `WXVXError`.*\n/m, '').replace(/^- Use Python's `logging`.*\n/m, ''));
  const r = readIn(memory, file, ws);
  assert.equal(r.ended, 0, 'neither ends');
  assert.equal(memory.fact(confirmed, ws).status, 'current', 'the person vouched for it');
  assert.equal(memory.fact(both, ws).status, 'current', 'CLAUDE.md still says it');
  assert.deepEqual(
    memory.fact(both, ws).code?.anchors.map((a) => a.path),
    ['CLAUDE.md'],
  );

  fs.rmSync(file);
  const gone = readIn(memory, file, ws);
  assert.deepEqual([gone.items, gone.ended], [0, 20], 'every other item of a deleted file ends');
  assert.equal(memory.fact(both, ws).status, 'current');
});

test('secrets in a memory file are redacted from its items and their evidence', async () => {
  const { ws, memory } = await workspace('secrets');
  const file = path.join(ws, 'CLAUDE.md');
  const key = 'sk-ant-api03-' + 'Zx9'.repeat(30);
  fs.writeFileSync(file, `# Setup\n\n- Use the API key ${key} for the staging proxy.\n`);
  const r = readIn(memory, file, ws);
  const fact = memory.fact(r.ids[0]!, ws);
  assert.match(fact.statement!, /\[REDACTED:/);
  assert.ok(!fact.statement!.includes(key));
  assert.ok(!JSON.stringify(memory.export({ history: true })).includes(key), 'nowhere in the memory');
});

// ---- the CLI, with real git repositories -------------------------------------------------------

const PERSON = 'person@example.com';
const OTHER = 'other@example.com';
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, args: string[], email?: string): string =>
  execFileSync('git', [...(email ? ['-c', `user.email=${email}`, '-c', 'user.name=x'] : []), ...args], {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: 'utf8',
  });

function cli(cwd: string, memory: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { cwd, env: { ...process.env, ...GIT_ENV, RECALL_IDLE_EXIT_MS: '60000' } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

function repo(tag: string, rel: string, fixture: string, author: string): string {
  const dir = tmp(tag);
  git(dir, ['init', '-q']);
  git(dir, ['config', 'user.email', PERSON]);
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.copyFileSync(path.join(FIX, fixture), path.join(dir, rel));
  git(dir, ['add', '.']);
  git(dir, ['commit', '-q', '-m', 'rules'], author);
  return dir;
}

test('recall ingest: a memory file the person committed is theirs; one others committed is external, said by its authors', async () => {
  const memory = tmpFolder('mf-cli');
  const mine = repo('mine', 'AGENTS.md', 'wxvx/AGENTS.md', PERSON);
  const theirs = repo('theirs', '.cursor/rules/general.mdc', 'bench/.cursor/rules/general.mdc', OTHER);

  const a = await cli(mine, memory, ['ingest', 'AGENTS.md', '--json']);
  assert.equal(a.code, 0, a.stderr);
  const ra = JSON.parse(a.stdout).memoryFiles[0];
  assert.deepEqual([ra.label, ra.items, ra.authority], ['AGENTS.md', 22, 'user']);
  const b = await cli(theirs, memory, ['ingest', '.']);
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stdout, /1 memory file\(s\)/);
  assert.match(b.stdout, /Cursor rule \(memory file\), 26 items \(16 rules, 10 facts\): 26 new/);
  assert.match(b.stderr, /not your words: it was committed by other@example\.com/);

  const facts = JSON.parse((await cli(mine, memory, ['export', '--json'])).stdout).facts as { authority: string; statement?: string }[];
  const by = (s: string) => facts.find((f) => f.statement?.startsWith(s))!;
  assert.equal(by('Do not `git commit`').authority, 'user');
  assert.equal(by('Never commit generated files').authority, 'external');
  const episodes = JSON.parse((await cli(theirs, memory, ['episodes', 'Never commit generated files', '--all', '--json'])).stdout);
  assert.equal(episodes[0].speaker, OTHER, 'the evidence is said by its author, not by "user"');
  assert.equal(episodes[0].authority, 'external');
});

test('recall ingest refuses Recall’s own instructions file, and a folder walk leaves it alone', async () => {
  const memory = tmpFolder('mf-own');
  const dir = tmp('own');
  const own = path.join(dir, '.github', 'instructions', 'recall.instructions.md');
  fs.mkdirSync(path.dirname(own), { recursive: true });
  fs.writeFileSync(own, "---\napplyTo: '**'\n---\n- Before starting a task, call #recallBrief.\n");
  const r = await cli(dir, memory, ['ingest', own]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the instructions file Recall writes for Copilot; it is never read back/);
  const walked = await cli(dir, memory, ['ingest', dir]);
  assert.match(walked.stderr, /no transcript found in this folder .*and no memory file/);
  const big = path.join(dir, 'AGENTS.md');
  fs.writeFileSync(big, '- Use tabs.\n'.repeat(LIMITS.memoryFileBytes / 8));
  const tooBig = await cli(dir, memory, ['ingest', big]);
  assert.equal(tooBig.code, 1);
  assert.match(tooBig.stderr, /memory files are read up to 256 KB[\s\S]*Split it/);
});

test('Chinese and Japanese instruction files: each rule line and list item is a rule; the English boilerplate is not', () => {
  const read = (rel: string) => {
    const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', rel);
    return memoryFileItems(readMemoryFileText(full).text, memoryFileType(full)!);
  };
  // Real files (origins in test/fixtures/knowledge/SOURCES.md): numbered items and a line per rule under headings.
  const zh = read('simple-firewall/CLAUDE.md');
  const at = (line: number) => zh.find((i) => i.startLine === line);
  assert.equal(at(3), undefined, '"This file provides guidance…" is about the file');
  assert.deepEqual([at(11)?.kind, at(11)?.statement, at(11)?.subject], ['rule', '请始终使用中文与我交流。', '基本交互规则']);
  for (const line of [16, 17, 18, 21, 22, 27, 28, 39, 43, 49]) assert.equal(at(line)?.kind, 'rule', `line ${line}`);
  assert.equal(at(28)?.statement, '不要使用表情符号', 'one line, one statement');
  assert.ok(
    zh.every((i) => i.startLine === i.endLine),
    'lines without case are not joined as wrapped prose',
  );

  const ja = read('company-library/CLAUDE.md');
  assert.equal(
    ja.find((i) => i.startLine === 9)?.statement,
    '重要: このプロジェクトでは、常に日本語でコミュニケーションを取ってください。',
    'emphasis closing after the full stop',
  );
  assert.deepEqual(
    ja.filter((i) => i.startLine >= 11).map((i) => [i.startLine, i.kind]),
    [11, 12, 13, 14].map((n) => [n, 'rule']),
    '"…すること": the written imperative',
  );
  assert.equal(
    ja.find((i) => i.startLine === 3),
    undefined,
  );
});

test('a lead-in ending in ":" is an item when code follows it, not when the items it leads do', () => {
  const read = (full: string) => memoryFileItems(readMemoryFileText(full).text, memoryFileType(full)!);
  // Real files: a rule whose content is a code block (origin in test/fixtures/knowledge/SOURCES.md), and a flat list's lead-in.
  const nftbk = read(path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'nftbk', '.clinerules'));
  assert.deepEqual(
    nftbk.filter((i) => i.startLine === 53).map((i) => [i.kind, i.statement, i.subject]),
    [['rule', 'Maintain the established directory structure for NFT backups', 'Output Structure']],
  );
  assert.ok(!nftbk.some((i) => i.startLine > 53 && i.startLine < 62), 'the code is not read');
  const wxvx = read(path.join(FIX, 'wxvx/AGENTS.md'));
  assert.equal(
    wxvx.find((i) => i.startLine === 7),
    undefined,
    '"Keep module ownership aligned with the current layout:" leads the items after it',
  );
});

test('an instruction opening with any common verb is a rule, not a fact (nftbk .clinerules, lines 25 and 39)', () => {
  const file = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'instructions', 'nftbk', '.clinerules');
  const items = memoryFileItems(readMemoryFileText(file).text, memoryFileType(file)!);
  const at = (line: number) => items.find((i) => i.startLine === line);
  assert.match(at(25)?.statement ?? '', /^When providing a solution, give me a score/);
  assert.equal(at(25)?.kind, 'rule', 'the instruction after the opening clause: "give me a score"');
  assert.match(at(39)?.statement ?? '', /^Convert IPFS URLs/);
  assert.equal(at(39)?.kind, 'rule');
});

test('an item wholly in bold is a statement, not a label with nothing after it; bold cut by a sentence end is gone', () => {
  // muzakily's CLAUDE.md (test/fixtures/knowledge/instructions, origin in its SOURCES.md): line 33, and line 7's
  // "**All PHP/Composer/Artisan commands MUST run through Docker Compose. NPM commands run locally:**".
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'muzakily', 'CLAUDE.md');
  const items = memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!);
  const at = (line: number) => items.filter((i) => i.startLine === line).map((i) => [i.kind, i.statement]);
  assert.deepEqual(at(33), [['rule', 'NEVER commit without asking the user first']]);
  assert.deepEqual(at(7)[0], ['rule', 'All PHP/Composer/Artisan commands MUST run through Docker Compose.']);
  // Made up: a bold label with its item after it keeps the label as its subject.
  const labelled = memoryFileItems('# Rules\n\n- **Testing**: run the unit tests before every push\n', memoryFileType('/r/AGENTS.md')!);
  assert.deepEqual(
    labelled.map((i) => [i.statement, i.subject]),
    [['Testing: run the unit tests before every push', 'Testing']],
  );
});

test('a guidelines file in prose: where things live is a fact, how things are named under a conventions heading a rule', () => {
  // pico-go-lan-robot's AGENTS.md (test/fixtures/knowledge/instructions, origin in its SOURCES.md), the layout most
  // generated "Repository Guidelines" files share.
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'pico-go-lan-robot', 'AGENTS.md');
  const items = memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!).map((i) => [i.kind, i.statement]);
  const has = (kind: string, start: string) => items.some(([k, s]) => k === kind && s!.startsWith(start));
  assert.ok(
    has('fact', 'The desktop controller plus its dependencies reside in `controller/`, while `scripts/` holds'),
    JSON.stringify(items),
  );
  assert.ok(has('fact', 'Hardware drawings live under `schematics/`'));
  assert.ok(has('rule', 'Functions, modules, and files use `snake_case`; classes use `CamelCase`'));
  assert.ok(has('rule', 'Pull requests need: concise summary'));
  assert.ok(has('rule', 'Strip MAC addresses, IPs, and GPS metadata'));
  // Made up: "e.g." ends no sentence; two verbs joined open an instruction; prose elsewhere that uses something is no rule.
  const read = (text: string) => memoryFileItems(text, memoryFileType('/r/AGENTS.md')!).map((i) => [i.kind, i.statement]);
  assert.deepEqual(read('# Guide\n\n## Testing\nDocument manual scripts (e.g. `drop_test.sql`) when sharing steps.\n'), [
    ['rule', 'Document manual scripts (e.g. `drop_test.sql`) when sharing steps.'],
  ]);
  assert.deepEqual(read('# Guide\n\n## Testing\nAdd or update unit cases alongside the code.\n'), [
    ['rule', 'Add or update unit cases alongside the code.'],
  ]);
  assert.ok(read('# Guide\n\n## Overview\nThe app uses a queue to batch writes.\n').every(([k]) => k !== 'rule'));
  // Made up, in the same generated layout: a bare "are in" with a path, and a command said with what it does.
  assert.deepEqual(read('# Guide\n\n## Layout\nUtility scripts and simulators are in `tools/`. `assembleDebug` builds the debug APK.\n'), [
    ['fact', 'Utility scripts and simulators are in `tools/`.'],
    ['fact', '`assembleDebug` builds the debug APK.'],
  ]);
  // Made up: a noun phrase opening with a verb-like word is a subject; a lead-in pointing ahead says nothing alone.
  assert.deepEqual(read('# Guide\n\n## Testing\n- Test command runs with the `--it` flag\n'), [
    ['fact', 'Test command runs with the `--it` flag'],
  ]);
  assert.deepEqual(
    read(
      '# Guide\n\n## Fixing\n**ALWAYS follow this approach:**\n\n1. **Investigate first** - Understand what broke before changing anything\n',
    ),
    [['rule', 'Investigate first - Understand what broke before changing anything']],
  );
  // mozgoslav's frontend CLAUDE.md (origin in test/fixtures/knowledge/SOURCES.md).
  const mozgoslav = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'mozgoslav', 'frontend', 'CLAUDE.md');
  assert.ok(
    memoryFileItems(fs.readFileSync(mozgoslav, 'utf8'), memoryFileType(mozgoslav)!).some(
      (i) => i.kind === 'fact' && i.statement.startsWith('`npm run dev` launches Electron with `cwd=frontend/`'),
    ),
  );
});

test('a short labelled stack item is a fact; "No X is configured yet" states, it does not forbid', () => {
  const read = (text: string) => memoryFileItems(text, memoryFileType('/r/AGENTS.md')!).map((i) => [i.kind, i.statement]);
  // Made up, in the form stack lists take: a label and a name, too short for the three words an item needs.
  assert.deepEqual(read('# Guide\n\n## Stack\n\n- **Language:** TypeScript\n- **Framework:** Next.js\n- **Status:** Draft\n'), [
    ['fact', 'Language: TypeScript'],
    ['fact', 'Framework: Next.js'],
  ]);
  // tauri-planning-app's AGENTS.md (test/fixtures/knowledge/instructions, origin in its SOURCES.md), labelled a fact.
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'tauri-planning-app', 'AGENTS.md');
  const items = memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!);
  assert.deepEqual(
    items.filter((i) => i.statement.startsWith('No automated test framework')).map((i) => i.kind),
    ['fact'],
  );
  // Made up: a "No …" that forbids stays a rule; a name in code spans describes the project.
  assert.deepEqual(read('# Guide\n\n## Style\n\n- No default exports in new modules\n'), [['rule', 'No default exports in new modules']]);
  assert.deepEqual(read('# Guide\n\n`pst2pdf` is a Node.js tool that converts mail archives to PDF.\n'), [
    ['fact', '`pst2pdf` is a Node.js tool that converts mail archives to PDF.'],
  ]);
});

test('under a heading of standards, "X for Y" is a convention; a command opening an item is no imperative', () => {
  // giki-admin's AGENTS.md, lines 68-72 under "## Code Standards" (origin in test/fixtures/knowledge/SOURCES.md).
  const full = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'giki-admin', 'AGENTS.md');
  const items = memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!);
  const kindAt = (start: string) => items.find((i) => i.statement.startsWith(start))?.kind;
  assert.equal(kindAt('`import type` for type-only imports'), 'rule');
  assert.equal(kindAt('PascalCase for types, camelCase for variables/functions'), 'rule');
  // Made up: the same form under a section that is no conventions heading is a fact; a command is an example's name.
  const read = (text: string) => memoryFileItems(text, memoryFileType('/r/AGENTS.md')!).map((i) => [i.kind, i.statement]);
  assert.deepEqual(read('# Guide\n\n## Code Style\n\n### API Design\n\n- **STAC API**: Metadata for raster items\n'), [
    ['fact', 'STAC API: Metadata for raster items'],
  ]);
  assert.deepEqual(read('# Guide\n\n## Commands\n\n- `make build` for production builds\n'), [
    ['fact', '`make build` for production builds'],
  ]);
});
