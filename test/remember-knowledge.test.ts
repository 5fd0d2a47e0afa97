/**
 * Agents write knowledge on purpose: `recall_remember` with a kind, a subject and code citations
 * (the shape of Copilot's memory tool), over the SDK's own MCP client against the built
 * `recall mcp` standing in a real workspace (a git repository in a temp folder). The item is the
 * agent's word until a person confirms it (the CLI), its citations are anchors that go stale when
 * the cited lines change, and bad citations or kinds are refused with a hint, writing nothing.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { LIMITS } from '../src/core/model/limits';
import { CLI, onCleanup, tmpFolder } from './helpers';

const ENV: Record<string, string> = { ...(process.env as Record<string, string>), RECALL_IDLE_EXIT_MS: '60000' };

const DB_TS = [
  "import Database from 'better-sqlite3';",
  '',
  '/** The one way to open the store: WAL on, foreign keys on. */',
  'export function openStore(file: string): Database.Database {',
  '  const db = new Database(file);',
  "  db.pragma('journal_mode = WAL');",
  "  db.pragma('foreign_keys = ON');",
  '  return db;',
  '}',
  '',
].join('\n');

let memory: string;
let ws: string;
let client: Client;
let tools: Tool[];

before(async () => {
  memory = tmpFolder('remember-mem');
  ws = tmpFolder('remember-ws');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, 'src', 'db.ts'), DB_TS);
  client = new Client({ name: 'remember-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--memory', memory, 'mcp'], env: ENV, cwd: ws }));
  onCleanup(() => client.close());
  tools = (await client.listTools()).tools;
});

const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

async function ok(name: string, args: Record<string, unknown>): Promise<{ text: string; data: any }> {
  const r = await call(name, args);
  assert.notEqual(r.isError, true, `${name} failed: ${textOf(r)}`);
  const check = new AjvJsonSchemaValidator().getValidator(tools.find((t) => t.name === name)!.outputSchema as never)(r.structuredContent);
  assert.ok(check.valid, `${name} structuredContent matches its outputSchema: ${check.errorMessage}`);
  return { text: textOf(r), data: r.structuredContent };
}

/** The CLI as the person, standing in the workspace. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, '--memory', memory, ...args], { cwd: ws, env: ENV }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

const item = async (id: string): Promise<any> => {
  const facts = JSON.parse((await cli(['export', '--history'])).stdout).facts as any[];
  return facts.find((f) => f.id === id);
};

/** The item as a query over MCP shows it, with its code's state read in the workspace. */
async function queried(id: string): Promise<any> {
  const { data } = await ok('recall_query', { query: 'how do we open the database store?', limit: 10 });
  const f = data.facts.find((x: any) => x.id === id);
  assert.ok(f, `${id} among the facts: ${JSON.stringify(data.facts.map((x: any) => x.id))}`);
  return f;
}

const RULE = 'Open the database only through openStore(); never call new Database() anywhere else.';

test('the description tells an agent when to call it, and the schema takes kind, subject, citations and reason', () => {
  const t = tools.find((x) => x.name === 'recall_remember')!;
  for (const when of [/decision/, /rule/, /lesson/, /cite/]) assert.match(t.description!, when);
  const props = (t.inputSchema as { properties: Record<string, any> }).properties;
  assert.deepEqual(props.kind.enum, ['decision', 'rule', 'preference', 'fact', 'lesson']);
  for (const k of ['subject', 'citations', 'reason', 'text']) assert.ok(props[k], k);
});

test('recall_remember with a kind stores an item at agent authority, anchored to the cited lines; a person confirms it', async () => {
  const { data, text } = await ok('recall_remember', {
    text: RULE,
    kind: 'rule',
    subject: 'database store',
    citations: ['src/db.ts:4-9', 'src/missing.ts:1-3'],
    reason: 'the pragmas must be set on every connection',
  });
  assert.match(data.id, /^ep_/);
  assert.match(data.item, /^rel_/);
  assert.deepEqual(data.anchored, ['src/db.ts:4-9']);
  assert.deepEqual(
    data.unanchored.map((u: any) => u.citation),
    ['src/missing.ts:1-3'],
    'a citation naming nothing is reported, not dropped',
  );
  assert.match(text, /Not anchored: src\/missing\.ts:1-3: no such file/);

  const stored = await item(data.item);
  assert.deepEqual([stored.kind, stored.statement, stored.subject, stored.authority], ['rule', RULE, 'database store', 'agent']);
  const note = JSON.parse((await cli(['episodes', 'openStore', '--json'])).stdout).find((e: any) => e.id === data.id);
  assert.match(note.text, /\(Why: the pragmas must be set on every connection\)/);
  assert.equal(note.authority, 'agent');

  const fact = await queried(data.item);
  assert.equal(fact.code.status, 'current');
  assert.deepEqual(
    fact.code.anchors.map((a: any) => [a.path, a.startLine, a.endLine]),
    [['src/db.ts', 4, 9]],
  );
  assert.equal(fact.pinned, false);

  const confirmed = await cli(['correct', '--confirm', data.item]);
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.equal((await queried(data.item)).pinned, true, 'confirmed by the person');

  // The cited lines change: the item reads stale.
  fs.writeFileSync(path.join(ws, 'src', 'db.ts'), DB_TS.replace("'foreign_keys = ON'", "'foreign_keys = OFF'"));
  assert.equal((await queried(data.item)).code.status, 'changed');
});

