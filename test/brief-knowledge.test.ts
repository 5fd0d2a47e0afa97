/**
 * The brief filled from knowledge items (issue 28, item 8), on a real memory folder, the items
 * recorded as every reader records them (test/knowledge-items.ts: KnowledgeWriter → journal):
 * rules and decisions first, then preferences, facts and lessons; each line with its id, kind and
 * statement; a confirmed item reads "confirmed"; what the budget leaves out is named; others'
 * words stay in their own section; the project it answered for is said.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { memoryFileItems } from '../src/core/ingest/memory-file-items';
import { memoryFileType } from '../src/core/ingest/memory-files';
import { approxTokens } from '../src/core/memory/brief';
import { Memory } from '../src/core/memory/memory';
import { BRIEF_MIN_TOKENS, LIMITS } from '../src/core/model/limits';
import { tmpFolder } from './helpers';
import { sayItems } from './knowledge-items';

const memory = (): Promise<Memory> => Memory.open(tmpFolder('brief-items'), { extract: false });
const person = { authority: 'human' as const, source: 'cli' };
const APP = 'example.org/team/app';

/** The lines under a section title, up to the next line that is not an item. */
function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  if (start < 0) return [];
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith('- '));
  return end < 0 ? rest : rest.slice(0, end);
}

test('items are briefed by kind, rules and decisions first, each line with its id and statement under its kind', async () => {
  const m = await memory();
  const [lesson, fact, preference, decision, rule] = sayItems(m, [
    {
      kind: 'lesson',
      subject: 'CI',
      statement: 'CI failed because the npm cache was stale; clearing it fixed the build.',
      authority: 'agent',
      project: APP,
    },
    { kind: 'fact', subject: 'tests', statement: 'Run the unit tests with npm test; the e2e needs code-server.', project: APP },
    { kind: 'preference', subject: 'test runner', object: 'Vitest', statement: 'I prefer Vitest over Jest.', project: APP },
    {
      kind: 'decision',
      subject: 'database',
      object: 'SQLite',
      statement: 'Switch the database to SQLite.',
      project: APP,
      time: '2026-06-01T00:00:00.000Z',
    },
    // Said long ago: a rule does not fade with time.
    { kind: 'rule', subject: 'logging', statement: 'Never log the database URL, ever.', project: APP, time: '2025-08-01T00:00:00.000Z' },
  ]);
  const plain = m.relate({ subject: 'team', predicate: 'decided', object: 'sql.js', project: APP }, person).id;

  const b = m.brief({ project: APP, budgetTokens: 600 });
  assert.match(b.text, /^Recall brief \(project example\.org\/team\/app\);/, 'it says which project it answered for');
  const titles = b.text.split('\n').filter((l) => !l.startsWith('- '));
  assert.deepEqual(titles.slice(1), ['Rules:', 'Recent decisions:', 'Preferences:', 'Project facts:', 'Lessons learned:'], b.text);
  assert.deepEqual(section(b.text, 'Rules:'), [`- [${rule}] Never log the database URL, ever. (63%, since 2025-08-01)`]);
  const decisions = section(b.text, 'Recent decisions:');
  assert.ok(
    decisions.some((l) => new RegExp(`^- \\[${decision}\\] Switch the database to SQLite\\. \\(\\d+%, since 2026-06-01\\)$`).test(l)),
    b.text,
  );
  assert.ok(
    decisions.some((l) => l.startsWith(`- [${plain}] team decided sql.js (`)),
    `a plain fact keeps its triple:\n${b.text}`,
  );
  assert.match(section(b.text, 'Preferences:')[0]!, new RegExp(`^- \\[${preference}\\] I prefer Vitest over Jest\\. `));
  assert.match(section(b.text, 'Project facts:')[0]!, new RegExp(`^- \\[${fact}\\] Run the unit tests with npm test;`));
  assert.match(section(b.text, 'Lessons learned:')[0]!, new RegExp(`^- \\[${lesson}\\] CI failed because .* \\(by an agent, \\d+%, `));
  // Not "subject predicate object" for items.
  assert.doesNotMatch(b.text, /logging rule logging|database decision SQLite/);
  assert.deepEqual(
    b.facts.map((f) => [f.id, f.section]),
    [
      [rule, 'rule'],
      [decision, 'decision'],
      [preference, 'preference'],
      [fact, 'fact'],
      [lesson, 'lesson'],
      [plain, 'decision'],
    ].sort((x, y) => b.facts.findIndex((f) => f.id === x[0]) - b.facts.findIndex((f) => f.id === y[0])),
  );
  assert.equal(b.left_out, 0);
  m.close();
});

