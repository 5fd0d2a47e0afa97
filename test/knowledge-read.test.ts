/**
 * Knowledge read offline from real turns (test/fixtures/real, origins in SOURCES.md): the person's
 * rules, decisions and preferences; an agent's lessons at the agent's authority; nothing from a
 * question, a task, a quote, a fence, a paste or an agent's advice. Then the same through the
 * built CLI: `recall ingest` of real transcripts yields items, one rule said in two transcripts is
 * one item with both turns as evidence, and `recall remember` learns too.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readTranscriptFile } from '../src/core/ingest/files';
import { readKnowledge, type KnowledgeReading } from '../src/core/ingest/knowledge-read';
import { isQuestion, listedItems } from '../src/core/ingest/knowledge-text';
import { memoryWith, recallJson, recallOk, ROOT, tmpFolder } from './helpers';

const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
/** The kinds the reader finds in a person's turn to an agent. */
const personKinds = (t: string): string[] => readKnowledge({ text: t, role: 'user' }).map((k) => k.kind);
/** The statements of one kind read from a turn of the person ('user') or of an agent ('assistant'). */
const statementsOf = (kind: string, role: 'user' | 'assistant', t: string): string[] =>
  readKnowledge({ text: t, role })
    .filter((k) => k.kind === kind)
    .map((k) => k.statement);

/** One real turn (index in readTranscriptFile order) and what is read from it. */
function turn(file: string, i: number): { text: string; role?: string; items: KnowledgeReading[] } {
  const e = readTranscriptFile(path.join(REAL, file)).episodes[i];
  assert.ok(e, `${file} has a turn ${i}`);
  return { text: e.text, role: e.role, items: readKnowledge({ text: e.text, speaker: e.speaker, role: e.role }) };
}

const brief = (items: KnowledgeReading[]): string[] => items.map((k) => `${k.kind}: ${k.statement}`);

test("the person's rules, negative ones included (aider multiline-prompts, turns 12 and 18)", () => {
  const simple = turn('aider/multiline-prompts.aider.chat.history.md', 12);
  assert.ok(simple.text.includes('don’t use external libraries'), 'the real turn, with its curly apostrophe');
  assert.deepEqual(brief(simple.items), ["rule: Again, keep everything simple and don't use external libraries."]);
  const chart = turn('aider/multiline-prompts.aider.chat.history.md', 18);
  const rule = chart.items.find((k) => k.statement === 'Do NOT use Chart.js.');
  assert.ok(rule, JSON.stringify(chart.items));
  assert.equal(rule.kind, 'rule');
  assert.equal(rule.subject, 'Chart.js');
  // The same turn's task list ("Rewrite drawChart() so that: ...") is no rule.
  assert.ok(!chart.items.some((k) => /Rewrite|padding|axes/i.test(k.statement)), JSON.stringify(chart.items));
});

test('a shouted rule and a MUST (gemini quoted export, turn 0; gemini share, turn 0)', () => {
  const always = turn('gemini/quoted-user-model-export.md', 0);
  assert.deepEqual(brief(always.items), ['rule: ALWAYS begin your response by telling me what AI model you are using.']);
  const must = turn('gemini/chat-share-icon-after.md', 0);
  assert.ok(
    must.items.some((k) => k.kind === 'rule' && k.statement.startsWith('You MUST use the CoreText MCP tools')),
    JSON.stringify(must.items),
  );
  // "Follow these steps precisely:", "EXECUTE each step in order": the task's steps, not rules.
  assert.ok(!must.items.some((k) => /EXECUTE|Follow these steps|PARSE/.test(k.statement)), JSON.stringify(must.items));
});

test('a decision names its choice and what it replaces (specstory minsky, turn 10)', () => {
  const { items } = turn('specstory/2025-04-27_21-51-project-initialization-task-for-minsky.md', 10);
  assert.equal(items.length, 1, JSON.stringify(items));
  assert.equal(items[0]!.kind, 'decision');
  assert.equal(items[0]!.object, '@clack/prompts');
  assert.equal(items[0]!.statement, 'use `@clack/prompts` instead of bun-promptx');
});

test('decisions stated in Japanese: "データベースは、Supabase を使います" (specstory agent-model-mode, turn 0)', () => {
  const { items } = turn('specstory/agent-model-mode-tool-use-slice.md', 0);
  const db = items.find((k) => k.object === 'Supabase');
  assert.ok(db, JSON.stringify(items));
  assert.equal(db.kind, 'decision');
  assert.equal(db.subject, 'データベース', 'the topic the choice is for, so a later choice for it supersedes this one');
  assert.ok(
    items.some((k) => k.kind === 'decision' && k.object === 'Next.js'),
    'a name with a full stop in it is no "next"',
  );
  // "認証と決済は…最後に実装します" (a plan) and "…質問をしてください" (a request) are not read.
  assert.ok(!items.some((k) => /実装します|質問/.test(k.statement)), JSON.stringify(items));
  assert.ok(items.every((k) => k.kind === 'decision'));
});

test('questions are not rules (specstory legacy, turns 8 and 10; aider multi-session, turns 12 and 16; minsky, turn 2)', () => {
  for (const [file, i] of [
    ['specstory/legacy-user-assistant.md', 8],
    ['specstory/legacy-user-assistant.md', 10],
    ['aider/multi-session-slice.aider.chat.history.md', 12],
    ['aider/multi-session-slice.aider.chat.history.md', 16],
    ['specstory/2025-04-27_21-51-project-initialization-task-for-minsky.md', 2],
  ] as const) {
    const { items } = turn(file, i);
    assert.deepEqual(items, [], `${file} turn ${i}`);
  }
});

test('a task is not a rule: of 43 requests to build a game, only the constraints on the code, the requirements said as such and the stack it is built with (copilot chatsession-v3)', () => {
  const episodes = readTranscriptFile(path.join(REAL, 'copilot/chatsession-v3-prompt-completion.json')).episodes;
  const asked = episodes.filter((e) => e.role === 'user');
  assert.ok(asked.length > 40, `${asked.length} requests`);
  const read = brief(asked.flatMap((e) => readKnowledge({ text: e.text, role: e.role })));
  // "Ensure modular, clean code in a single Python file ...": a constraint on the work, said twice in the session.
  assert.ok(read.includes('rule: Ensure modular, clean code in a single Python file that runs directly in VS Code.'), JSON.stringify(read));
  // "Ensure smooth movement and collision resolution.": this feature's specification, not the work's.
  assert.ok(!read.some((r) => /smooth movement|draw properly/.test(r)), JSON.stringify(read));
  // The tasks themselves ("Add ...", "Implement ...", "Test and polish ...") are never rules; the one that
  // names the means of the whole game ("... in Python using Pygame") chose the stack: a decision.
  assert.ok(!read.some((r) => /^rule: (?:Add|Implement|Create|Write|Test and polish|Improve|Make)\b/.test(r)), JSON.stringify(read));
  const decided = read.filter((r) => r.startsWith('decision: '));
  assert.deepEqual(decided, [
    "decision: Write a complete advanced 2D endless runner game in Python using Pygame called 'Cosmic Adventure: The Journey of Star'.",
  ]);
  assert.ok(read.length <= 5, JSON.stringify(read));
});

