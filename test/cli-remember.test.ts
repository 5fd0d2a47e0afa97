/**
 * `recall remember` with a kind, a subject and citations: the shape recall_remember has, typed by a
 * person, so the item is the person's word. The built CLI as a real process, standing in a real
 * workspace (a git repository in a temp folder) whose cited lines become the item's anchors.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { recall, tmpFolder } from './helpers';

const DB_TS = [
  "import Database from 'better-sqlite3';",
  '',
  'export function openStore(file: string): Database.Database {',
  '  const db = new Database(file);',
  "  db.pragma('journal_mode = WAL');",
  '  return db;',
  '}',
  '',
].join('\n');

let memory: string;
let ws: string;
const cli = (args: string[]) => recall(memory, args, {}, undefined, ws);

before(() => {
  memory = tmpFolder('cli-remember-mem');
  ws = tmpFolder('cli-remember-ws');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, 'src', 'db.ts'), DB_TS);
});

const exported = async (): Promise<any> => JSON.parse((await cli(['export', '--history'])).stdout);

test('remember --kind --subject --cite stores a knowledge item at the person’s authority, anchored to the cited lines', async () => {
  const RULE = 'Open the database only through openStore(), never with new Database() elsewhere.';
  const r = await cli([
    'remember',
    '--kind',
    'rule',
    '--subject',
    'database store',
    '--cite',
    'src/db.ts:3-7',
    '--cite',
    'src/gone.ts:1-2',
    RULE,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const [note, item, anchored, unanchored] = r.stdout.trim().split('\n');
  assert.match(note!, /^ep_\d+$/);
  assert.match(item!, /^rule rel_\d+$/);
  assert.equal(anchored, 'anchored to src/db.ts:3-7');
  assert.match(unanchored!, /^not anchored: src\/gone\.ts:1-2: no such file/);

  const id = item!.split(' ')[1];
  const fact = (await exported()).facts.find((f: any) => f.id === id);
  assert.deepEqual([fact.kind, fact.statement, fact.subject, fact.authority], ['rule', RULE, 'database store', 'human']);
  assert.deepEqual(fact.evidence, [note]);

  const json = JSON.parse((await cli(['remember', '--json', '--kind', 'rule', '--subject', 'database store', RULE])).stdout);
  assert.equal(json.item, id, 'the same rule again is the same item');
  const brief = await cli(['brief']);
  assert.match(brief.stdout, new RegExp(`${id}[^\\n]*Open the database only through openStore`), 'the brief names it');
});

test('a bad kind or citation is refused with a clear error and nothing is written', async () => {
  const before = JSON.parse((await cli(['status', '--json'])).stdout);
  const badKind = await cli(['remember', '--kind', 'opinion', '--subject', 'style', 'Tabs are better.']);
  assert.equal(badKind.code, 2);
  assert.match(badKind.stderr, /--kind is one of decision, rule, preference, fact, lesson/);
  for (const bad of ['/etc/passwd:1-2', '../outside.ts:1-2', 'the database file']) {
    const r = await cli(['remember', '--kind', 'fact', '--subject', 'store', '--cite', bad, 'The store opens in WAL mode.']);
    assert.equal(r.code, 1, `${bad}: ${r.stdout}`);
    assert.match(r.stderr, /is not a code place[\s\S]*src\/db\.ts:10-20/);
  }
  const noSubject = await cli(['remember', '--kind', 'rule', 'Always run the linter before pushing.']);
  assert.equal(noSubject.code, 1);
  assert.match(noSubject.stderr, /needs a subject[\s\S]*--subject|needs a subject/);
  const after = JSON.parse((await cli(['status', '--json'])).stdout);
  assert.deepEqual([after.episodes, after.relationships], [before.episodes, before.relationships]);
});

test('correct --same-as: two items that say one rule become one, and saying it again counts for the one kept', async () => {
  // The pair of spatialvault's .github/copilot-instructions.md (test/fixtures/knowledge, origin in its SOURCES.md).
  const KEPT = 'Use prepared statements and parameterized queries';
  const GONE = 'Use parameterized queries to prevent SQL injection';
  const said = async (text: string): Promise<string> =>
    JSON.parse((await cli(['remember', '--json', '--kind', 'rule', '--subject', 'SQL queries', text])).stdout).item;
  const [kept, gone] = [await said(KEPT), await said(GONE)];
  assert.notEqual(kept, gone, 'held as two rules');

  const usage = await cli(['correct', gone, '--same-as', kept, '--wrong']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /exactly one of --wrong, --confirm or --same-as/);
  const reason = await cli(['correct', gone, '--same-as', kept, '--reason', 'dup']);
  assert.equal(reason.code, 2);
  assert.match(reason.stderr, /--same-as takes no --reason/);

  const r = await cli(['correct', gone, '--same-as', kept]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^${gone} said the same as ${kept}; its evidence is ${kept}'s now:\\n${kept}: \\[rule\\] ${KEPT}`));
  const facts = (await exported()).facts;
  const ended = facts.find((f: any) => f.id === gone);
  assert.deepEqual([ended.status, ended.ended_reason], ['superseded', `the same as ${kept}`]);
  assert.equal(facts.find((f: any) => f.id === kept).evidence.length, 2);
  assert.equal(await said(GONE), kept, 'the rule said again is the kept item');

  const again = await cli(['correct', gone, '--same-as', kept]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, new RegExp(`${gone} is superseded, not current`));
});
