/**
 * The facts the answer's top turns back (facts.ts withBackedFacts, the recipe's `facts.backed`): in a
 * real memory on disk that read a real instructions file, a question naming no entity ("what are our
 * rules about logging") gets the rule the file's line states, and only then: not with the method off,
 * not a rule marked wrong unless history is asked for, not another project's; the episodes are the
 * same with the method on or off.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { withoutMethods } from '../src/bench/ablation';
import { Memory } from '../src/core/memory/memory';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe';
import { tmpFolder } from './helpers';

// A real instructions file (test/fixtures/knowledge/instructions/tibber-prices/.github/copilot-instructions.md,
// origin in test/fixtures/knowledge/SOURCES.md); its line 33 reads "Do not use `print()` — use `_LOGGER` for logging".
const FILE = path.join(__dirname, 'fixtures', 'knowledge', 'instructions', 'tibber-prices', '.github', 'copilot-instructions.md');
const APP = 'github.com/jpawlowski/hass.tibber_prices';
const OTHER = 'github.com/me/other';
const person = (project: string) => ({ authority: 'human' as const, source: 'cli', project });
const QUESTION = 'what are our rules about logging';
const LOGGING_RULE = /Do not use `print\(\)` — use `_LOGGER` for logging/;

async function memoryReading(project: string): Promise<Memory> {
  const m = await Memory.open(tmpFolder('backed'), { extract: false });
  m.readMemoryFile(
    { file: FILE, text: fs.readFileSync(FILE, 'utf8'), written: { authority: 'external', authors: [] }, project },
    person(project),
  );
  return m;
}

const ask = (m: Memory, o: { recipe?: RetrievalRecipe; project?: string; history?: boolean } = {}) =>
  m.query({ query: QUESTION, limit: 5, mode: 'keyword', project: o.project ?? APP, history: o.history }, o.recipe ?? DEFAULT_RECIPE);

test('backed: a rule found by the turn that states it, though the question names no entity; only with the method on', async () => {
  const m = await memoryReading(APP);
  const on = ask(m);
  const rule = on.facts.find((f) => LOGGING_RULE.test(f.statement ?? ''));
  assert.ok(
    rule,
    `the logging rule is among the facts:\n${on.facts.map((f) => f.statement ?? `${f.subject} ${f.predicate} ${f.object}`).join('\n')}`,
  );
  assert.equal(rule.kind, 'rule');
  assert.equal(on.facts[0]!.id, rule.id, 'it leads: its line is the top turn');
  assert.ok(rule.evidence.includes(on.episodes[0]!.id), 'with its evidence, the turn shown first');
  assert.ok(on.channels.includes('backed'));

  const off = ask(m, { recipe: withoutMethods(DEFAULT_RECIPE, ['backed']) });
  assert.ok(!off.facts.some((f) => LOGGING_RULE.test(f.statement ?? '')), 'with the method off the question finds no such fact');
  assert.ok(!off.channels.includes('backed'));
  assert.deepEqual(
    off.episodes.map((e) => e.id),
    on.episodes.map((e) => e.id),
    'the episodes are the same either way: the facts join after the fusion',
  );
  m.close();
});

test('backed: a rule marked wrong is found only when history is asked for', async () => {
  const m = await memoryReading(APP);
  const rule = ask(m).facts.find((f) => LOGGING_RULE.test(f.statement ?? ''))!;
  m.correct({ id: rule.id, verdict: 'wrong', reason: 'we log with structlog now' }, person(APP));
  assert.ok(!ask(m).facts.some((f) => f.id === rule.id), 'a wrong rule is not shown');
  const past = ask(m, { history: true }).facts.find((f) => f.id === rule.id);
  assert.equal(past?.status, 'wrong', 'with history it is, marked wrong');
  m.close();
});

test("backed: another project's rule is not found from this project", async () => {
  const m = await memoryReading(OTHER);
  const mine = ask(m, { project: APP });
  assert.equal(mine.episodes.length, 0, "this project has no turns: the file was read into the other's");
  assert.deepEqual(mine.facts, [], "and no facts: the other project's turns back none of this one's");
  assert.ok(
    ask(m, { project: OTHER }).facts.some((f) => LOGGING_RULE.test(f.statement ?? '')),
    "the other project's own question finds it",
  );
  m.close();
});