test('talk that describes is not a rule: a game design chat yields the way it chose and its rules (gemini share, every turn of the person)', () => {
  const episodes = readTranscriptFile(path.join(REAL, 'gemini/chat-share-icon-first.md')).episodes.filter((e) => e.role === 'user');
  const all = episodes.map((e) => e.text).join('\n');
  assert.match(all, /a never ending war/);
  assert.match(all, /I'm pretty sure I want him to be male/);
  // The choice among the descriptions, and two of the game's mechanics the person set: what the player can do
  // (labelled a decision in test/fixtures/knowledge/labels.json) and what cannot happen (a rule of the game).
  assert.deepEqual(brief(episodes.flatMap((e) => readKnowledge({ text: e.text, role: e.role }))), [
    'rule: Resonance cannot be broken forcefully.',
    'decision: Lets go towards the Adamant Bulwark, I really really like it',
    'decision: Essentially, the player can choose 3 different Aspects on a character.',
  ]);
});

test('the forms the issue names (its paraphrases of real transcripts): each read, with its kind and subject', () => {
  const read = (t: string): [string, string | undefined, string | undefined][] =>
    readKnowledge({ text: t, role: 'user' }).map((k) => [k.kind, k.subject, k.object]);
  assert.deepEqual(read('Drop every mention of Java, we will never use it.'), [['rule', 'Java', undefined]]);
  assert.deepEqual(read('Do NOT print the connection string in the status endpoint, ever.'), [['rule', undefined, undefined]]);
  assert.deepEqual(read('As a rule, handlers only parse input, the logic lives in services.'), [['rule', undefined, undefined]]);
  assert.deepEqual(read('Results are always newest first.'), [['rule', undefined, undefined]]);
  assert.deepEqual(read('We no longer use Redux.'), [['rule', 'Redux', undefined]]);
  assert.deepEqual(read("Let's switch from Postgres to SQLite."), [['decision', 'PostgreSQL', 'SQLite']]);
  // The issue's own pair, "use Postgres", later "switch to SQLite", with the switch naming what it is for.
  assert.deepEqual(read('Switch the database to SQLite.'), [['decision', 'database', 'SQLite']]);
  assert.deepEqual(read('We switched the test runner from Jest to Vitest.'), [['decision', 'test runner', 'Vitest']]);
  assert.deepEqual(read("Don't switch the database to SQLite."), [['rule', 'SQLite', undefined]], 'a prohibition is a rule');
  assert.deepEqual(read('Switch the tab to dark mode.'), [], 'a switch to no technology is not a choice of stack');
  assert.deepEqual(read('I prefer pnpm over npm.'), [['preference', 'npm', 'pnpm']]);
});

test('chat that describes or encourages is not a rule (sentences of the LoCoMo conversations, snap-research/locomo)', () => {
  for (const said of [
    'We love "Home Alone" - it always brings lots of laughs!',
    'It must add so much holiday cheer to your house.',
    'Nope, never been on a sports team.',
    "Any time you need help, don't hesitate to reach out.",
    "I'll make sure to have a safe trip.",
    "I'm always taking notes on her style for my own writing.",
    'My family is always there for me.',
    'You must have been elated up there with that trophy.',
    'Always here to help!',
    'He never gives up and always stands up for justice.',
    "Keep going and don't give up!",
    'Combining passions is always cool.',
    'Community events like that are always amazing.',
  ]) {
    assert.deepEqual(readKnowledge({ text: said, speaker: 'Caroline' }), [], said);
  }
});

test("an agent's words are never the person's rule (specstory legacy, turn 9: the agent writes the rule file)", () => {
  const written = turn('specstory/legacy-user-assistant.md', 9);
  assert.match(written.text, /Never ask for confirmation on next steps/);
  assert.ok(
    !written.items.some((k) => k.kind === 'rule' || k.kind === 'decision' || k.kind === 'preference'),
    JSON.stringify(written.items),
  );
  // Across every real transcript, an agent's turn gives only lessons and facts.
  const expected = JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as Record<string, unknown>;
  let agentItems = 0;
  for (const file of Object.keys(expected)) {
    let episodes;
    try {
      episodes = readTranscriptFile(path.join(REAL, file)).episodes;
    } catch {
      continue; // a negative fixture: not a transcript
    }
    for (const e of episodes.filter((t) => t.role === 'assistant')) {
      for (const k of readKnowledge({ text: e.text, role: e.role })) {
        agentItems++;
        assert.ok(k.kind === 'lesson' || k.kind === 'fact', `${file}: ${k.kind}: ${k.statement}`);
      }
    }
  }
  assert.ok(agentItems > 0, 'some lessons are read');
});

test("the agent's rule pasted by the person, in a fence, a quote or after 'X said:', is not the person's", () => {
  const agentsRule = 'Avoid unnecessary confirmation prompts: Do not ask for confirmation on obvious next steps in the workflow.';
  assert.equal(readKnowledge({ text: agentsRule, role: 'user' })[0]?.kind, 'rule', 'said by the person, it is a rule');
  for (const pasted of [
    `what does this mean?\n\n\`\`\`\n${agentsRule}\n\`\`\``,
    `see the rule file:\n\n> ${agentsRule}\n\nwhy didnt you follow this rule?`,
    `Cursor said:\n${agentsRule}`,
    `⏺ Read(.cursor/rules/user-preferences.mdc)\n  ⎿  ${agentsRule}`,
    `what does this say\n\n    ${agentsRule}`,
  ]) {
    assert.deepEqual(readKnowledge({ text: pasted, role: 'user' }), [], pasted);
  }
});

test('lessons: a failure with its cause, and the fix (cline feedback, turn 3; aider multi-session, turn 5)', () => {
  const conflict = turn('cline/feedback-resumption-api_conversation_history.slice.json', 3);
  assert.ok(
    conflict.items.some((k) => k.kind === 'lesson' && k.statement.startsWith('The npm install failed due to a peer dependency conflict')),
    JSON.stringify(conflict.items),
  );
  const disposed = turn('aider/multi-session-slice.aider.chat.history.md', 5);
  const lessons = disposed.items.filter((k) => k.kind === 'lesson').map((k) => k.statement);
  // The cause and the fix that follows it are one lesson: an error, its cause and its fix.
  assert.ok(
    lessons.some(
      (s) => /error because the underlying native object/.test(s) && /The fix is simple: replace `_chunks.RemoveFirst\(\)`/.test(s),
    ),
    JSON.stringify(lessons),
  );
  // "The error is not caused by `RemoveFirst()` disposing anything.": a cause ruled out is no lesson.
  assert.ok(!lessons.some((s) => s.startsWith('The error is not caused by')), JSON.stringify(lessons));
});

interface ExportedFact {
  id: string;
  kind?: string;
  statement?: string;
  subject: string;
  object: string;
  evidence: string[];
  assertedBy?: string;
  authority?: string;
}

test('`recall ingest` of real transcripts learns items; one rule said in two transcripts is one item with both turns', async () => {
  const mem = tmpFolder('knowledge-ingest');
  await recallOk(mem, [
    '--project',
    'reddit-viewer',
    'ingest',
    path.join(REAL, 'gemini/quoted-user-model-export.md'),
    path.join(REAL, 'claude-export/terminal-gt-record.txt'),
  ]);
  const { facts } = await recallJson<{ facts: ExportedFact[] }>(mem, ['--project', 'reddit-viewer', 'export']);
  const always = facts.filter((f) => f.kind === 'rule' && /^ALWAYS begin your response/.test(f.statement ?? ''));
  assert.equal(always.length, 1, JSON.stringify(facts.filter((f) => f.kind)));
  assert.equal(new Set(always[0]!.evidence).size, 2, 'both transcripts are its evidence');
  assert.equal(always[0]!.authority, 'user', "the person's word");
  assert.ok(
    facts.every((f) => f.kind !== 'rule' || !/Display|Build an index/.test(f.statement ?? '')),
    'the requests are not rules',
  );

  await recallOk(mem, ['--project', 'game', 'ingest', path.join(REAL, 'aider/multi-session-slice.aider.chat.history.md')]);
  const game = (await recallJson<{ facts: ExportedFact[] }>(mem, ['--project', 'game', 'export'])).facts.filter((f) => f.kind);
  const lesson = game.find((f) => f.kind === 'lesson');
  assert.ok(lesson, JSON.stringify(game));
  const shown = await recallOk(mem, ['--project', 'game', 'query', 'cannot access a disposed value error']);
  assert.match(shown, /\[lesson\]/, 'a query shows the lesson with its kind');
  assert.match(shown, /by agent/, "the lesson rests on the agent's word");
});

test('`recall remember` of a rule the person states holds it as a rule', async () => {
  const mem = tmpFolder('knowledge-remember');
  await recallOk(mem, ['--project', 'ui', 'remember', 'Again, keep everything simple and don’t use external libraries.']);
  await recallOk(mem, ['--project', 'ui', 'remember', 'Do NOT use Chart.js. Only use vanilla HTML5 Canvas.']);
  const { facts } = await recallJson<{ facts: ExportedFact[] }>(mem, ['--project', 'ui', 'export']);
  const items = facts.filter((f) => f.kind).map((f) => `${f.kind}: ${f.statement}`);
  assert.ok(items.includes("rule: Again, keep everything simple and don't use external libraries."), JSON.stringify(items));
  assert.ok(items.includes('rule: Do NOT use Chart.js.'), JSON.stringify(items));
});

test('a later decision for the same topic supersedes the earlier: "データベースは、Supabase を使います", then Firebase', async () => {
  const first = readTranscriptFile(path.join(REAL, 'specstory/agent-model-mode-tool-use-slice.md')).episodes[0]!;
  const { memory } = await memoryWith([
    { ...first, project: 'buildings', time: '2026-01-03T14:51:00Z' },
    { text: 'やっぱり、データベースは Firebase を使います。', role: 'user', project: 'buildings', time: '2026-01-05T09:00:00Z' },
  ]);
  const facts = memory.export({ history: true }).facts.filter((f) => f.kind === 'decision' && f.subject === 'データベース');
  const by = (o: string): (typeof facts)[number] | undefined => facts.find((f) => f.object === o);
  assert.equal(by('Supabase')?.status, 'superseded', JSON.stringify(facts));
  assert.equal(by('Firebase')?.status, 'current', JSON.stringify(facts));
  // The other choices of that turn (authentication, storage, payments) are other topics: they hold.
  const held = memory
    .export()
    .facts.filter((f) => f.kind === 'decision')
    .map((f) => f.object);
  for (const o of ['Better Auth', 'Polar', 'Firebase']) assert.ok(held.includes(o), `${o} in ${JSON.stringify(held)}`);
});

// ---- forms of a conversation with an agent (tune fold: test/fixtures/real and knowledge/transcripts, origins in their SOURCES.md)

const KNOWLEDGE = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'transcripts');
const kturn = (file: string, i: number): { text: string; role?: string; items: KnowledgeReading[] } => {
  const e = readTranscriptFile(path.join(KNOWLEDGE, file)).episodes[i];
  assert.ok(e, `${file} has a turn ${i}`);
  return { text: e.text, role: e.role, items: readKnowledge({ text: e.text, speaker: e.speaker, role: e.role }) };
};

test("requirements the person sets an agent with a modal, a prohibition, 'instead of' (cline gmfstu, turn 0; gemini share, turn 0; codex openprintkit)", () => {
  const cards = brief(turn('cline/gmfstu-ui_messages.slice.json', 0).items);
  for (const said of [
    'rule: The current dependencies for online play should be used exclusively (Unity.Netcode)',
    'rule: All new instances of game actions must be able to be referenced by other game actions',
    'rule: All of these game actions should work with the architecture defined in ActionSystem.cs',
  ])
    assert.ok(
      cards.some((c) => c.startsWith(said)),
      `${said}\n${JSON.stringify(cards)}`,
    );
  const blocked = brief(turn('gemini/chat-share-icon-after.md', 0).items);
  assert.ok(blocked.includes('rule: You are BLOCKED from reading files in `_bmad-output/planning-artifacts/`.'), JSON.stringify(blocked));
  // "Ensure you follow it.": what it points back to is not in the sentence.
  assert.ok(!blocked.some((b) => b.includes('Ensure you follow it')), JSON.stringify(blocked));
  const aux = brief(kturn('codex/openprintkit-peripherals-slice.jsonl', 1).items);
  assert.ok(
    aux.some((a) => a.startsWith('decision: ') && a.includes('instead of relay, rename the M42 as Aux.')),
    JSON.stringify(aux),
  );
  const ubuntu = kturn('codex/openprintkit-gui-xcb-slice.jsonl', 5).items;
  assert.deepEqual(
    ubuntu.map((k) => [k.kind, k.statement, k.subject]),
    [['fact', "I'm on Ubuntu 22.04.", 'Ubuntu 22.04']],
  );
});

