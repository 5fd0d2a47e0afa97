/**
 * The brief (core/memory/brief.ts) on a real memory folder: what it picks, that it keeps to its
 * token budget on a memory of thousands of facts, its bounds, and `recall brief` as a process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approxTokens } from '../src/core/memory/brief';
import { Memory } from '../src/core/memory/memory';
import { BRIEF_MIN_TOKENS, LIMIT_DEFAULTS, LIMITS } from '../src/core/model/limits';
import { MemoryError } from '../src/core/model/errors';
import { recall, recallJson, recallOk, tmpFolder } from './helpers';

const person = { authority: 'human' as const, source: 'cli' };
const agent = { authority: 'agent' as const, source: 'mcp' };

test('an empty memory says it has nothing to brief, within the budget', async () => {
  const m = await Memory.open(tmpFolder('brief'), { extract: false });
  const b = m.brief();
  assert.match(b.text, /nothing confirmed, decided or preferred yet/);
  assert.deepEqual([b.facts.length, b.notes.length, b.left_out], [0, 0, 0]);
  assert.equal(b.budget_tokens, LIMIT_DEFAULTS.brief);
  assert.ok(b.tokens <= b.budget_tokens);
  m.close();
});

test('the brief picks confirmed facts, decisions, notes and preferences, and leaves out what a person marked wrong', async () => {
  const m = await Memory.open(tmpFolder('brief'), { extract: false });
  const confirmed = m.relate({ subject: 'billing', predicate: 'uses', object: 'Postgres' }, person).id;
  m.correct({ id: confirmed, verdict: 'confirm' }, person);
  const decided = m.relate({ subject: 'team', predicate: 'decided', object: 'sql.js' }, person).id;
  const prefers = m.relate({ subject: 'dana', predicate: 'prefers', object: 'pnpm' }, person).id;
  const wrong = m.relate({ subject: 'billing', predicate: 'uses', object: 'MySQL' }, person).id;
  m.correct({ id: wrong, verdict: 'wrong', reason: 'never did' }, person);
  // A model's guess stays below the bar for "known".
  const guess = m.relate({ subject: 'api', predicate: 'depends_on', object: 'redis', prior: 'speculative' }, person).id;
  const note = m.remember({ text: 'We keep the journal as the source of truth; snapshots are a cache.', time: '2024-05-02' }, person).id;
  m.remember({ text: 'an agent observation that is not the person speaking', time: '2024-05-03' }, agent);

  const b = m.brief({ project: 'github.com/acme/billing' });
  const kinds = Object.fromEntries(b.facts.map((f) => [f.id, f.section]));
  assert.equal(kinds[confirmed], 'confirmed');
  assert.equal(kinds[decided], 'decision');
  assert.equal(kinds[prefers], 'preference');
  assert.equal(kinds[wrong], undefined, 'a fact marked wrong is not briefed');
  assert.equal(kinds[guess], undefined, 'a speculative fact is not briefed');
  assert.deepEqual(
    b.notes.map((n) => n.id),
    [note],
    'only the person’s own notes',
  );
  for (const id of [confirmed, decided, prefers, note]) assert.ok(b.text.includes(`[${id}]`), `${id} is cited in the text`);
  assert.match(b.text, /^Recall brief \(project github\.com\/acme\/billing\)/);
  assert.match(b.text, /Confirmed by a person:\n- \[rel_\d+\] billing uses Postgres \(confirmed/);
  assert.match(b.text, /Preferences:\n- \[rel_\d+\] dana prefers pnpm/);
  assert.equal(b.left_out, 0);
  assert.equal(b.tokens, approxTokens(b.text));
  m.close();
});

test('on a memory of thousands of facts the brief stays within its budget and still shows every kind', async () => {
  const m = await Memory.open(tmpFolder('brief'), { extract: false });
  const ids: string[] = [];
  const episodes = Array.from({ length: 300 }, (_, i) => ({
    text: `Note ${i}: the service ${i % 7} keeps its retry budget at ${i} requests per minute for the partner API.`,
    time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
  }));
  m.ingest(episodes, person);
  for (let i = 0; i < 3000; i++) {
    const predicate = i % 10 === 0 ? 'decided' : i % 10 === 1 ? 'prefers' : 'uses';
    ids.push(m.relate({ subject: `service-${i % 97}`, predicate, object: `library-${i}` }, person).id);
  }
  for (const id of ids.slice(0, 400)) m.correct({ id, verdict: 'confirm' }, person);

  const b = m.brief();
  assert.ok(b.tokens <= LIMIT_DEFAULTS.brief, `${b.tokens} tokens within ${LIMIT_DEFAULTS.brief}`);
  assert.ok(approxTokens(b.text) <= LIMIT_DEFAULTS.brief);
  assert.ok(b.left_out > 0, 'the budget left candidates out');
  assert.match(b.text, /\nLeft out: [^\n]+; \+\d+ more$/, 'the footer names a few of what was left out, and counts the rest');
  const kinds = new Set([...b.facts.map((f) => f.section), ...(b.notes.length ? ['note'] : [])]);
  for (const kind of ['confirmed', 'decision', 'preference', 'known']) assert.ok(kinds.has(kind), `${kind} is represented`);
  // Every id it cites is real and current.
  for (const f of b.facts) assert.equal(m.fact(f.id).status, 'current');

  const bigger = m.brief({ budgetTokens: 1000 });
  assert.ok(bigger.tokens <= 1000 && bigger.tokens > b.tokens, `${bigger.tokens} tokens: a larger budget holds more`);
  assert.ok(bigger.facts.length > b.facts.length);
  const smallest = m.brief({ budgetTokens: BRIEF_MIN_TOKENS });
  assert.ok(smallest.tokens <= BRIEF_MIN_TOKENS && smallest.facts.length >= 1, smallest.text);
  m.close();
});

test('a budget out of bounds is refused with the bounds', async () => {
  const m = await Memory.open(tmpFolder('brief'), { extract: false });
  for (const budgetTokens of [BRIEF_MIN_TOKENS - 1, LIMITS.brief + 1, 12.5]) {
    assert.throws(
      () => m.brief({ budgetTokens }),
      (e: unknown) =>
        e instanceof MemoryError && e.code === 'invalid_input' && e.message.includes(`${BRIEF_MIN_TOKENS} to ${LIMITS.brief}`),
    );
  }
  m.close();
});

test('`recall brief` prints the brief as plain text for a SessionStart hook, and --json gives its parts', async () => {
  const mem = tmpFolder('brief');
  const here = ['--project', 'example.org/team/app'];
  const id = (await recallOk(mem, ['relate', 'Recall', 'decided', 'sql.js', ...here])).trim();
  await recallOk(mem, ['correct', '--confirm', id, ...here]);
  const text = await recallOk(mem, ['brief', ...here]);
  assert.match(
    text,
    new RegExp(
      `^Recall brief \\(project example\\.org/team/app\\);[^\\n]*\\nRecent decisions:\\n- \\[${id}\\] Recall decided sql\\.js \\(confirmed, since`,
    ),
  );
  // Another project's brief and the global one leave this project's fact out.
  assert.doesNotMatch(await recallOk(mem, ['brief', '--project', 'example.org/team/other']), new RegExp(`\\[${id}\\]`));
  assert.match(await recallOk(mem, ['brief', '--global']), /^Recall brief \(your global memory\): nothing confirmed/);
  const json = await recallJson(mem, ['brief', '--tokens', '80', ...here]);
  assert.equal(json.budget_tokens, 80);
  assert.deepEqual(
    json.facts.map((f: { id: string }) => f.id),
    [id],
  );
  const bad = await recall(mem, ['brief', '--tokens', String(LIMITS.brief + 1)]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /budget must be a whole number of tokens from 60 to 2000/);
});