test('the same knowledge remembered again is one item with more evidence', async () => {
  const first = await ok('recall_remember', {
    text: 'We use pnpm for installing dependencies in this repository.',
    kind: 'decision',
    subject: 'package manager',
  });
  const again = await ok('recall_remember', {
    text: 'In this repository we use pnpm for installing the dependencies.',
    kind: 'decision',
    subject: 'package manager',
    session: 'later',
  });
  assert.notEqual(again.data.id, first.data.id, 'two notes');
  assert.equal(again.data.item, first.data.item, 'one item');
  assert.equal((await item(first.data.item)).evidence.length, 2);
});

test('an agent remembering what a person marked wrong stores its note, not the item; the person saying it does', async () => {
  const LESSON = 'The flaky login test fails because the session cookie expires during the run.';
  const first = await ok('recall_remember', { text: LESSON, kind: 'lesson', subject: 'login test' });
  assert.equal((await cli(['correct', '--wrong', first.data.item, '--reason', 'it was the clock skew'])).code, 0);
  const again = await ok('recall_remember', { text: LESSON, kind: 'lesson', subject: 'login test', session: 'next day' });
  assert.notEqual(again.data.id, first.data.id, 'the note is stored');
  assert.deepEqual([again.data.item, again.data.wrong], [undefined, first.data.item]);
  assert.match(again.text, new RegExp(`A person marked this wrong \\(${first.data.item}\\): it is kept as your note only`));
  assert.equal((await item(first.data.item)).status, 'wrong', 'still wrong');
  // The person saying it (the CLI) is their own word: held again, as theirs.
  const mine = await cli(['remember', LESSON, '--kind', 'lesson', '--subject', 'login test']);
  assert.equal(mine.code, 0, mine.stderr);
  const id = /^lesson (rel_\w+)$/m.exec(mine.stdout)?.[1];
  assert.ok(id && id !== first.data.item, mine.stdout);
  assert.equal((await item(id)).status, 'current');
});

test('a later decision on the same subject supersedes the earlier; the brief shows the item, not its note again', async () => {
  // The person's, from the CLI: their notes are briefed as decisions unless an item says them.
  const said = async (text: string): Promise<string> => {
    const r = await cli(['remember', text, '--kind', 'decision', '--subject', 'database']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.match(/decision (rel_\w+)/)![1]!;
  };
  const first = await said('We use Postgres for the database.');
  const later = await said('Switch the database to SQLite.');
  const [was, now] = [await item(first), await item(later)];
  assert.deepEqual([was.object, now.object], ['PostgreSQL', 'SQLite'], 'each names its choice, read from its words');
  assert.deepEqual([was.status, was.ended_reason], ['superseded', `superseded by ${later}`]);
  assert.equal(now.valid_to, null);
  const brief = (await cli(['brief', '--tokens', '2000'])).stdout;
  assert.ok(brief.includes(`[${later}] Switch the database to SQLite.`), brief);
  assert.ok(!/Postgres/.test(brief), `the ended decision is not briefed, nor its note:\n${brief}`);
  assert.equal(brief.split('Switch the database').length - 1, 1, `said once, not again as a note:\n${brief}`);
});

test('bad kinds, subjects and citations are refused with a hint and write nothing', async () => {
  const before = JSON.parse((await cli(['status', '--json'])).stdout);
  const fails = async (args: Record<string, unknown>, message: RegExp): Promise<void> => {
    const r = await call('recall_remember', args);
    assert.equal(r.isError, true, `${JSON.stringify(args).slice(0, 120)} should fail: ${textOf(r)}`);
    assert.match(textOf(r), message);
    assert.match(textOf(r), /Hint: \S/);
  };
  await fails({ text: 'Tabs are better.', kind: 'opinion', subject: 'style' }, /Invalid arguments[\s\S]*kind/);
  await fails({ text: 'Always use tabs in Go files.', kind: 'rule' }, /needs a subject/);
  await fails({ text: 'x '.repeat(LIMITS.statementChars), kind: 'rule', subject: 'x' }, /keep it under 500/);
  for (const bad of ['/etc/passwd', '../outside/secret.ts:1-2', 'see the database file', 'src/db.ts:4-9 and src/other.ts'])
    await fails({ text: 'The store opens in WAL mode.', citations: [bad] }, /is not a code place[\s\S]*src\/db\.ts:10-20/);
  await fails(
    { text: 'The store opens in WAL mode.', citations: Array.from({ length: LIMITS.citations + 1 }, () => 'src/db.ts') },
    /Invalid arguments[\s\S]*citations/,
  );
  const after = JSON.parse((await cli(['status', '--json'])).stdout);
  assert.deepEqual([after.episodes, after.relationships], [before.episodes, before.relationships]);
});