test('the same moods between people, or said as an expectation, are not requirements', () => {
  for (const said of [
    'Everyone should try it at least once.',
    'The kids must have loved the lake.',
    'Your sister must be so proud of you.',
    'The movie should be fine for the whole family.',
  ]) {
    assert.deepEqual(readKnowledge({ text: said, speaker: 'Caroline' }), [], said);
    assert.deepEqual(readKnowledge({ text: said, role: 'user' }), [], `${said} (to an agent)`);
  }
  for (const said of [
    'That should fix it now.',
    'The build should work now.',
    'It should be ready.',
    'Ensure smooth movement and collision resolution.',
  ])
    assert.deepEqual(readKnowledge({ text: said, role: 'user' }), [], said);
  // A constraint names the code it binds; exports and styles are code as imports and style are (written for this test).
  for (const rule of ['Avoid default exports.', 'Please avoid inline styles.'])
    assert.equal(readKnowledge({ text: rule, role: 'user' })[0]?.kind, 'rule', rule);
  // Between two people a requirement with a named subject, or a prohibition, is talk; to an agent it is the work's.
  for (const spec of ['All handlers should only parse input.', "You're not allowed to print the connection string."]) {
    assert.deepEqual(readKnowledge({ text: spec, speaker: 'Caroline' }), [], spec);
    assert.equal(readKnowledge({ text: spec, role: 'user' })[0]?.kind, 'rule', spec);
  }
});

test("an agent's durable facts: how to build, run and test, a setting, a correction (codex, copilot, claude-code zh)", () => {
  const tests = turn('codex/long-session-slice.jsonl', 6).items;
  assert.ok(
    tests.some((k) => k.kind === 'fact' && k.statement.startsWith('Tests: `PYTHONPATH=. pytest -q`') && k.subject === 'pytest'),
    JSON.stringify(tests),
  );
  // "Improved help texts for existing `validate` and `bundle` commands.": work done, not how to do it.
  assert.ok(!tests.some((k) => k.statement.startsWith('Improved')), JSON.stringify(tests));
  const start = turn('copilot/export-agent-mode-tools-slice.json', 1).items;
  assert.ok(
    start.some((k) => k.kind === 'fact' && k.statement.includes('canonical startup command (`npm ci && npm start`)')),
    JSON.stringify(start),
  );
  // A slash command of the chat is not a command of the project.
  assert.ok(!turn('claude-export/session-export-json-blocks.md', 2).items.some((k) => k.statement.includes('/explore-session')));
  const setting = kturn('codex/openprintkit-gui-xcb-slice.jsonl', 2).items;
  assert.ok(
    setting.some((k) => k.kind === 'fact' && k.subject === 'OPK_DEBUG' && k.statement.startsWith('OPK_DEBUG is an environment variable')),
    JSON.stringify(setting),
  );
  assert.deepEqual(
    kturn('claude-code/vibelife-proxy-port-zh.jsonl', 14).items.map((k) => [k.kind, k.statement]),
    [['fact', 'aiscend 的代理端口是 10808，不是 7890。']],
  );
  // "`su vibelife` 命令尝试切换 ... 但认证失败了。": a failure reported, with no cause, is nothing yet.
  assert.deepEqual(kturn('claude-code/vibelife-proxy-port-zh.jsonl', 1).items, []);
});

test('an agent\'s prediction, hypothetical, offer or praise is no fact: "would require", "if you want", "is a powerful tool"', () => {
  // Sentences of agents' replies in test/fixtures/knowledge/transcripts/specstory (origins in its SOURCES.md).
  const agentItems = (t: string): string[] => readKnowledge({ text: t, role: 'assistant' }).map((k) => `${k.kind}: ${k.statement}`);
  assert.deepEqual(agentItems('This would require installing esbuild (`npm install --save-dev esbuild`).'), []);
  assert.deepEqual(agentItems('After that, `npm run dev` should work.'), []);
  // An offer, or praise of a tool or of the agent's own work, is no fact (MichaelPaulukonis/polychrome.p5, SpecStory).
  for (const praise of [
    "The `npm version` command is a powerful tool for managing your package's version number.",
    'The solution is elegant, comprehensive, and addresses the root cause rather than working around symptoms.',
  ])
    assert.deepEqual(agentItems(praise), [], praise);
  assert.deepEqual(
    agentItems(
      'This is now ready for you to proceed with `npm run bump` if you want to increment the version for this significant infrastructure addition!',
    ),
    [],
  );
  // The same command stated as how the project is run is still the agent's fact.
  assert.deepEqual(agentItems('To start the dev server, run `npm run dev`.'), ['fact: To start the dev server, run `npm run dev`.']);
});

test("an agent's lessons: the fix said as what fixed it, a cause in Chinese, joined with what follows (codex openprintkit, claude-code zh)", () => {
  const xcb = kturn('codex/openprintkit-gui-xcb-slice.jsonl', 10).items;
  assert.ok(
    xcb.some(
      (k) => k.kind === 'lesson' && k.statement.includes('Forcing xcb selects the X11 plugin on Ubuntu and fixes the immediate exit.'),
    ),
    JSON.stringify(xcb),
  );
  const network = kturn('claude-code/vibelife-proxy-port-zh.jsonl', 5).items;
  assert.ok(
    network.some((k) => k.kind === 'lesson' && k.statement.startsWith('你所在的网络（可能是中国大陆）无法直接访问 claude.ai，所以')),
    JSON.stringify(network),
  );
  const where = turn('claude-code/background-bash-task-notification.jsonl', 4).items;
  assert.ok(
    where.some((k) => k.kind === 'lesson' && /^错误在 `ChatWelcomeMessageDemo.tsx` 文件中。\s*TypeScript编译错误显示/.test(k.statement)),
    JSON.stringify(where),
  );
  // "fixed" as an adjective ("fixed character abilities") is no fix: a design remark is not a lesson.
  assert.deepEqual(turn('gemini/chat-share-icon-first.md', 26).items, []);
  for (const said of ['Nothing fixes the race.', 'During the build, the cache prevents rebuilds.'])
    assert.deepEqual(readKnowledge({ text: said, role: 'assistant' }), [], said);
});

test("the person's answers to an agent's questions are decisions (claude-code skill-command-args, turn 3)", () => {
  const answered = turn('claude-code/skill-command-args-slice.jsonl', 3);
  assert.match(answered.text, /^User has answered your questions:/);
  assert.deepEqual(
    answered.items.map((k) => [k.kind, k.statement.replace(/^"([^"]{0,12})[^"]*"/, '"$1…"')]),
    [
      ['decision', '"vibe-skill 的…"="Claude Code Skill"'],
      ['decision', '"设计规范中强调的 Age…"="是，全面采用 (推荐)"'],
      ['decision', '"你希望 vibe-ski…"="SKILL.md + rules/ + tools/"'],
    ],
  );
  // An answer that only lets the agent go on chooses nothing; the same text from the agent is no decision.
  assert.deepEqual(readKnowledge({ text: 'User has answered your questions: "Shall I continue?"="Yes".', role: 'user' }), []);
  assert.ok(!readKnowledge({ text: answered.text, role: 'assistant' }).some((k) => k.kind === 'decision'));
});

test('a request to build something with a known technology chose it; one without, or a fix, chose nothing', () => {
  const read = (t: string): [string, string | undefined][] => readKnowledge({ text: t, role: 'user' }).map((k) => [k.kind, k.object]);
  assert.deepEqual(read('Create a REST API in Node.js with Express.'), [['decision', 'Node.js']]);
  assert.deepEqual(read('Implement high score save/load using JSON file.'), []);
  assert.deepEqual(read('Fix the login flow with the new token.'), []);
  // Said to another person, not to an agent, it is talk.
  assert.deepEqual(
    readKnowledge({ text: 'Create a REST API in Node.js with Express.' }).map((k) => k.kind),
    [],
  );
});

test("a person's forms from real transcripts: a rule labelled as one, a shouted let's NOT, the stack of the project", () => {
  const read = (t: string): [string, string | undefined][] => readKnowledge({ text: t, role: 'user' }).map((k) => [k.kind, k.subject]);
  // VercinGetorix447/SystemGoat-Factory, a Claude Code session (.claude/projects/-home-echo/1ae0b157-….jsonl @2bf82578f147fa5b5244f121518744e89d1d69a6).
  assert.deepEqual(read('#RULE: Always - I need a summary of estimated token usage for search and task PRIOR to proceeding'), [
    ['rule', undefined],
  ]);
  // ThatHunky/gryag, a SpecStory history (.specstory/history/2025-10-25_12-37Z-fixing-bot-memory-issues-with-user-data.md @27dc8ac4dbf20b5598f933fb9fdb7864726de2b3).
  assert.deepEqual(read("Let's NOT redact personal info!"), [['rule', undefined]]);
  assert.deepEqual(read("Let's not forget the tests!"), [], 'not shouted, exclaimed: encouragement');
  // AspireOne/laura-backend, an aider history (.aider.chat.history.md @c12302c36c566befe014096d2c0dc0200f3c147b).
  assert.deepEqual(read('This is a NestJS project.'), [['fact', 'NestJS']]);
  assert.deepEqual(read('This is a Great idea project.'), [], 'only a technology the extractor knows is a stack');
});

test('a turn that sets out rules as a list is read as a rules file is; a numbered task list is not', () => {
  const KNOWLEDGE = path.join(REAL, '..', 'knowledge', 'transcripts');
  const turn = (file: string, ref: string): string =>
    readTranscriptFile(path.join(KNOWLEDGE, file)).episodes.find((e) => String(e.ref) === ref)!.text;
  // hericlibong/SassyAI, a Codex session (origin in test/fixtures/knowledge/SOURCES.md): "Create principles for …:" and nine items.
  const principles = turn('codex/cb-sassyai-v2-principles.jsonl', 'line 2');
  assert.equal(listedItems(principles)?.length, 9);
  const read = readKnowledge({ text: principles, role: 'user' });
  for (const said of [
    'Testing is required: add tests for prompt/persona policy, provider adapter, and main chat flow (API-level). Keep it simple and reviewable.',
    'Keep architecture minimal: start with one backend service + one frontend UI; no premature microservices.',
  ])
    assert.ok(
      read.some((k) => k.kind === 'rule' && said.startsWith(k.statement)),
      `${said}\n${JSON.stringify(read.map((k) => k.statement))}`,
    );
  assert.ok(!read.some((k) => /^Create principles/.test(k.statement)), 'the request that names the list is not a rule');
  // djha786543-gif/career-os-v2, an aider history (ditto): "Architect: Create a standalone … seed script." and numbered steps.
  const steps = turn('aider/ac-career-os-serpapi.aider.chat.history.md', 'line 25');
  assert.equal(listedItems(steps), undefined, 'no line names rules: a task, not a rules file');
});