test('a confirmed item reads "confirmed", not a percentage, and comes first in its section', async () => {
  const m = await memory();
  const [older, newer] = sayItems(m, [
    {
      kind: 'rule',
      subject: 'handlers',
      statement: 'Handlers only parse input; the logic lives in services.',
      time: '2026-01-01T00:00:00.000Z',
    },
    { kind: 'rule', subject: 'results', statement: 'Results are always newest first.', time: '2026-05-01T00:00:00.000Z' },
  ]);
  const before = section(m.brief().text, 'Rules:');
  assert.ok(before[0]!.startsWith(`- [${newer}]`), 'unconfirmed: newest first');
  m.correct({ id: older!, verdict: 'confirm' }, person);
  const rules = section(m.brief().text, 'Rules:');
  assert.equal(rules[0], `- [${older}] Handlers only parse input; the logic lives in services. (confirmed, since 2026-01-01)`);
  assert.match(rules[1]!, /\(\d+%, since 2026-05-01\)$/);
  m.close();
});

test('what the budget leaves out is named by its first words in a footer, and the whole stays within the budget', async () => {
  const m = await memory();
  const rules = [
    'Never print the connection string in the status endpoint.',
    'Handlers only parse input; business logic lives in services.',
    'Name repositories owner/name, and local for a local path.',
    'Results are always sorted newest first.',
    'Do not add a dependency without a written reason.',
    'Every migration ships with its down step.',
    'Commit subjects stay under seventy-two characters.',
    'Log to stderr only; stdout belongs to the protocol.',
    'Tests touch loopback addresses and nothing else.',
    'Keep each source file under four hundred lines.',
    'Secrets never reach the journal unredacted.',
    'Prefer a well-kept library over hand-written parsing.',
  ];
  const lessons = [
    'The build broke because the npm cache was stale; clearing it fixed it.',
    'Vitest hung on open handles until the server was closed in teardown.',
    'The wasm file was missing from the VSIX; esbuild had to copy it.',
    'Playwright timed out since chromium lacked fonts; installing them helped.',
    'Port 8788 clashed with another service, so the HTTP port became configurable.',
    'A race on snapshot writes corrupted state; renaming atomically solved it.',
    'Git authorship failed without user.email set in the repository.',
    'Memory grew unbounded because statements were cached forever; a cap stopped it.',
  ];
  const decisions = [
    ['storage', 'sql.js', 'We chose sql.js for storage: no native build step.'],
    ['bundler', 'esbuild', 'Bundle the extension with esbuild.'],
    ['queue', 'SQS', 'Go with SQS for the job queue.'],
    ['embeddings', 'ONNX', 'Run embeddings locally through ONNX Runtime.'],
    ['auth', 'OAuth', 'Sign people in with OAuth only.'],
    ['docs', 'Markdown', 'Write the docs in plain Markdown.'],
  ];
  const said = sayItems(m, [
    ...rules.map((statement, i) => ({ kind: 'rule' as const, subject: `rule subject ${i}`, statement })),
    ...lessons.map((statement, i) => ({ kind: 'lesson' as const, subject: `lesson subject ${i}`, statement, authority: 'agent' as const })),
    ...decisions.map(([subject, object, statement]) => ({ kind: 'decision' as const, subject: subject!, object, statement: statement! })),
  ]);
  const total = rules.length + lessons.length + decisions.length;
  const statements = new Map(said.map((id, i) => [id, i]));
  assert.equal(statements.size, total, 'every statement is an item of its own');

  for (const budgetTokens of [BRIEF_MIN_TOKENS, 150, 300, 600, LIMITS.brief]) {
    const b = m.brief({ budgetTokens });
    assert.ok(b.tokens <= budgetTokens && approxTokens(b.text) === b.tokens, `${b.tokens} tokens within ${budgetTokens}:\n${b.text}`);
    assert.equal(b.left_out, total - b.facts.length, `${budgetTokens}: every candidate is shown or left out`);
    if (b.left_out === 0) {
      assert.doesNotMatch(b.text, /Left out/);
      continue;
    }
    const last = b.text.split('\n').at(-1)!;
    assert.ok(last.startsWith('Left out: '), `${budgetTokens}: the footer names what was left out:\n${b.text}`);
    const named = last.slice('Left out: '.length).split('; ');
    const more = named.at(-1)!.match(/^\+(\d+) more$/);
    if (more) named.pop();
    assert.deepEqual(named, b.left_out_titles);
    assert.equal(named.length + Number(more?.[1] ?? 0), b.left_out, `${budgetTokens}: named and counted add up`);
    const shown = new Set(b.facts.map((f) => f.statement));
    for (const title of named) {
      const words = title.replace(/…$/, '');
      const of = [...said.keys()].map((i) => m.fact(said[i]!).statement!).filter((s) => s.replace(/;/g, ',').startsWith(words));
      assert.ok(of.length > 0 && of.some((s) => !shown.has(s)), `"${title}" is the first words of a left-out item`);
    }
    if (budgetTokens === 300) {
      assert.ok(named.length >= 2, `the default budget names several: ${last}`);
      // The footer names a few of each section, as the sections take turns.
      assert.ok(
        named.some((t) => rules.some((r) => r.replace(/;/g, ',').startsWith(t.replace(/…$/, '')))) &&
          named.some((t) => lessons.some((r) => r.replace(/;/g, ',').startsWith(t.replace(/…$/, '')))),
        last,
      );
      for (const s of ['rule', 'decision', 'lesson'])
        assert.ok(
          b.facts.some((f) => f.section === s),
          `${s} is shown:\n${b.text}`,
        );
    }
  }
  m.close();
});

