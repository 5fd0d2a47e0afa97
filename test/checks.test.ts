/**
 * Checks on rules, on the labelled set (test/fixtures/hooks/checks-labelled.json): each rule's
 * check as its words state it, and every tool call decided against every rule. A violation of a
 * checkable rule is denied or asked, and names exactly the rules it breaks; no benign call is
 * denied; only a person's or a confirmed rule denies.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkFromStatement } from '../src/core/ingest/checks';
import type { Authority } from '../src/core/model/config';
import { checkedPath, checkOf, describeCheck, type Check } from '../src/core/model/checks';
import { MemoryError } from '../src/core/model/errors';
import { decide, mayDeny, type CheckedRule } from '../src/core/model/rule-decision';
import { commandsOf } from '../src/core/model/shell-words';
import { toolCallOf } from '../src/core/model/tool-call';

interface Labelled {
  rules: { id: string; statement: string; authority: Authority; confirmed?: boolean; derived: boolean; check: Check }[];
  statements_without_checks: string[];
  calls: { note?: string; tool: string; input: unknown; violates: string[] }[];
}

const SET = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'hooks', 'checks-labelled.json'), 'utf8')) as Labelled;
const ROOT = '/work/app';

const rules: CheckedRule[] = SET.rules.map((r) => ({
  id: r.id,
  statement: r.statement,
  authority: r.authority,
  confirmed: r.confirmed === true,
  check: r.check,
  setter: r.derived ? 'statement' : 'person',
}));

test('each derived rule reads as exactly its labelled check', () => {
  for (const r of SET.rules.filter((x) => x.derived)) assert.deepEqual(checkFromStatement(r.statement), r.check, r.statement);
});

test('a statement that is conditional, not a command, or code gets no check', () => {
  for (const s of SET.statements_without_checks) assert.equal(checkFromStatement(s), undefined, s);
});

test('every violation is denied or asked, naming exactly the rules broken; no benign call is denied', () => {
  let violations = 0;
  let benign = 0;
  for (const call of SET.calls) {
    const d = decide(rules, toolCallOf(call.tool, call.input, ROOT));
    const label = `${call.tool} ${JSON.stringify(call.input)}${call.note ? ` (${call.note})` : ''}`;
    assert.deepEqual(d.hits.map((h) => h.rule.id).sort(), [...call.violates].sort(), label);
    if (call.violates.length === 0) {
      benign++;
      assert.equal(d.decision, 'allow', label);
      continue;
    }
    violations++;
    const binding = rules.filter((r) => call.violates.includes(r.id) && mayDeny(r));
    assert.equal(d.decision, binding.length ? 'deny' : 'ask', label);
    for (const id of call.violates) assert.match(d.reason, new RegExp(`\\b${id}\\b`), `the reason names ${id}`);
  }
  assert.ok(violations >= 15 && benign >= 10, `${violations} violations, ${benign} benign calls`);
});

test("an agent's or the repository's unconfirmed rule only asks; confirmed, or a person's, it denies; a peer's check never denies", () => {
  const base = { id: 'r', statement: 'Never force-push.', check: { command: ['git push --force*'] } };
  const call = toolCallOf('Bash', { command: 'git push --force' }, ROOT);
  const verdict = (r: Partial<CheckedRule>): string =>
    decide([{ ...base, authority: 'agent', confirmed: false, setter: 'statement', ...r }], call).decision;
  assert.equal(verdict({ authority: 'agent' }), 'ask');
  assert.equal(verdict({ authority: 'external' }), 'ask');
  assert.equal(verdict({ authority: 'agent', confirmed: true }), 'deny');
  assert.equal(verdict({ authority: 'user' }), 'deny');
  assert.equal(verdict({ authority: 'human', setter: 'person' }), 'deny');
  assert.equal(verdict({ authority: 'user', confirmed: true, setter: 'peer' }), 'ask');
});

test('a call the rule is about and keeps to is recorded as followed', () => {
  const d = decide(rules, toolCallOf('Bash', { command: 'git push origin main' }, ROOT));
  assert.deepEqual(d.followed.map((r) => r.id).sort(), ['force-push', 'main-force']);
  const p = decide(rules, toolCallOf('Bash', { command: 'pnpm add zod' }, ROOT));
  assert.deepEqual(
    p.followed.map((r) => r.id),
    ['pnpm'],
  );
});

test('a check is validated: kinds, sizes, one line, at least one pattern', () => {
  const bad = (v: unknown): void => assert.throws(() => checkOf(v), MemoryError);
  bad(null);
  bad([]);
  bad({});
  bad({ command: [] });
  bad({ command: ['  '] });
  bad({ command: 'npm *' });
  bad({ shell: ['npm *'] });
  bad({ command: ['npm\n*'] });
  bad({ path: ['x'.repeat(201)] });
  bad({ command: Array.from({ length: 21 }, (_, i) => `p${i}`) });
  assert.deepEqual(checkOf({ command: [' npm * ', 'npm *'], instead: ' pnpm ' }), { command: ['npm *'], instead: 'pnpm' });
  assert.equal(describeCheck({ command: ['npm *'], instead: 'pnpm' }), 'command `npm *` (instead: pnpm)');
});

test('shell lines read as the commands they run', () => {
  const programs = (line: string): string[] => commandsOf(line).map((w) => w.join(' '));
  assert.deepEqual(programs('cd a && FOO=1 sudo -u me npm i; echo "x && y" | tee out > log 2>&1'), [
    'cd a',
    'sudo -u me npm i',
    'npm i',
    'echo x && y',
    'tee out',
  ]);
  assert.deepEqual(programs(`bash -lc "git push --force" # and a comment`), ['git push --force']);
  assert.deepEqual(programs('echo $(git push -f)'), ['echo', 'git push -f']);
});

test('paths compare from the workspace root, with .. resolved, in or out of it', () => {
  assert.equal(checkedPath('/work/app/src/x/../gen/a.ts', ROOT), 'src/gen/a.ts');
  assert.equal(checkedPath('src\\gen\\a.ts', ROOT), 'src/gen/a.ts');
  assert.equal(checkedPath('/etc/hosts', ROOT), '/etc/hosts');
  assert.equal(checkedPath('/work/application/a.ts', ROOT), '/work/application/a.ts');
});