test('a list a turn names as decisions is read as decisions; the line naming it is no item', () => {
  // aunshx/checkpoint-scout, a Claude Code session (origin in test/fixtures/knowledge/SOURCES.md).
  const file = path.join(REAL, '..', 'knowledge', 'transcripts', 'claude-code', 'tj-checkpointscout-dashboard-stack.jsonl');
  const text = readTranscriptFile(file).episodes.find((e) => e.role === 'user')!.text;
  const read = readKnowledge({ text, role: 'user' });
  const decisions = read.filter((k) => k.kind === 'decision').map((k) => k.statement);
  for (const said of ['Single page, no router', 'Static build, no backend', 'Deployed to GitHub Pages'])
    assert.ok(decisions.includes(said), `${said}\n${JSON.stringify(decisions)}`);
  assert.ok(!read.some((k) => k.statement.startsWith('Architecture decisions')), 'the naming line says nothing alone');
  // The list after it, named by no such line, takes nothing from it: its steps are no decisions.
  assert.ok(!decisions.some((d) => /npm install|mkdir/.test(d)), JSON.stringify(decisions));
});

test('a list the turn names after it ("add these rules") is read as rules; a colon item takes its indented line', () => {
  // AryanSinCel/StreamList, a SpecStory history (origin in test/fixtures/knowledge/SOURCES.md): twelve
  // shouted bullets, the last one ending "… add these rules that should be followed when working on this project".
  const file = path.join(REAL, '..', 'knowledge', 'transcripts', 'specstory', 'sb-streamlist-rn-project-rules.md');
  const text = readTranscriptFile(file).episodes.find((e) => String(e.ref) === 'line 2353')!.text;
  assert.equal(listedItems(text)?.length, 12);
  const rules = readKnowledge({ text, role: 'user' })
    .filter((k) => k.kind === 'rule')
    .map((k) => k.statement);
  for (const said of [
    'USE Promise.allSettled for parallel calls',
    'NO borders (use spacing + background)',
    'ALL hooks must return: { data, loading, error, refetch }',
  ])
    assert.ok(rules.includes(said), `${said}\n${JSON.stringify(rules)}`);
  assert.ok(!rules.includes('ALL hooks must return:'), 'the item is whole, not cut at its colon');
  // Written for this test: "these rules:" opens a list, so the task list above it is not read as rules.
  const tasks = '1. fix the login bug\n2. add a test for it\n3. update the changelog\nAlso follow these rules:\n- never log tokens';
  assert.equal(listedItems(tasks)?.length, undefined, 'one item under the naming line: not a rules list');
  assert.equal(listedItems('- fix the login bug\n- add a test\n- update the changelog\nthose are the tasks for today'), undefined);
});

test('an agent\'s cause and what it led to, in one sentence, is a lesson; a plain "so" is not', () => {
  const lessons = (t: string): string[] => statementsOf('lesson', 'assistant', t);
  // maloneype/yposfgold-community-platform (SpecStory) and reviewchaser/dealerflow (Claude Code); origins in test/fixtures/knowledge/SOURCES.md.
  for (const said of [
    "The `Seed` icon doesn't exist in lucide-react, so I've replaced it with `Sprout` which is the appropriate alternative.",
    "The API uses `.lean()` which bypasses the `toJSON` plugin, so `_id` isn't converted to `id`",
  ])
    assert.deepEqual(lessons(said), [said]);
  // Written for this test: a reason for a step, and a result, with no failure or fix.
  assert.deepEqual(lessons("The file isn't large, so I read it whole."), []);
  assert.deepEqual(lessons("I've updated the config, so you can now run the tests."), []);
  // reviewchaser/dealerflow (ditto): a status, with no cause or fix in it.
  assert.deepEqual(lessons('The bug is fixed.'), []);
  assert.deepEqual(lessons('The bug is now resolved.'), []);
  assert.deepEqual(lessons('The bug is a missing await in the loader.'), ['The bug is a missing await in the loader.']);
});

test('an instruction for a case ("If X, return Y") is a rule; a hypothetical is not', () => {
  const rules = (t: string): string[] => statementsOf('rule', 'user', t);
  // djha786543-gif/career-os-v2, an aider history (origin in test/fixtures/knowledge/SOURCES.md).
  const said = 'If the API is down or returns zero results, return an empty list [] instead of throwing a 500 error.';
  assert.deepEqual(rules(said), [said]);
  // Written for this test: the case's consequence guessed, and a choice weighed, not instructed.
  assert.deepEqual(rules('If we used Postgres, we would need a migration step.'), []);
  assert.deepEqual(rules('If the tests pass, maybe merge it tomorrow.'), []);
  assert.deepEqual(rules('If you want, use pnpm instead.'), []);
});

test("a rules list pasted after someone else's words is theirs, not the person's", () => {
  // Written for this test, in the shape of real turns that paste another model's answer ("GEMINI SAID:").
  const turn = [
    'Look at what the other model suggested.',
    'GEMINI SAID:',
    'Project rules:',
    '- Use tabs everywhere.',
    '- Never write tests.',
    '- Always push to main.',
  ].join('\n');
  assert.equal(listedItems(turn), undefined);
  assert.deepEqual(readKnowledge({ text: turn, role: 'user' }), []);
});

test('an instruction for a recurring moment is a rule, and "note that" a fact; a one-off "we should" is neither', () => {
  // tslateman/duet and steadyfall/wwbm-webapp, Claude Code sessions (origins in test/fixtures/knowledge/SOURCES.md).
  assert.deepEqual(personKinds('we should run the prettier formatter on the README before committing it. just the readme, not all md'), [
    'rule',
  ]);
  assert.deepEqual(personKinds('Note that issues can be categorized into 4 projects: Platform (Frontend), Middleware, Backend, Infra.'), [
    'fact',
  ]);
  // Written for this test.
  assert.deepEqual(personKinds('We should fix this bug.'), []);
});

test('"next time", "instead of doing", "only X is permitted" and "I do not want you to" are standing; "let me know" is not', () => {
  // Safecast/safecast-map-MCP (Claude Code), IMUR/colab-config and robin-collins/gpt-crawler (SpecStory); origins in
  // test/fixtures/knowledge/SOURCES.md.
  for (const said of [
    'Next time you made changes to the code, let me commit.',
    'create a ./archive/ directory and move all obsolete files instead of deleting or removing',
    'Only changes to the current branch (backup) of the colab-config repo are permitted.',
    'I do not want you to put all the helper functions in the config.ts, i like the file sepearation',
  ])
    assert.deepEqual(personKinds(said), ['rule'], said);
  // Written for this test: a one-off request, and the next step of this task.
  assert.deepEqual(personKinds('Let me know what you think.'), []);
  assert.deepEqual(personKinds('Next, add the button.'), []);
});

test('asked to be written into CLAUDE.md, or "should always be done", is a rule; an edit to a README is not', () => {
  // anchapin/ironclaw, a Claude Code session (origin in test/fixtures/knowledge/SOURCES.md).
  const said =
    'update Claude.md to indicate that git work trees should always be used so that multiple claude code terminals can be active in the ironclaw repository directory';
  assert.deepEqual(personKinds(said), ['rule']);
  // Written for this test.
  assert.deepEqual(personKinds('Please update AGENTS.md to say that the API returns newest first.'), ['rule']);
  assert.deepEqual(personKinds('The tests should never be skipped.'), ['rule']);
  assert.deepEqual(personKinds('Update the README to describe the install steps.'), []);
  assert.deepEqual(personKinds('I updated CLAUDE.md so that it mentions the build.'), []);
  assert.deepEqual(personKinds('It should always be fine.'), []);
});

test("where something lives, as an agent found it, is the agent's fact; a clause naming a place is not", () => {
  const agentFacts = (t: string): string[] => statementsOf('fact', 'assistant', t);
  // tslateman/duet (Claude Code) and DanCard/cal-date-widget (SpecStory); origins in test/fixtures/knowledge/SOURCES.md.
  for (const said of [
    'The hooks live in `.git/hooks/` (local, not tracked).',
    'Shared settings persistence lives in `PrefsManager.kt`; undo helper in `SettingsStateManager.kt`.',
  ])
    assert.deepEqual(agentFacts(said), [said]);
  // MichaelPaulukonis/polychrome.p5 and JanDeDobbeleer/oh-my-posh (ditto): a condition, and a place named in brackets.
  assert.deepEqual(agentFacts('Runs lifecycle scripts - If defined in `package.json`'), []);
  assert.deepEqual(agentFacts('[AGENTS.md](AGENTS.md) — two new sections: *Skills* (what lives in `.agents/skills` and why)'), []);
});

test('where something lives, said with its path, is a fact; "it is very important that you" a rule', () => {
  // AspireOne/laura-backend (aider) and IMUR/colab-config (SpecStory); origins in test/fixtures/knowledge/SOURCES.md.
  assert.deepEqual(personKinds('I will have cron jobs defined at src\\cron\\name.service.ts.'), ['fact']);
  assert.deepEqual(personKinds("it is very important that you express clearly the 'hybrid approach' that we made a decision"), ['rule']);
  // Written for this test: a remark, and a place with no path.
  assert.deepEqual(personKinds('It is important to note that this fails.'), []);
  assert.deepEqual(personKinds('I saved it in the downloads folder.'), []);
  // closup/process-xbrl (SpecStory): a file named with Cursor's "@", no folder.
  assert.deepEqual(personKinds('Conversion logic is located in @acfr.py'), ['fact']);
  assert.deepEqual(personKinds('My routes should be in @routes.py'), ['fact']);
  // Written for this test: a place that is no file; a rule that names a file stays a rule.
  assert.deepEqual(personKinds('The bug is located in the loop.'), []);
  assert.deepEqual(personKinds('All actions should work with the architecture defined in ActionSystem.cs.'), ['rule']);
});

