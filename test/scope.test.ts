/**
 * Projects and the two times, in-process on a real folder: writes carry their project, queries see
 * the current project and the global memory, older journals migrate on replay, a person moves
 * memories between projects, and facts hold from their evidence turn's time.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { SNAPSHOT_FILE } from '../src/core/memory/journaled-graph';
import { JOURNAL_FILE } from '../src/core/model/folder-layout';
import { MemoryError } from '../src/core/model/errors';
import { tmpFolder } from './helpers';

const A = 'github.com/me/alpha';
const B = 'github.com/me/beta';
const personIn = (project: string | null) => ({ authority: 'human' as const, source: 'cli', project });
const agentIn = (project: string | null) => ({ authority: 'agent' as const, source: 'mcp', project });

test('writes take their connection project; a query sees its project and global memory, scope all sees everything', async () => {
  const m = await Memory.open(tmpFolder('scope'), { extract: false });
  m.remember({ text: 'the deploy pipeline uses helm charts' }, personIn(A));
  m.remember({ text: 'the deploy pipeline uses terraform modules' }, agentIn(B));
  m.remember({ text: 'I prefer the deploy pipeline to run at night' }, personIn(null));
  m.remember({ text: 'the deploy pipeline lives in beta', project: B }, personIn(A));
  const texts = (project: string | null | undefined, scope?: 'project' | 'all') =>
    m
      .query({ query: 'deploy pipeline', project, scope })
      .episodes.map((e) => e.text)
      .sort();
  assert.deepEqual(texts(A), ['I prefer the deploy pipeline to run at night', 'the deploy pipeline uses helm charts']);
  assert.deepEqual(texts(B), [
    'I prefer the deploy pipeline to run at night',
    'the deploy pipeline lives in beta',
    'the deploy pipeline uses terraform modules',
  ]);
  assert.equal(texts(A, 'all').length, 4);
  assert.equal(texts(undefined).length, 4, 'no project known: every project');
  assert.deepEqual(texts(null), ['I prefer the deploy pipeline to run at night'], 'global alone');
  const ep = m.query({ query: 'helm', project: A }).episodes[0]!;
  assert.equal(ep.project, A);
  assert.equal(ep.source, 'cli');
  assert.equal(m.episodes({ project: B }).length, 3);
  assert.equal(m.episodes({ project: B, scope: 'all' }).length, 4);
  assert.throws(
    () => m.query({ query: 'x', scope: 'mine' as 'all' }),
    (e: MemoryError) => e.code === 'invalid_input',
  );
  m.close();
});

test('facts read from a turn belong to its project: the graph channel leaves other projects out', async () => {
  const m = await Memory.open(tmpFolder('scope'));
  m.remember({ text: 'Dana owns the settlement module.' }, personIn(A));
  m.remember({ text: 'Dana owns the billing module.' }, personIn(B));
  const objects = (project: string, scope?: 'all') =>
    m
      .query({ query: 'What does Dana own?', project, scope })
      .facts.map((f) => f.object)
      .sort();
  assert.deepEqual(objects(A), ['settlement module']);
  assert.deepEqual(objects(B), ['billing module']);
  assert.deepEqual(objects(A, 'all'), ['billing module', 'settlement module']);
  assert.equal(m.query({ query: 'Dana', project: A }).facts[0]!.project, A);
  assert.deepEqual(
    m.traverse({ entity: 'Dana', project: B }).facts.map((f) => f.object),
    ['billing module'],
  );
  assert.deepEqual(
    m.search({ query: 'settlement', project: B }).map((e) => e.name),
    [],
    "another project's entity is not found",
  );
  m.close();
});

test('a fact holds from its evidence turn, is learned now, and decays from when it held', async () => {
  const m = await Memory.open(tmpFolder('scope'));
  const learnedBefore = Date.now();
  m.remember({ text: 'Dana owns the settlement module.', time: '2025-03-04T10:00:00Z' }, personIn(A));
  m.remember({ text: 'Lee owns the billing module.' }, personIn(A));
  const old = m.query({ query: 'Dana', project: A, history: true }).facts.find((f) => f.subject === 'Dana')!;
  const fresh = m.query({ query: 'Lee', project: A }).facts.find((f) => f.subject === 'Lee')!;
  assert.equal(old.valid_from, '2025-03-04T10:00:00.000Z');
  assert.ok(Date.parse(old.learned_at!) >= learnedBefore, 'learned when it was imported');
  assert.ok(old.effective_confidence < old.confidence, 'a fact that held long ago has decayed');
  assert.equal(fresh.effective_confidence, fresh.confidence, 'a fact that holds now has not');
  m.close();
});

test('an older journal migrates: turns without a project get one named after their source; facts follow', async () => {
  const dir = tmpFolder('scope');
  const at = '2026-01-01T00:00:00.000Z';
  const by = { authority: 'human', source: 'cli' };
  const events = [
    {
      type: 'episodes.add',
      episodes: [
        {
          id: 'ep_1',
          text: 'Dana works at Acme.',
          source: '/home/u/.claude/projects/-home-u-app/s.jsonl',
          time: at,
          hash: 'h1',
          authority: 'user',
        },
        { id: 'ep_2', text: 'a note from the cli', source: 'cli', time: at, hash: 'h2', authority: 'user' },
      ],
    },
    {
      type: 'relationship.assert',
      id: 'rel_1',
      subject: 'Dana',
      predicate: 'works at',
      object: 'Acme',
      prior: 'inferred',
      evidence: ['ep_1'],
    },
    { type: 'relationship.assert', id: 'rel_2', subject: 'Dana', predicate: 'likes', object: 'tea', prior: 'explicit' },
  ].map((e, i) => ({ ...e, seq: i + 1, at, by }));
  fs.writeFileSync(path.join(dir, JOURNAL_FILE), events.map((e) => JSON.stringify(e) + '\n').join(''));
  let m = await Memory.open(dir, { extract: false });
  const projects = () => Object.fromEntries(m.export().episodes.map((e) => [e.id, e.project]));
  assert.deepEqual(projects(), { ep_1: 'source:claude-code', ep_2: 'source:cli' });
  assert.equal(m.fact('rel_1').project, 'source:claude-code');
  assert.equal(m.fact('rel_2').project, null, 'a person-asserted fact without evidence stays global');

  // A person renames the migrated project; an agent may not.
  assert.throws(
    () => m.assignProject({ project: A, from: 'source:claude-code' }, agentIn(null)),
    (e: MemoryError) => e.code === 'forbidden',
  );
  assert.throws(
    () => m.assignProject({ project: A, from: 'no-such-project' }, personIn(null)),
    (e: MemoryError) => e.code === 'not_found',
  );
  assert.deepEqual(m.assignProject({ project: A, from: 'source:claude-code' }, personIn(null)), { episodes: 1, relationships: 1 });
  assert.deepEqual(m.assignProject({ project: null, source: 'cli' }, personIn(null)), { episodes: 1, relationships: 0 });
  assert.deepEqual(projects(), { ep_1: A, ep_2: null });
  assert.equal(m.fact('rel_1').project, A);
  m.close();

  // The move is journaled: a replay from the journal alone reaches the same state.
  fs.rmSync(path.join(dir, SNAPSHOT_FILE), { force: true });
  m = await Memory.open(dir, { extract: false });
  assert.deepEqual(projects(), { ep_1: A, ep_2: null });
  assert.equal(m.fact('rel_1').project, A);
  assert.deepEqual(
    m.query({ query: 'Dana', project: A }).episodes.map((e) => e.id),
    ['ep_1'],
  );
  m.close();
});

test("the sessions view lists the current project's sessions first, then global ones, then the others", async () => {
  const m = await Memory.open(tmpFolder('scope'), { extract: false });
  m.remember({ text: 'alpha work', session: 'a1', time: '2025-01-01T00:00:00Z' }, personIn(A));
  m.remember({ text: 'a global note', session: 'g1', time: '2025-02-01T00:00:00Z' }, personIn(null));
  m.remember({ text: 'beta work', session: 'b1', time: '2025-03-01T00:00:00Z' }, personIn(B));
  const order = (project?: string | null) =>
    m
      .browseHandlers()
      .sessions({ project })
      .sessions.map((s) => `${s.session}:${s.project}`);
  assert.deepEqual(order(A), [`a1:${A}`, 'g1:null', `b1:${B}`]);
  assert.deepEqual(order(B), [`b1:${B}`, 'g1:null', `a1:${A}`]);
  assert.deepEqual(order(), [`b1:${B}`, 'g1:null', `a1:${A}`], 'no project: most recent first');
  m.close();
});

test("the views' filter: the current project and global memory first, or alone; other projects' entities and sessions out", async () => {
  const m = await Memory.open(tmpFolder('scope'), { extract: false });
  m.remember({ text: 'Zephyr runs the alpha deploys', entities: ['Zephyr'], session: 'alpha-chat' }, personIn(A));
  m.remember({ text: 'Aurora runs the beta deploys', entities: ['Aurora'], session: 'beta-chat' }, personIn(B));
  m.remember({ text: 'Mira reviews everything', entities: ['Mira'], session: 'notes' }, personIn(null));
  const browse = m.browseHandlers();
  const names = (p: { project?: string | null; only?: boolean }) => browse.entities({ ...p, limit: 50 }).entities.map((e) => e.name);
  // Every project, by name, when no project is known; the current project's and global first when one is.
  assert.deepEqual(names({}), ['Aurora', 'Mira', 'Zephyr']);
  assert.deepEqual(names({ project: A }), ['Mira', 'Zephyr', 'Aurora']);
  assert.deepEqual(names({ project: A, only: true }), ['Mira', 'Zephyr']);
  assert.equal(browse.entities({ project: A, only: true }).total, 2);
  assert.deepEqual(browse.types({ project: B, only: true }).types, [{ type: 'thing', entities: 2 }]);
  const sessions = (p: { project?: string | null; only?: boolean }) => browse.sessions({ ...p, limit: 50 }).sessions.map((s) => s.session);
  assert.deepEqual(sessions({ project: B }).slice(0, 2), ['beta-chat', 'notes']);
  assert.deepEqual(sessions({ project: B, only: true }), ['beta-chat', 'notes']);
  assert.equal(browse.sessions({ project: B, only: true }).total, 2);
  m.close();
});
