/**
 * A person's "the same as" (core/memory/same-as.ts) on a real rules file: spatialvault's
 * .github/copilot-instructions.md (test/fixtures/knowledge, origin in its SOURCES.md) says "Use
 * prepared statements and parameterized queries" and, further down, "Use parameterized queries to
 * prevent SQL injection": one rule, which no word count tells from two rules sharing words, so the
 * reader holds two items. The person joins them; the file read again, edited, or the rule said in a
 * conversation counts for the one kept. The memory is real, on disk; the journal is replayed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { SNAPSHOT_FILE } from '../src/core/memory/journaled-graph';
import type { FactView } from '../src/core/model/views';
import type { MemoryEvent } from '../src/core/model/events';
import { canonicalId, mapEventIds } from '../src/core/store/ids';
import { memberKey, signEvent } from '../src/sync/signing';
import { judgeRow, type RawRow } from '../src/sync/pulled';
import { onCleanup, ROOT, tmpFolder } from './helpers';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'instructions', 'spatialvault', '.github', 'copilot-instructions.md');
const KEPT = 'Use prepared statements and parameterized queries';
const GONE = 'Use parameterized queries to prevent SQL injection';
const HUMAN = { authority: 'human' as const, source: 'cli' };
const MINE = { authority: 'user' as const, authors: [] };

async function joined(
  tag: string,
): Promise<{ memory: Memory; folder: string; file: string; kept: FactView; gone: FactView; close: () => void }> {
  const ws = tmpFolder(`same-ws-${tag}`);
  const file = path.join(ws, '.github', 'copilot-instructions.md');
  fs.mkdirSync(path.dirname(file));
  fs.copyFileSync(FIXTURE, file);
  const folder = tmpFolder(`same-${tag}`);
  const memory = await Memory.open(folder);
  let closed = false;
  const close = (): void => {
    if (!closed) memory.close();
    closed = true;
  };
  onCleanup(close);
  readIn(memory, file);
  const [kept, gone] = [KEPT, GONE].map((s) => current(memory).find((f) => f.statement === s)!);
  assert.ok(kept && gone, 'the reader holds the two sayings as two rules');
  const done = memory.correct({ id: gone.id, verdict: 'same', as: kept.id }, HUMAN);
  assert.equal(done.id, kept.id, 'the item kept is returned');
  return { memory, folder, file, kept: done, gone, close };
}

const readIn = (memory: Memory, file: string) =>
  memory.readMemoryFile({ file, text: fs.readFileSync(file, 'utf8'), written: MINE, project: null }, HUMAN);
const current = (memory: Memory): FactView[] => memory.export().facts.filter((f) => f.kind !== undefined && f.status === 'current');
const saying = (memory: Memory, statement: string): FactView[] => current(memory).filter((f) => f.statement === statement);

test("the item said the same as another goes, under history; its line is the kept one's evidence", async () => {
  const { memory, kept, gone } = await joined('ends');
  const was = memory.fact(gone.id);
  assert.equal(was.status, 'superseded');
  assert.equal(was.ended_reason, `the same as ${kept.id}`);
  for (const e of gone.evidence) assert.ok(kept.evidence.includes(e), `${e}, the line it was read from, is evidence of ${kept.id}`);
  assert.deepEqual(saying(memory, GONE), []);
  assert.doesNotMatch(memory.brief({ project: null, budgetTokens: 2000 }).text, /prevent SQL injection/);
});

test('the file read again, unchanged or with that line edited, counts for the kept item: no second item', async () => {
  const { memory, file, kept } = await joined('reread');
  const again = readIn(memory, file);
  assert.equal(again.added, 0, 'nothing new');
  assert.ok(again.ids.includes(kept.id));
  assert.deepEqual(saying(memory, GONE), []);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(GONE, `${GONE}, always`));
  const edited = readIn(memory, file);
  assert.equal(edited.added, 0, 'the edited line says the same: still no new item');
  assert.equal(memory.fact(kept.id).evidence.length, kept.evidence.length + 1, 'the edited line is one more piece of evidence');
  assert.equal(current(memory).filter((f) => f.statement?.includes('prevent SQL injection')).length, 0);
});

test('said again in a conversation, it is evidence of the kept item; replayed from the journal, the join holds', async () => {
  const { memory, folder, kept, close } = await joined('turn');
  memory.ingest([{ text: `${GONE}.`, speaker: 'user', role: 'user', session: 's1', project: null }], HUMAN);
  assert.deepEqual(saying(memory, `${GONE}.`), [], 'no new item for the turn');
  const evidence = memory.fact(kept.id).evidence;
  assert.equal(evidence.length, kept.evidence.length + 1);
  close();
  fs.rmSync(path.join(folder, SNAPSHOT_FILE), { force: true });
  const replayed = await Memory.open(folder);
  try {
    assert.deepEqual(replayed.fact(kept.id).evidence, evidence);
    replayed.ingest([{ text: `${GONE} everywhere.`, speaker: 'user', role: 'user', session: 's2', project: null }], HUMAN);
    assert.deepEqual(saying(replayed, `${GONE} everywhere.`), [], 'the join was rebuilt from the journal');
  } finally {
    replayed.close();
  }
});

test("a saying a model read is joined as the model's: its turn is cited for the kept item with the model named", async () => {
  const { memory, folder, kept } = await joined('model');
  const [turn] = memory
    .ingest([{ text: 'Queries: parameters only.', speaker: 'user', role: 'user', session: 's1', project: null }], HUMAN)
    .results.map((r) => r.id);
  const model = { authority: 'agent' as const, source: 'scripted-model' };
  const said = 'Always bind query parameters; never build SQL from strings.';
  const [read] = memory.recordExtraction(
    { episode: turn!, facts: [], items: [{ kind: 'rule', statement: said, subject: 'SQL queries' }], extractor: 'scripted-model' },
    model,
  ).ids;
  memory.correct({ id: read!, verdict: 'same', as: kept.id }, HUMAN);
  const cited = fs
    .readFileSync(path.join(folder, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'relationship.evidence' && e.id === kept.id && e.episode === turn);
  assert.deepEqual(
    cited.map((e) => e.extractedBy),
    ['scripted-model'],
    'weighed as the model reading it, not as the person who spoke',
  );
  assert.ok(memory.fact(kept.id).evidence.includes(turn!));
});

test('the kept item marked wrong keeps the other out too; confirming the one that went brings it back on its own', async () => {
  const { memory, file, kept, gone } = await joined('wrong');
  memory.correct({ id: kept.id, verdict: 'wrong' }, HUMAN);
  const reread = readIn(memory, file);
  assert.equal(reread.added, 0);
  assert.ok((reread.rejected ?? 0) >= 2, 'both sayings are left out as marked wrong');
  assert.deepEqual(saying(memory, GONE), []);
  memory.correct({ id: gone.id, verdict: 'confirm' }, HUMAN);
  assert.equal(memory.fact(gone.id).status, 'current');
  const after = readIn(memory, file);
  assert.ok(after.ids.includes(gone.id), 'its line counts for it again, not for the wrong one');
});

test('what cannot be joined is refused with what to do instead', async () => {
  const { memory, kept, gone } = await joined('refused');
  const other = current(memory).find((f) => f.id !== kept.id && f.kind === 'rule')!;
  const fact = memory.relate({ subject: 'spatialvault', predicate: 'uses', object: 'PostGIS' }, HUMAN);
  const cases: [Parameters<Memory['correct']>[0], RegExp][] = [
    [{ id: other.id, verdict: 'same', as: other.id }, /is the item itself/],
    [{ id: gone.id, verdict: 'same', as: kept.id }, /superseded, not current/],
    [{ id: fact.id, verdict: 'same', as: kept.id }, /a fact, not a knowledge item/],
    [{ id: other.id, verdict: 'same' }, /"as" names the item kept/],
    [{ id: other.id, verdict: 'wrong', as: kept.id }, /"as" names the item kept/],
  ];
  for (const [input, error] of cases) assert.throws(() => memory.correct(input, HUMAN), error, JSON.stringify(input));
  const lesson = current(memory).find((f) => f.kind === 'fact')!;
  assert.throws(() => memory.correct({ id: other.id, verdict: 'same', as: lesson.id }, HUMAN), /are not joined/);
  memory.correct({ id: other.id, verdict: 'confirm' }, HUMAN);
  assert.throws(() => memory.correct({ id: other.id, verdict: 'same', as: kept.id }, HUMAN), /confirmed, so it stays/);
  assert.throws(
    () => memory.correct({ id: kept.id, verdict: 'same', as: other.id }, { authority: 'agent', source: 'mcp' }),
    /Only a person can/,
  );
});

test("the join travels with both ids in the team's spelling; a teammate's row is judged, sameAs included", async () => {
  const { folder, kept, gone } = await joined('sync');
  const journal = fs
    .readFileSync(path.join(folder, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as MemoryEvent);
  const retract = journal.find((e) => e.type === 'relationship.retract' && e.sameAs !== undefined);
  assert.ok(retract && retract.type === 'relationship.retract', 'the journal holds the join');
  const origin = 'abcdef123456';
  const moved = mapEventIds(retract, (_p, id) => canonicalId(id, origin));
  assert.equal(moved.sameAs, canonicalId(retract.sameAs!, origin));
  assert.equal(moved.id, canonicalId(retract.id, origin));

  const key = memberKey(tmpFolder('same-key'));
  const author = 'teammate@example.org';
  const row = (e: MemoryEvent): RawRow => {
    const { body, signature, digests } = signEvent(key, origin, author, { ...e, by: { authority: 'human', author } });
    return {
      id: 1,
      origin,
      originSeq: e.seq,
      author,
      authority: 'human',
      type: e.type,
      project: null,
      body,
      bytes: 200,
      signature,
      digests,
    };
  };
  const judge = { keyOf: () => ({ key: key.publicKey }), maxTextChars: 10_000, now: Date.now() };
  const taken = judgeRow(row(moved), judge);
  assert.ok(taken.ok, JSON.stringify(taken));
  assert.equal(taken.ok && taken.event.type === 'relationship.retract' && taken.event.sameAs, moved.sameAs);
  const bad = judgeRow(row({ ...moved, sameAs: 'the other one' }), judge);
  assert.ok(!bad.ok && /is not a fact id/.test(bad.reason), JSON.stringify(bad));
  const byAgent = judgeRow({ ...row(moved), authority: 'agent' }, judge);
  assert.ok(!byAgent.ok, 'an agent-authority row cannot join items');

  // Applied in the teammate's memory, the join names the kept item as that memory spells it.
  const other = await Memory.open(tmpFolder('same-other'));
  onCleanup(() => other.close());
  other.applyRemote(
    journal.map((e) => ({ ...mapEventIds(e, (_p, id) => canonicalId(id, origin)), origin, originSeq: e.seq })),
    { shares: () => true },
  );
  const there = other.fact(canonicalId(gone.id, origin));
  assert.deepEqual([there.status, there.ended_reason], ['superseded', `the same as ${canonicalId(kept.id, origin)}`]);
  assert.deepEqual(other.fact(canonicalId(kept.id, origin)).evidence.length, kept.evidence.length);
});