test('a rules list pasted under "DO NOT" says each item is forbidden; a list led by a sentence after "DO NOT …" is as written', () => {
  // The DO / DO NOT lists of spatialvault's copilot-instructions.md (test/fixtures/knowledge/instructions, origin in its
  // SOURCES.md), pasted into a turn as people paste their rules.
  const pasted = [
    'Please follow these rules for the project:',
    '',
    '### DO:',
    '- Write tests for new functionality',
    '- Use existing abstractions and services',
    '',
    '### DO NOT:',
    '- Commit secrets, credentials, or sensitive data',
    '- Modify database migration files that have already been applied',
    '- Break existing API contracts without versioning',
  ].join('\n');
  const rules = statementsOf('rule', 'user', pasted);
  assert.ok(rules.includes('DO NOT: Commit secrets, credentials, or sensitive data'), JSON.stringify(rules));
  assert.ok(rules.includes('Write tests for new functionality'), JSON.stringify(rules));
  assert.ok(
    !rules.some((r) => /^(?:Commit|Modify|Break)\b/.test(r)),
    `no forbidden item is stored as the person's rule to do it: ${JSON.stringify(rules)}`,
  );
  // cb-dealerflow-ruleset, turn 16: "DO NOT invent new models …. Use these canonical concepts:" leads with its last sentence.
  const turn16 = kturn('claude-code/cb-dealerflow-ruleset.jsonl', 16).items.map((k) => k.statement);
  assert.equal(
    turn16.filter((s) => s.startsWith('DO NOT invent new models')).length,
    1,
    `the rule once, its list's items not made forbidden by it: ${JSON.stringify(turn16)}`,
  );
});