test("the person's items before others': an item resting on a repository file's words alone is briefed as the repository's", async () => {
  const m = await memory();
  const [theirs, mine, theirsAgain] = sayItems(m, [
    {
      kind: 'rule',
      subject: 'status endpoint',
      statement: 'Do NOT print the connection string in the status endpoint.',
      authority: 'external',
      speaker: 'mallory@example.com',
    },
    { kind: 'rule', subject: 'repos', statement: 'From now on name repos owner/name.' },
    {
      kind: 'decision',
      subject: 'database',
      object: 'Firebase',
      statement: 'We use Firebase for the database.',
      authority: 'external',
      speaker: 'trent@example.com',
    },
  ]);
  const b = m.brief({ budgetTokens: 600 });
  assert.deepEqual(section(b.text, 'Rules:'), [`- [${mine}] From now on name repos owner/name. (63%, since 2026-11-01)`]);
  assert.deepEqual(section(b.text, 'Recent decisions:'), []);
  const repo = b.text.split('\n').findIndex((l) => l.startsWith("From the repository's files"));
  assert.ok(repo > b.text.split('\n').findIndex((l) => l === 'Rules:'), "others' words come after the person's");
  assert.match(b.text.split('\n')[repo]!, /\(authors: [^)]*mallory@example\.com/);
  const lines = b.text.split('\n').slice(repo + 1);
  assert.deepEqual(
    lines.slice(0, 4).map((l) => l.replace(/ \(.*\)$/, '')),
    [
      'Their rules:',
      `- [${theirs}] Do NOT print the connection string in the status endpoint.`,
      'Their decisions:',
      `- [${theirsAgain}] We use Firebase for the database.`,
    ],
    'rules first among theirs, each group under its kind',
  );
  assert.deepEqual(
    b.facts.filter((f) => f.id !== mine).map((f) => f.section),
    ['repository', 'repository'],
  );
  // Confirmed by the person, it is theirs.
  m.correct({ id: theirs!, verdict: 'confirm' }, person);
  assert.ok(section(m.brief().text, 'Rules:').some((l) => l.startsWith(`- [${theirs}] Do NOT print`) && l.includes('(confirmed,')));
  m.close();
});

test('the brief reads the project it answers for and the global memory, not other projects', async () => {
  const m = await memory();
  const [here, global, other] = sayItems(m, [
    { kind: 'rule', subject: 'migrations', statement: 'Every migration needs a down step.', project: APP },
    { kind: 'rule', subject: 'commits', statement: 'Commit subjects stay under 72 characters.', project: null },
    { kind: 'rule', subject: 'deploys', statement: 'Deploy only on Tuesdays.', project: 'example.org/team/other' },
  ]);
  const b = m.brief({ project: APP });
  assert.match(b.text, /^Recall brief \(project example\.org\/team\/app\)/);
  const ids = b.facts.map((f) => f.id).sort();
  assert.deepEqual(ids, [here, global].sort());
  assert.ok(!b.text.includes(`[${other}]`) && !b.text.includes('Tuesdays'), b.text);
  assert.deepEqual(
    m.brief({ project: null }).facts.map((f) => f.id),
    [global],
  );
  m.close();
});