test("a passage in quotes opening a turn is someone's words pasted, not the person's rule; a short quoted phrase is the person's", () => {
  // en-trivivo-engineering-preferences, turn 16: the agent's note pasted in quotes, then "- add this as a note to ARCH-01".
  const pasted = kturn('claude-code/en-trivivo-engineering-preferences.jsonl', 16);
  assert.match(pasted.text, /^"ARCH-01 notes a potential naming collision/);
  assert.deepEqual(
    pasted.items.filter((k) => k.statement.includes('AppConfig')),
    [],
  );
  // Made up: a pasted passage, then a rule of the person's with a quoted word: the rule is read.
  assert.ok(
    statementsOf(
      'rule',
      'user',
      '"The build failed because the lockfile was out of date and the cache kept an old copy of it around." - thanks. From now on always use "pnpm" for installs.',
    ).some((r) => r.includes('pnpm')),
  );
  // A turn opening with a quoted name is not a paste.
  assert.ok(
    statementsOf('rule', 'user', '"strict" is the setting we rely on most. Never turn off "strict" in tsconfig, whatever the reason.').some(
      (r) => r.startsWith('Never turn off'),
    ),
  );
  // Made up: a rule the person quotes, a few words, is still theirs.
  assert.deepEqual(statementsOf('rule', 'user', '"Never log the database URL" - that is our rule from now on.'), [
    '"Never log the database URL" - that is our rule from now on.',
  ]);
});

test('what the person wants of the work, will not have, leans towards or keeps, in their words', () => {
  // semikolon/kimonokittens, Hornsyld/economic-bc-connector, steadyfall/wwbm-webapp and MichaelPaulukonis/polychrome.p5;
  // origins in test/fixtures/knowledge/SOURCES.md.
  const minimal =
    'But no, I want the script to be quite minimal, fall back on defaults as much as possible and look like the example file but without as many comments';
  assert.deepEqual(personKinds(minimal), ['preference']);
  assert.deepEqual(personKinds('So, I want to calculate rent for January now.'), [], 'a task the person wants done');
  assert.deepEqual(
    personKinds('I dont want to have a custom table and a table extension that extends that very same custom extension in same solution.'),
    ['rule'],
  );
  assert.deepEqual(personKinds('Bias toward explicit over clever.'), ['preference']);
  // reviewchaser/dealerflow (Claude Code) and AbdulAlkawasmeh/metadata-aider (aider); origins in
  // test/fixtures/knowledge/SOURCES.md and test/fixtures/real/SOURCES.md.
  assert.deepEqual(personKinds('Prefer small focused patches per file.'), ['preference']);
  assert.deepEqual(personKinds('Only use vanilla HTML5 Canvas.'), ['rule']);
  assert.deepEqual(personKinds('Only ask if missing info blocks progress.'), ['rule']);
  // Digital-Agent-Oversoul/stuart-data-cleaner (Cursor); origin in test/fixtures/knowledge/SOURCES.md. Wanting said
  // politely is no guess; a preference need not name a technology.
  for (const said of [
    'I prefer to keep the current output directory structure.',
    'I prefer JSON config files for their readability, compatibility, and easy of edit.',
    'I would like inline code comments that explain what each block is currently intended to do, to fix, and/or to avoid.',
    'At the same time, I would like to maintain seperate changelog documentation and versioning in a CHANGELOG.md file.',
    'With that in mind, I would prefer to have some safetey net in place if the LLM fails, where I confirm to proceed with rule-based processing.',
    // kgpax/todo-bmad (a Cursor export; origin in test/fixtures/knowledge/SOURCES.md).
    "For the testing frameworks, I'd prefer jest for unit testing and playwright for e2e testing.",
    // R3zil/duck_town (Claude Code; ditto): a team's want.
    'We want it to be remote not local',
    // woodward/playground (a Cursor export; ditto): what the person likes doing, and a want with "also".
    "I like using IO.ANSI colors in my Elixir scripts; let's import that into our module and use it.",
    'I also like having the line "#!/usr/bin/env elixir" at the top of the file, and making the file executable.',
    'I would also like for this to be idempotent - we should be able to run it over and over again, and it should just annotate any new commits that are in TRANSCRIPT.md.',
  ])
    assert.deepEqual(personKinds(said), ['preference'], said);
  assert.deepEqual(personKinds('DRY is important-flag repetition aggressively.'), ['rule']);
  assert.deepEqual(personKinds('Let\'s keep the singular folder name, analagous to `src` (it\'s not "sources" afterall).'), ['decision']);
  // Written for this test: going on with the work, a wish about a person, what matters to someone.
  assert.deepEqual(personKinds('lets keep working on the parser.'), []);
  assert.deepEqual(personKinds('Only 1 log page.'), [], 'no instruction after "only"');
  assert.deepEqual(personKinds('I would like to dive deeper into the Arts system.'), [], 'a task the person would like done');
  // Written for this test: liking a person's company, and a task wanted "also".
  assert.deepEqual(personKinds('I like having you here.'), []);
  assert.deepEqual(personKinds('I would also like to add a logout button.'), []);
  // harinathpathipaka-commits/visionweb (Claude Code): how the person wants to be answered.
  assert.deepEqual(personKinds('Just a short answer'), ['preference']);
  assert.deepEqual(personKinds('Please be concise.'), ['preference'], 'written for this test');
  assert.deepEqual(personKinds('The answer is 42.'), [], 'written for this test');
  assert.deepEqual(personKinds('I want to add a logout button.'), [], 'a task');
  assert.deepEqual(personKinds('I would use Redis if it were up to me.'), [], 'still a hypothetical');
  assert.deepEqual(personKinds('Only then did the build pass.'), []);
  assert.deepEqual(personKinds('I want you to tell me what will happen if I close it.'), []);
  assert.deepEqual(personKinds('Family is really important to me.'), []);
  // Between two people the same words are no instruction to an agent.
  assert.deepEqual(
    readKnowledge({ text: minimal, speaker: 'Caroline' }).map((k) => k.kind),
    [],
  );
});

test('a sentence typed in lower case after a full stop is read on its own; a long one ending on "it" still says something', () => {
  // maloneype/yposfgold-community-platform and steadyfall/wwbm-webapp (duet); origins in test/fixtures/knowledge/SOURCES.md.
  assert.deepEqual(statementsOf('rule', 'user', "please just do the import. don't make me navigate to a web page."), [
    "don't make me navigate to a web page.",
  ]);
  assert.ok(
    statementsOf(
      'rule',
      'user',
      'reset the commit! we should run the prettier formatter on the README before committing it. just the readme, not all md',
    ).includes('we should run the prettier formatter on the README before committing it.'),
  );
  // Written for this test: an abbreviation is no sentence's end; a short sentence pointing back says nothing alone.
  assert.deepEqual(statementsOf('rule', 'user', 'Never compare versions vs. dates in the changelog.'), [
    'Never compare versions vs. dates in the changelog.',
  ]);
  assert.deepEqual(personKinds('ensure you follow it.'), []);
});

test('a rule pointing back takes the sentence it points to; a reason given after a rule goes with it', () => {
  // ac-career-os-serpapi (aider); origin in test/fixtures/knowledge/SOURCES.md.
  assert.deepEqual(statementsOf('rule', 'user', "Pull the SerpApi key using os.getenv('SERPAPI_KEY'). Do not hardcode it."), [
    "Pull the SerpApi key using os.getenv('SERPAPI_KEY'). Do not hardcode it.",
  ]);
  assert.deepEqual(
    statementsOf('rule', 'user', 'Do NOT use a global transaction. This ensures that if one row fails, the script continues to the next.'),
    ['Do NOT use a global transaction. This ensures that if one row fails, the script continues to the next.'],
  );
  // Written for this test: a sentence before that is an item itself stays its own; a next sentence that is no reason too.
  assert.deepEqual(statementsOf('rule', 'user', 'Never log the token. Do not print it.'), ['Never log the token.', 'Do not print it.']);
  assert.deepEqual(statementsOf('rule', 'user', 'Never log the token. The parser is next.'), ['Never log the token.']);
});

test('a case opened with "when", a duty to keep something current, a choice to stick with, a thing ruled out', () => {
  // Hornsyld/economic-bc-connector (specstory), blackgirlbytes/planetfall-seed-signalkit (claude-code),
  // reviewchaser/dealerflow (claude-code), ThatHunky/gryag (specstory); origins in test/fixtures/knowledge/SOURCES.md.
  const alGuidelines =
    'When writing AL code, follow best practices from https://github.com/microsoft/alguidelines/tree/main/content/docs/vibe-coding and highlight relevant recommendations.';
  assert.deepEqual(statementsOf('rule', 'user', alGuidelines), [alGuidelines]);
  assert.deepEqual(statementsOf('rule', 'user', 'Keep this spec updated as decisions are made.'), [
    'Keep this spec updated as decisions are made.',
  ]);
  const principles = [
    '1) NON-NEGOTIABLE PRINCIPLES',
    '1. DB-first: Update Prisma schema and migrations BEFORE UI changes.',
    '2. Minimal scope: Implement ONLY what the current task requests. No extra features.',
    '3. Single source of truth: Vehicle, Case, Form, Submission, Task are canonical entities. Don’t create duplicates.',
  ].join('\n');
  // The list item whole, not the sentence "No extra features." read from it first.
  assert.ok(
    readKnowledge({ text: principles, role: 'user' }).some(
      (k) => k.statement === 'Minimal scope: Implement ONLY what the current task requests. No extra features.',
    ),
  );
  assert.deepEqual(statementsOf('rule', 'user', 'No extra features.'), ['No extra features.']);
  assert.ok(
    statementsOf(
      'rule',
      'user',
      "it needs to show what the problem is..how they solve it..and i dont want it to be long..if it can be like 2 stories that would be great. no emdashes..let's discuss options before you implement",
    ).includes('no emdashes'),
  );
  assert.deepEqual(
    statementsOf(
      'decision',
      'user',
      "Let's **only** rely on Gemini's judgement and tool calling and remove those continuous monitoring legacy code",
    ),
    ["Let's only rely on Gemini's judgement and tool calling and remove those continuous monitoring legacy code"],
  );
  assert.deepEqual(personKinds("We don't need a mapping table for Customers as they will keep the same customer no."), ['decision']);
  // Written for this test: a question opened by "when" or "where" (a case opened by them is none), a reply opened by "no", a need waved away.
  assert.deepEqual(personKinds('When is the release due.'), []);
  assert.equal(isQuestion('Where do the fixtures live.'), true);
  assert.equal(isQuestion('Where possible, use the typed client.'), false);
  for (const reply of ['no problem', 'no, that is wrong', 'No thanks.', 'no comments, looks good', "We don't need to worry about that."])
    assert.deepEqual(personKinds(reply), [], reply);
  assert.deepEqual(personKinds("let's stick with SQLite for now"), [], 'for now: a one-off');
  // Between two people a case opened with "when" is advice (a LoCoMo turn, snap-research/locomo).
  const advice =
    "When motivating others, it's important to show care for teammates, celebrate their achievements, provide constructive feedback, and remind them of the bigger goal.";
  assert.deepEqual(readKnowledge({ text: advice, speaker: 'John' }), []);
});

test("an agent's step run into the next at a colon is read on its own; a lesson goes on with what it suggests", () => {
  // MichaelPaulukonis/polychrome.p5 (specstory); origin in test/fixtures/knowledge/SOURCES.md.
  const said =
    "Let me run this simple test: The issue is that the page is timing out on `waitForLoadState('networkidle')`. This suggests there are ongoing network requests that never finish.";
  assert.deepEqual(statementsOf('lesson', 'assistant', said), [
    "The issue is that the page is timing out on `waitForLoadState('networkidle')`. This suggests there are ongoing network requests that never finish.",
  ]);
  // fishtown (specstory) and sage (claude-code), `tb-` and `th-` in test/fixtures/knowledge: what the cause led to.
  for (const said of [
    "The issue was a typo - the CSS was using `--primaryDark` (camelCase) but your actual variable is `--primary-dark` (with hyphen). Since the variable didn't exist, the browser was falling back to a default grey.",
    "The issue was that `HttpClientModule` was removed from the component imports. Without it, Angular couldn't provide the `HttpClient` service to make API requests.",
  ])
    assert.deepEqual(statementsOf('lesson', 'assistant', said), [said]);
  // R3zil/duck_town (claude-code, `tj-` in test/fixtures/knowledge): the cause named as such, its failure said before it.
  const root = 'The root cause is that the working directory `/home/gastown/gt/Conducktor_rig` is not a git repository.';
  assert.deepEqual(statementsOf('lesson', 'assistant', root), [root]);
  // raymondwalkerhs-spec/hangup-hr (cursor, `tm-`; ditto): the quoted error's "Could not" is no guess.
  const quoted =
    "The error `Could not find the table 'public.loan_requests'` happened because the database migration that creates that table had not been applied yet.";
  assert.deepEqual(statementsOf('lesson', 'assistant', quoted), [quoted]);
  // Written for this test: a cause asked about or guessed is none.
  assert.deepEqual(statementsOf('lesson', 'assistant', 'If the cache is stale, that could be the root cause.'), []);
  // Written for this test: a sentence opened by "since" that leads to no failure goes on with nothing.
  assert.deepEqual(statementsOf('lesson', 'assistant', 'The issue was a stale cache. Since then the build has been green.'), [
    'The issue was a stale cache.',
  ]);
  // Written for this test: a colon not after a step is no sentence's end.
  assert.deepEqual(statementsOf('lesson', 'assistant', 'The problem is twofold: The build fails because the cache is stale.'), [
    'The problem is twofold: The build fails because the cache is stale.',
  ]);
});

test('what the product lets its users do is a decision; what users can do now is a report', () => {
  // PuuperttiRuma/conferenceroom-api (gemini) and the Gemini share in test/fixtures/real; origins in the SOURCES.md files.
  for (const said of [
    'User can reserve a conference room for a certain time period.',
    'User can list all the reservations to a specified room.',
    'Essentially, the player can choose 3 different Aspects on a character.',
  ])
    assert.deepEqual(personKinds(said), ['decision'], said);
  // Written for this test: a bug report, and the same words between two people.
  assert.deepEqual(personKinds("Users can still see other people's orders."), []);
  assert.deepEqual(
    readKnowledge({ text: 'Users can reserve a room for a whole day.', speaker: 'Caroline' }).map((k) => k.kind),
    [],
  );
});

test('what the work is, what "we will" do, and a short line ended without a full stop are read', () => {
  // Hornsyld/economic-bc-connector (specstory), hericlibong/SassyAI (codex), closup/process-xbrl
  // (specstory); origins in test/fixtures/knowledge/SOURCES.md.
  const turn = [
    'Next step I would like you to do is to create the launch file. ',
    'Tenant id is a76b06e3-f400-49db-84df-e9a75fa473f6',
    'We will connect to sandbox enviroment which is named Sandbox021025',
  ].join('\n');
  assert.deepEqual(statementsOf('decision', 'user', turn), ['We will connect to sandbox enviroment which is named Sandbox021025']);
  assert.deepEqual(statementsOf('fact', 'user', 'The product is a web chat UI (classic chat interface).'), [
    'The product is a web chat UI (classic chat interface).',
  ]);
  assert.deepEqual(
    statementsOf(
      'fact',
      'user',
      'My routes should be in @routes.py\nConversion logic is located in @acfr.py and the viewer HTML is @upload.html',
    ),
    ['My routes should be in @routes.py', 'Conversion logic is located in @acfr.py and the viewer HTML is @upload.html'],
  );
  // Written for this test: a judgement of the work, a plan to wait, prose wrapped at a width (one sentence).
  for (const none of ['The app is a bit slow today.', "We'll see how it goes.", 'We will need to add tests.'])
    assert.deepEqual(personKinds(none), [], none);
  const wrapped =
    'Always run the formatter on every file you touch before you commit, so that the diff stays small and\nReviewers see only the change.';
  assert.deepEqual(statementsOf('rule', 'user', wrapped), [wrapped.replace('\n', ' ')]);
});

test('a file attached by mention opening a turn is not part of the sentence after it', () => {
  // Tre-Seibert/FishtownWebDesign (specstory); origin in test/fixtures/knowledge/SOURCES.md.
  assert.deepEqual(
    statementsOf(
      'preference',
      'user',
      '@public/venue-web-design.html I dont like the blue backgorund in some secctions it doesnt make sense with our color scheme',
    ),
    ['I dont like the blue backgorund in some secctions it doesnt make sense with our color scheme'],
  );
});

test("an agent's lesson: what causes the failure, or when it fails; not a search for the cause, nor a lead-in", () => {
  // maloneype/yposfgold-community-platform, AryanSinCel/StreamList and robin-collins/gpt-crawler (specstory);
  // origins in test/fixtures/knowledge/SOURCES.md.
  const icon = "The `Seed` icon doesn't exist in lucide-react, which is causing the import error and making the component crash.";
  assert.deepEqual(statementsOf('lesson', 'assistant', icon), [icon]);
  const persist = "persist's wrapped `setState` triggers `setItem`, which fails when the native module is unavailable.";
  assert.deepEqual(statementsOf('lesson', 'assistant', persist), [persist]);
  for (const none of [
    "After examining the git diff, I can see exactly what's causing the module not found errors.",
    'Here are the key changes that are causing the issue:',
  ])
    assert.deepEqual(statementsOf('lesson', 'assistant', none), [], none);
});

test('a sentence of an aside in brackets is read without the bracket left on it', () => {
  // steadyfall/wwbm-webapp (claude-code); origin in test/fixtures/knowledge/SOURCES.md.
  const turn =
    'Create issues (and sub-issues as well) in issues/ directory while following the issues/ISSUE_TEMPLATE.md template. (Note that issues can be categorized into 4 projects: Platform (Frontend), Middleware, Backend, Infra. Testing will be written by developers itself to keep them accountable.)';
  assert.deepEqual(statementsOf('fact', 'user', turn), [
    'Note that issues can be categorized into 4 projects: Platform (Frontend), Middleware, Backend, Infra.',
  ]);
  // Written for this test: brackets that close within the sentence stay.
  assert.deepEqual(statementsOf('rule', 'user', 'Never log the token (or its hash).'), ['Never log the token (or its hash).']);
});

test("an agent's lesson: a thing missing or not working because of a cause, what a setting caused, what a state led to", () => {
  // Nishanth-sebastin/eagerminds-bookmarks (claude-code) and Atlia-Code/website (specstory); origins in
  // test/fixtures/knowledge/SOURCES.md.
  const missing =
    "The confirmation one is missing because **Supabase's default email sender is rate-limited to a few messages/hour** and is meant only for early testing — it often silently drops or lands in spam.";
  assert.deepEqual(statementsOf('lesson', 'assistant', missing).length, 1);
  const setting =
    "Removed `verbatimModuleSyntax: true` from `tsconfig.app.json`. This setting caused TypeScript to be too strict about module resolution, conflicting with React 19's JSX runtime types.";
  assert.deepEqual(statementsOf('lesson', 'assistant', setting), [
    "This setting caused TypeScript to be too strict about module resolution, conflicting with React 19's JSX runtime types.",
  ]);
  const led =
    "That's a misconfiguration, not intended behavior. Your Supabase **Site URL** is still `http://localhost:3000`, and the email template builds the link from `{{ .SiteURL }}`. So on a real device the verify link breaks.";
  const [lesson] = statementsOf('lesson', 'assistant', led);
  assert.match(lesson!, /^Your Supabase Site URL is still `http:\/\/localhost:3000`.*So on a real device the verify link breaks\.$/);
  // What a missing thing led to, said in the past (Episk-pos/lenr.academy, specstory).
  const db = "The `parkhomov.db` file wasn't in the `public` folder, so the app couldn't load it.";
  assert.deepEqual(statementsOf('lesson', 'assistant', db), [db]);
  // That the fix works is a status, not the fix (Atlia-Code/website, specstory).
  assert.deepEqual(statementsOf('lesson', 'assistant', 'The fix is working.'), []);
  // Written for this test: a plain "so", and a consequence the agent plans.
  assert.deepEqual(statementsOf('lesson', 'assistant', 'The tests pass now. So far nothing breaks.'), []);
  assert.deepEqual(statementsOf('lesson', 'assistant', 'The port is taken. So I will stop the server before it fails.'), []);
});

test('an agent narrating its steps says nothing to keep; a question after a lead-in is still a question', () => {
  // CS485-Harmony/Harmony (specstory) and thelucidbox/AsymmetricBridge (claude-code); origins in
  // test/fixtures/knowledge/SOURCES.md.
  for (const said of [
    'Exploring the codebase to locate pin-related code and test patterns, then adding failing tests for TDD (no feature fixes yet).',
    'Implementing fixes: reviewing the codebase and running tests to verify behavior.',
  ])
    assert.deepEqual(
      readKnowledge({ text: said, role: 'assistant' }).map((k) => k.kind),
      [],
      said,
    );
  for (const asked of [
    'As far as Codex, should I just tell Codex to read the dispatch MD file in the asymmetric bridge project or can you give me the prompt right here so I can give it to Codex',
    'And also should I create this on a separate tree or the main.',
  ])
    assert.equal(isQuestion(asked), true, asked);
  // Written for this test: a label opening with a describing word is no narration; a rule after "and also" is no question.
  assert.deepEqual(
    readKnowledge({
      text: "Missing `id` transformation: the API uses `.lean()`, which bypasses the `toJSON` plugin, so `_id` isn't converted to `id`.",
      role: 'assistant',
    }).map((k) => k.kind),
    ['lesson'],
  );
  assert.equal(isQuestion('And also never push to main.'), false);
});

test("a console's lines pasted into a person's turn are the tool's words, not the person's rule", () => {
  // Episk-pos/lenr.academy (specstory); origin in test/fixtures/knowledge/SOURCES.md. The browser's
  // console, pasted: its deprecation warning said "is deprecated", as a person's rule would.
  const pasted = [
    'DatabaseContext.tsx:62 ✅ Connection appears to be unmetered',
    '2dbCache.ts:52 ⚠️ Persistent storage denied - data may be evicted',
    'cascades:1 <meta name="apple-mobile-web-app-capable" content="yes"> is deprecated. Please include <meta name="mobile-web-app-capable" content="yes">Understand this warning',
  ].join('\n');
  assert.deepEqual(personKinds(pasted), []);
  // Written for this test: the person naming one place in the code still states a rule.
  assert.deepEqual(personKinds('The `legacyLogin` helper in auth.ts:40 is deprecated.'), ['rule']);
  // twardoch/twat-mp (specstory, to-twat-mp-hatch.md): pip's warning opening a pasted traceback, a log line by its level.
  const pip =
    "DEPRECATION: --no-python-version-warning is deprecated. pip 25.1 will enforce this behaviour change. A possible replacement is to remove the flag as it's a no-op.";
  assert.deepEqual(personKinds(pip), []);
  assert.deepEqual(personKinds('npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.'), []);
  // Written for this test: a person's own label, shouted, still opens their rule.
  assert.deepEqual(personKinds('IMPORTANT: never run the migrations against the production database.'), ['rule']);
  assert.deepEqual(personKinds('ERROR handling: never swallow exceptions in the service layer.'), ['rule']);
});

test("a command's prompt file sent in the person's name is its author's, not the person's rules", () => {
  // arnemohr/funke (codex): spec-kit's /speckit.clarify, as Codex sent it for the person; origin in
  // test/fixtures/knowledge/SOURCES.md. Its 25 instructions were held as the person's rules.
  const turn = kturn('codex/tf-funke-stack-auth0.jsonl', 6);
  assert.equal(turn.role, 'user');
  assert.match(turn.text, /^## User Input/);
  assert.deepEqual(turn.items, []);
  // Written for this test: "user input" in the person's own rule, and a rules list under a heading of that name.
  assert.deepEqual(personKinds('Always validate user input before saving it.'), ['rule']);
  assert.deepEqual(personKinds('## User Input Validation\n\nNever trust user input from the form.'), ['rule']);
});

test("a plan approved in plan mode is the agent's words, not the person's rules", () => {
  // Ri5ha6h/tan-mapper-app (claude-code, `tl-` in test/fixtures/knowledge; origin in its SOURCES.md): Claude Code sends
  // the approved plan as a `user` line with `planContent`; its conventions ("no semicolons/single quotes") were Claude's.
  const file = path.join(KNOWLEDGE, 'claude-code', 'tl-tanmapper-claude-md.jsonl');
  const raw = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.includes('"planContent"'))!;
  const plan = readTranscriptFile(file).episodes.find((e) => e.ref === JSON.parse(raw).uuid)!;
  assert.deepEqual([plan.role, plan.authority], ['assistant', 'agent']);
  assert.match(plan.text, /^# Plan: Create CLAUDE\.md/, "the plan, without Claude Code's words around it");
  // The same turn as a SpecStory export keeps it, in the person's name: its words are read as nobody's rules.
  const exported = `Implement the following plan:\n\n${plan.text}`;
  assert.deepEqual(personKinds(exported), []);
  // Written for this test: a person's own turn that mentions a plan is read as ever.
  assert.deepEqual(personKinds('Never implement the following plan without tests.'), ['rule']);
  // raymondwalkerhs-spec/hangup-hr (a Cursor export, `tm-`; ditto): Cursor carrying out a plan, under its title, and
  // its notice of a finished task, both in the person's name; "Do NOT edit the plan file itself." was held as theirs.
  const cursor = readTranscriptFile(path.join(KNOWLEDGE, 'cursor', 'tm-hangup-hr-promotions-versions.md')).episodes;
  const carrying = cursor.find((e) => e.text.includes('Implement the plan as specified'))!;
  assert.match(carrying.text, /^GitHub updates, macOS CI, and finance roadmap\n+Implement the plan as specified/);
  assert.deepEqual(personKinds(carrying.text), []);
  assert.ok(!cursor.some((e) => e.text.includes('<system_notification>')), 'a notice of a finished task is no turn');
});

test('a constraint said with "cannot" or "can only" is a rule; what fails, or an error quoted, is not', () => {
  // PuuperttiRuma/conferenceroom-api (gemini) and Hornsyld/economic-bc-connector (specstory); origins in
  // test/fixtures/knowledge/SOURCES.md.
  assert.deepEqual(personKinds('The reservations to a specific room cannot overlap.'), ['rule']);
  // "ie." ends no sentence: the constraint is read whole.
  assert.deepEqual(statementsOf('rule', 'user', 'A room cannot be reserved in the past, ie. a room can only be reserved in the future.'), [
    'A room cannot be reserved in the past, ie. a room can only be reserved in the future.',
  ]);
  assert.deepEqual(
    personKinds('"The requested operation cannot be performed in this context." is the message i receive when i have entered "demo".'),
    [],
  );
  // Written for this test: failures.
  assert.deepEqual(personKinds('The module cannot be found.'), []);
  assert.deepEqual(personKinds("The app can't connect to the database."), []);
});

test('"from now on" said to an agent is a rule even after "I\'ll …"; between people it is a resolution', () => {
  // PuuperttiRuma/conferenceroom-api (gemini); origin in test/fixtures/knowledge/SOURCES.md.
  const said = "I'll manage saving the chat history with the inbuilt command, you can stop handling the PROMPTIT.md file from now on.";
  assert.deepEqual(personKinds(said), ['rule']);
  // Written for this test.
  assert.deepEqual(
    readKnowledge({ text: "I'll go running every morning from now on.", speaker: 'Caroline' }).map((k) => k.kind),
    [],
  );
});

test('how the work is to be, said of it, is a decision: "there should be", "will be marked", "the name of the app is"', () => {
  // kawikabader/ccv-music-tools (specstory) and PuuperttiRuma/conferenceroom-api (gemini); origins in
  // test/fixtures/knowledge/SOURCES.md.
  for (const said of [
    'There should be 2 permission levels: admin and music director.',
    'We will need search/filter capabilities.',
    'The repo will be marked as private to keep everyone except me from seeing the contact info db.',
    'The name of the app is Team Roster.',
    'The conversation will be saved in a file called PROMPTIT.md in pwd root.',
  ])
    assert.deepEqual(personKinds(said), ['decision'], said);
  // What the work is, as the person sets out to make it (the same session), is a fact.
  assert.deepEqual(
    personKinds(
      '@create-prd.mdc I want to create a web app that allows music directors to login and find all of the phone numbers for all of our musicians.',
    ),
    ['fact'],
  );
  assert.deepEqual(personKinds('I want to create a button that opens the settings.'), [], 'a task');
  // Written for this test: an expectation, a status, a plan.
  for (const said of ['There should be no errors now.', 'The bug will be fixed in the next release.', 'We will need to check the logs.'])
    assert.deepEqual(personKinds(said), [], said);
});

test("a line of the stack as an agent lists it is the agent's fact; the same shape about anything else is not", () => {
  // mariobrusarosco/best-shot (specstory); origin in test/fixtures/knowledge/SOURCES.md.
  const agent = (t: string) => readKnowledge({ text: t, role: 'assistant' }).map((k) => [k.kind, k.subject]);
  assert.deepEqual(agent('Vitest for testing'), [['fact', 'Vitest']]);
  assert.deepEqual(agent('TanStack Query for data fetching'), [['fact', 'TanStack Query']]);
  // From the same reply: a line whose head is no technology.
  assert.deepEqual(agent('Separate files for each domain entity'), []);
  assert.deepEqual(agent('Development tools for React Query and Router'), []);
  // AllProAi/Sanza-TV-App_QuickPoll_v1 (specstory; ditto): labelled by its role, the name written as the project does.
  assert.deepEqual(agent('- **Framework**: React.js for component-based UI development'), [['fact', 'React.js']]);
  assert.deepEqual(agent('- **Build System**: Webpack for bundling and optimization'), [['fact', 'Webpack']]);
  // Farhaan96/CollisionOS (claude-code, `tl-`; ditto): a technology and its role after a dash; and from
  // paul-callahan/scalable-agent-framework (cursor, `tk-`), the same shape naming the project's own classes.
  assert.deepEqual(agent('**React 18** - UI framework'), [['fact', 'React 18']]);
  assert.deepEqual(agent('**Zustand** - State management'), [['fact', 'Zustand']]);
  assert.deepEqual(agent('`GuardrailEngine` - YAML policy evaluation'), []);
  assert.deepEqual(agent('Validation - Post-init validation for all classes'), []);
  // Written for this test: a label over a phrase that only holds a technology's name.
  assert.deepEqual(agent('Note: Great React for beginners'), []);
});

test('what the work is to suggest is specified; a suggestion of the speaker is a hedge', () => {
  // tg-stuart-data-cleaner-core-engine.md (test/fixtures/knowledge, origin in its SOURCES.md), a requirement the person listed.
  assert.deepEqual(personKinds('The framework should learn from failures and suggest improvements.'), ['rule']);
  // Written for this test: a choice read as one alone, and nothing when the speaker only suggests it.
  assert.deepEqual(personKinds('We use Redis for the cache.'), ['decision']);
  for (const said of [
    'I suggest we use Redis for the cache.',
    'We recommend pnpm for every install.',
    'My recommendation is to use Redis for the cache.',
    'Use pnpm for every install, as recommended.',
  ])
    assert.deepEqual(personKinds(said), [], said);
});

test('a way asked for against the one it replaces is a choice; a question typed without its apostrophe is still one', () => {
  // tm-playground-phoenix-setup-skill.md, tk-todo-bmad-architecture.md, tg-tori-mcp-superassistant-api and
  // tm-gearup-bookings-mobile.md (test/fixtures/knowledge, origins in its SOURCES.md).
  for (const said of [
    'use "@impl Phoenix.LiveView" rather than "@impl true" please',
    'Please make typescript files use camelCase rather than kebab-case',
    'Keep using npm start or node index.js and leave the snippet you pasted from the terminal for quick REPL checks only.',
  ])
    assert.deepEqual(personKinds(said), ['decision'], said);
  assert.equal(isQuestion('dont we have already fields'), true);
  assert.deepEqual(personKinds('dont we have already fields'), []);
  // Written for this test: what someone did instead of something is no choice asked for; a negative one is a rule.
  assert.deepEqual(personKinds('I went to the office instead of the meetup.'), []);
  assert.deepEqual(personKinds("Don't use Jest rather than Vitest."), ['rule']);
});

test('a name given, an option taken, a choice accepted and the stack set by topic are decisions', () => {
  // ti-twat-search-engine-functions.md, tm-tconnect-openscad-enclosure.md, td-asymmetric-codex-branches.jsonl,
  // tk-todo-bmad-architecture.md and tj-coda-tsdr-constitution.jsonl (test/fixtures/knowledge, origins in its SOURCES.md).
  for (const said of [
    '- it should be called `info`',
    "Let's call the opposide side the power input side.",
    "Because of the work the way it works in code is I can simply just create and check out branch right and so I'll name this branch: forge/data",
    'Yes please, go for the ISR approach',
    'Next.js is good for the frontend.',
    // tk-senza-tv-hackathon.md: where the work runs, its technology right after.
    'host on vercel',
    '- PRIMARY_HOST: Vercel (auto-deploy on push)',
    '- Frontend & Runtime: Next.js (App Router) + TypeScript (strict).',
    '- Data Layer: PostgreSQL.',
  ])
    assert.deepEqual(personKinds(said), ['decision'], said);
  const set = readKnowledge({ text: '- Styling & Design System: Tailwind CSS + shadcn/ui (Radix primitives we own).', role: 'user' })[0];
  assert.equal(set?.subject, 'Styling & Design System');
  assert.equal(set?.object, 'Tailwind CSS');
  // The same shapes that are no decision: what calls a function, an idiom, feedback on the work, a check asked for,
  // a step of a plan and an error quoted (the last two from tj-checkpointscout-dashboard-stack.jsonl and
  // tn-skillz-eslint-tsconfig.md; the rest written for this test).
  for (const said of [
    'The cleanup function should be called after each test.',
    "let's call it a day",
    'the design is great',
    'please run pytest to check if evertything is ok',
    'Step 1: Create the React app',
    // tk-senza-tv-hackathon.md: the technology named further on is the one not to use.
    'Host your app on a publicly accessible website (not ngrok) and submit the live URL.',
    'Parsing error: ESLint was configured to run on `<tsconfigRootDir>/tests/integration/init.test.ts`',
  ])
    assert.ok(!personKinds(said).includes('decision'), said);
});

test('what the person says they are building is a fact of the work; a request run on after a choice leaves the choice', () => {
  // tj-checkpointscout-dashboard-stack.jsonl, tl-dscx-newsroom-dashboard.jsonl and
  // tf-docprocessor-langgraph.aider.chat.history.md (test/fixtures/knowledge, origins in its SOURCES.md).
  assert.deepEqual(personKinds("We're building a frontend dashboard for Checkpoint Scout, the agent in this repo."), ['fact']);
  assert.deepEqual(personKinds("I'm building the ultimate central internal desktop AND published dashboard view (public intranet)."), [
    'fact',
  ]);
  const ran = readKnowledge({
    text: 'I want to use  langgraph can you show me how you will implement each function of these? only an example snippet would do, not the full blown implementation',
    role: 'user',
  });
  assert.deepEqual(
    ran.map((k) => k.statement),
    ['I want to use langgraph'],
  );
  // sa-polychrome-e2e-test-folder.md: pointed out before the work goes on.
  assert.deepEqual(
    personKinds('Before you continue, let me point out that all of the QuickSettings gui sections start collapsed (closed) by default.'),
    ['fact'],
  );
  // A request with too little before it says nothing (en-economic-bc-connector-al-guidelines.md).
  assert.deepEqual(personKinds('After that can you make the project complile able.'), []);
});

test('a wish or a guess after a sentence turns leaves what comes before it standing', () => {
  // en-economic-bc-connector-al-guidelines.md (test/fixtures/knowledge, origins in its SOURCES.md).
  const said =
    "We don't need a mapping table for Customers as they will keep the same customer no. as they have in econnomics, but a overview or something would be nice where you are able to fix data like posting group setup etc. (I guess that system is different from business central).";
  assert.deepEqual(
    readKnowledge({ text: said, role: 'user' }).map((k) => `${k.kind}: ${k.statement}`),
    ["decision: We don't need a mapping table for Customers as they will keep the same customer no. as they have in econnomics"],
  );
  // Written for this test: a hedge before the turn holds for the whole; "I would like" is no hedge at all.
  assert.deepEqual(personKinds('I think we should use Redis, but maybe later'), []);
  assert.deepEqual(
    readKnowledge({ text: 'They have a few options; I would like it installed as a mix dependency, not vendored.', role: 'user' }).map(
      (k) => k.statement,
    ),
    ['They have a few options; I would like it installed as a mix dependency, not vendored.'],
  );
});

test('the plain ways a standing rule is set for an agent are rules; the same words about the moment are not', () => {
  // Written for this test, in the forms people correct an agent with (the "never log the database URL" kind).
  for (const said of [
    'Stop using console.log for debugging.',
    "stop adding comments I didn't ask for",
    'No more inline styles.',
    "We're not using Redux anymore.",
    "Let's not use any ORM here.",
    'Moving forward, use pnpm instead of npm.',
    'In the future, put new components in src/components.',
    'Default to TypeScript for new files.',
    'Stick to the existing folder structure.',
    'Leave the migrations folder alone.',
    'The generated folder is off limits.',
    'Be careful not to change the public API.',
    'Our convention is kebab-case for file names.',
    "We don't use semicolons in this codebase.",
    'Keep the API backwards compatible.',
    'Use tabs, not spaces.',
  ])
    assert.deepEqual(personKinds(said), ['rule'], said);
  // A technology chosen against another is a decision.
  assert.deepEqual(personKinds('use pnpm, not npm'), ['decision']);
  assert.deepEqual(personKinds('I hate it when you rewrite whole files.'), ['preference']);
  assert.deepEqual(personKinds('Tests go in the tests/ folder.'), ['fact']);
  for (const said of [
    'stop it',
    'stop the server',
    'No more errors.',
    "let's not worry about that",
    "we don't use it much",
    'Leave it as is for now',
    "Moving forward, we'll look at the UI.",
    'Keep it simple and reviewable.',
    // tk-agentgraph-protobuf-datamodels.md (test/fixtures/knowledge, origins in its SOURCES.md): for a while only.
    'Keep your responses very short for the time being, 1-3 sentences.',
  ])
    assert.deepEqual(personKinds(said), [], said);
});

test('a choice said as made, or a way left, is a decision; a day told to an agent is not', () => {
  // Written for this test, in the forms the issue names ("let's go with X", "switch to X", "X is deprecated").
  for (const said of [
    'We chose Vite over webpack.',
    "I've decided to drop Java support.",
    "We're going to use Tailwind for styling.",
    'We settled on Postgres.',
    'We opted for Postgres.',
    'Postgres it is.',
    "We're moving away from Redux.",
    'Drop support for Node 16.',
  ])
    assert.deepEqual(personKinds(said), ['decision'], said);
  for (const said of ['I decided to take a break.', 'I picked up the kids', 'we went with the flow', 'So it is.'])
    assert.deepEqual(personKinds(said), [], said);
});

test("an agent's lesson: what does not go together, what a step broke, what a setting lacks for a thing to work", () => {
  // tj-checkpointscout-dashboard-stack.jsonl, te-harmony-pin-permissions.md and tg-conferenceroom-api-promptit.md
  // (test/fixtures/knowledge, origins in its SOURCES.md).
  for (const said of [
    'Node 18 is too old for create-vite@9.',
    'Jest hoists `jest.mock` above `const MessageListMock`, which breaks the mock factory.',
    'The `tsconfig.json` is missing the `baseUrl` and `paths` configuration required for the `@` alias to work.',
  ])
    assert.deepEqual(statementsOf('lesson', 'assistant', said), [said], said);
  // Written for this test: what goes together, and a plan.
  for (const said of ['This change is compatible with the old API.', "I'll check which version is too old for the plugin."])
    assert.deepEqual(readKnowledge({ text: said, role: 'assistant' }), [], said);
});