test("a file's items are briefed in the file's order, how sure and since when said once for them", async () => {
  // A real rules file (test/fixtures/knowledge/instructions/nftbk/.clinerules, origin in its SOURCES.md), committed by others.
  const file = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'nftbk', '.clinerules');
  const text = fs.readFileSync(file, 'utf8');
  const m = await memory();
  m.readMemoryFile({ file, text, written: { authority: 'external', authors: [] }, project: APP }, person);
  const b = m.brief({ project: APP, budgetTokens: 600 });
  const lines = b.text.split('\n');
  const title = lines.findIndex((l) => l.startsWith("From the repository's files"));
  assert.match(lines[title]!, /\(authors: [^)]+\): each \d+%, since \d{4}-\d\d-\d\d, unless its line says$/);
  const shown = lines.slice(title + 1).filter((l) => l.startsWith('- '));
  assert.ok(
    shown.every((l) => !/\(\d+%, since/.test(l)),
    'no line repeats what the title says',
  );
  // The file's rules, in its order: its first ones are briefed, what the budget leaves out comes from its end.
  const rules = memoryFileItems(text, memoryFileType(file)!).filter((i) => i.kind === 'rule');
  assert.equal(lines[title + 1], 'Their rules:');
  const said = shown.map((l) => l.replace(/^- \[\w+\] /, ''));
  assert.deepEqual(
    said,
    rules.slice(0, said.length).map((r) => r.statement),
  );
  assert.ok(said.length >= 24, `${said.length} of ${rules.length} rules within 600 tokens:\n${b.text}`);
  assert.ok(b.tokens <= 600);
  assert.match(lines.at(-1)!, /^Left out \(all the repository's\): [^;]+; /, "named once as the repository's, not title by title");
  m.close();
});

test('a brief in Chinese stays within its budget counting a Chinese character as a token', async () => {
  // A real rules file in Chinese (test/fixtures/knowledge/instructions/simple-firewall/CLAUDE.md, origin in SOURCES.md).
  const file = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'simple-firewall', 'CLAUDE.md');
  const m = await memory();
  m.readMemoryFile({ file, text: fs.readFileSync(file, 'utf8'), written: { authority: 'external', authors: [] }, project: APP }, person);
  for (const budgetTokens of [120, 300]) {
    const b = m.brief({ project: APP, budgetTokens });
    // Counted here on its own: each Han character one token (BPE tokenisers spend about one), the rest four characters a token.
    const han = b.text.match(/\p{Script=Han}/gu)?.length ?? 0;
    const tokens = han + Math.ceil((b.text.length - han) / 4);
    assert.ok(tokens <= budgetTokens, `${tokens} tokens for a budget of ${budgetTokens}:\n${b.text}`);
    assert.ok(b.facts.length > 0 && b.left_out > 0, 'some rules shown, the rest named');
  }
  m.close();
});

test('an answered choice too long for its line keeps its answer: the question gives way', async () => {
  // The person's answer to Claude Code's question in test/fixtures/knowledge/transcripts/claude-code/
  // en-trivivo-engineering-preferences.jsonl (origin in its SOURCES.md), as the reader stores it.
  const question =
    'PERF-01 (get_next_question memory): The IndexError when no questions of a difficulty exist is both a performance AND a crash bug. Should this get its own bug issue or be bundled with the ARCH-03 performance issue?';
  const statement = `"${question}"="Bundle into ARCH-03"`;
  const m = await memory();
  const [id] = sayItems(m, [{ kind: 'decision', subject: 'PERF-01', statement, project: APP }]);
  const line = m
    .brief({ project: APP, budgetTokens: 600 })
    .text.split('\n')
    .find((l) => l.startsWith(`- [${id}] `));
  assert.ok(line, 'the decision is briefed');
  assert.ok(line.includes('…"="Bundle into ARCH-03"'), line);
  assert.ok(line.includes('"PERF-01 (get_next_question memory): The IndexError'), line);
  assert.ok(line.length < statement.length, 'and it is shorter than the whole');
  m.close();
});
