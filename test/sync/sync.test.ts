/**
 * Team memory through a real PostgreSQL server: two or three memory folders, each with its own
 * memory service, stand in for machines sharing one log. The server is started by the tests on
 * a free loopback port (test/sync/postgres.ts); without PostgreSQL installed the tests skip,
 * except in CI, where that is a failure.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { MemoryClient } from '../../src/service/rpc/client';
import { alive, recall, recallOk, lockOf, tmpFolder, waitFor } from '../helpers';
import { episodeCount as count, eventually, skip, startTeam, type Machine, type Team } from './team';

let team: Team;
before(async () => {
  if (!skip) team = await startTeam();
});
after(async () => team?.close());

const machine = (tag: string, table: string): Promise<Machine> => team.machine(tag, table);

/**
 * The export as a machine-independent value: order of rows and of evidence is local, effective
 * confidence moves with the clock, and whose a turn or a confirmation is reads from where one stands
 * (a teammate's, or this memory's own).
 */
async function normalised(m: Machine): Promise<unknown> {
  const x = await m.person.call('export', { history: true });
  return {
    entities: [...x.entities].sort((a, b) => a.name.localeCompare(b.name)),
    facts: x.facts
      .map(({ effective_confidence: _, confirmed_by: _by, ...f }) => ({ ...f, evidence: [...f.evidence].sort() }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    episodes: x.episodes.map(({ author: _, ...e }) => e).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

test('A writes, B answers within 2 s, with the author and authority A wrote it with', { skip }, async () => {
  const a = await machine('ada', 'answers');
  const b = await machine('bob', 'answers');
  const note = await a.person.call('remember', { text: 'We moved the billing service to Postgres 16 last sprint.', entities: ['billing'] });
  const agentNote = await a.agent.call('remember', { text: 'The flaky test in billing is test_refund_race.', entities: ['billing'] });
  assert.match(note.id, /^ep_[a-z0-9]{12}_\d+$/, 'a shared memory mints ids that carry its origin');
  const started = Date.now();
  let hits: { id: string; authority: string }[] = [];
  await eventually(
    "B's answer",
    async () => {
      hits = (await b.agent.call('query', { query: 'billing service Postgres' })).episodes;
      return hits.some((e) => e.id === note.id);
    },
    2000,
  );
  process.stderr.write(`B answered ${Date.now() - started} ms after A's write\n`);
  await eventually("A's agent note at B", async () =>
    (await b.person.call('episodes', { query: 'flaky refund' })).some((e) => e.id === agentNote.id),
  );
  const [personal] = await b.person.call('browse.episodesById', { ids: [note.id] });
  const [agents] = await b.person.call('browse.episodesById', { ids: [agentNote.id] });
  const [atA] = await a.person.call('browse.episodesById', { ids: [note.id] });
  assert.equal(personal!.authority, atA!.authority, "a person's words stay a person's");
  assert.notEqual(personal!.authority, 'agent');
  assert.equal(agents!.authority, 'agent', "an agent's words from another machine weigh as an agent's");
  assert.equal(personal!.author, 'ada@team.example', 'B knows whose memory wrote it');
  assert.equal(atA!.author, undefined, "at A it is A's own");
  const status = (await b.person.call('status', {})).sync!;
  assert.equal(status.connected, true);
  assert.equal(status.author, 'bob@team.example');
  assert.ok(status.pulled_id > 0 && status.backlog === 0, JSON.stringify(status));
});

test("B's person marks a fact wrong: A stops returning it; a later verdict decides everywhere", { skip }, async () => {
  const a = await machine('ann', 'verdicts');
  const b = await machine('ben', 'verdicts');
  const fact = await a.person.call('relate', { subject: 'billing', predicate: 'uses', object: 'MySQL' });
  await eventually(
    'the fact at B',
    async () => (await b.person.call('traverse', { entity: 'billing' }).catch(() => ({ facts: [] }))).facts.length > 0,
  );
  await b.person.call('correct', { id: fact.id, verdict: 'wrong', reason: 'we moved to Postgres' });
  await eventually('the verdict at A', async () => (await a.person.call('fact', { id: fact.id })).status === 'wrong');
  const traversed = await a.agent.call('traverse', { entity: 'billing' });
  assert.ok(!traversed.facts.some((f) => f.id === fact.id), 'A no longer returns the fact');
  // A's person disagrees later: the later verdict decides, everywhere.
  await a.person.call('correct', { id: fact.id, verdict: 'confirm' });
  await eventually('the later verdict at B', async () => (await b.person.call('fact', { id: fact.id })).status === 'current');
  assert.deepEqual(await normalised(a), await normalised(b));
});

test('server stopped while both write, then started: both converge, nothing lost or doubled', { skip }, async () => {
  const a = await machine('amy', 'outage');
  const b = await machine('bea', 'outage');
  await a.person.call('remember', { text: 'before the outage: deploys go through the staging cluster' });
  await eventually('the first note at B', async () => (await count(b)) === 1);
  team.pg.stop();
  try {
    for (let i = 0; i < 30; i++) {
      await a.person.call('remember', { text: `amy offline note ${i} about the release checklist` });
      await b.agent.call('remember', { text: `bea offline note ${i} about the deploy pipeline` });
    }
    await b.person.call('relate', { subject: 'deploy pipeline', predicate: 'uses', object: 'ArgoCD' });
    // Writes are acknowledged locally while the server is down; the backlog is visible.
    const waiting = (await a.person.call('status', {})).sync!;
    assert.equal(waiting.backlog, 30, JSON.stringify(waiting));
  } finally {
    team.pg.start();
  }
  await eventually('both at 61 episodes', async () => (await count(a)) === 61 && (await count(b)) === 61, 60_000);
  await eventually('identical exports', async () => JSON.stringify(await normalised(a)) === JSON.stringify(await normalised(b)), 20_000);
  assert.equal((await a.person.call('status', {})).sync!.backlog, 0);
});

test('three writers x 1,000 events converge to identical memories', { skip }, async () => {
  const ms = await Promise.all(['xan', 'yve', 'zoe'].map((t) => machine(t, 'three')));
  await Promise.all(
    ms.map(async (m, w) => {
      for (let batch = 0; batch < 10; batch++) {
        const episodes = Array.from({ length: 100 }, (_, i) => ({
          text: `writer ${w} event ${batch * 100 + i}: the cache layer needs a TTL`,
        }));
        await m.agent.call('ingest', { episodes });
      }
    }),
  );
  await eventually('3,000 episodes everywhere', async () => (await Promise.all(ms.map(count))).every((n) => n === 3000), 120_000);
  const [x, y, z] = await Promise.all(ms.map(normalised));
  assert.deepEqual(y, x);
  assert.deepEqual(z, x);
});

test('a forget is shared: the entity leaves every memory; an episode written after it is kept', { skip }, async () => {
  const a = await machine('art', 'forget');
  const b = await machine('bo', 'forget');
  await a.person.call('remember', { text: 'Project Flamingo is the secret codename for the new billing UI.', entities: ['Flamingo'] });
  await b.person.call('remember', { text: 'Flamingo launch is planned for March.', entities: ['Flamingo'] });
  await eventually('both notes everywhere', async () => (await count(a)) === 2 && (await count(b)) === 2);
  await a.person.call('forget', { entity: 'Flamingo' });
  await eventually('the forget at B', async () => (await count(b)) === 0);
  assert.deepEqual(await b.person.call('search', { query: 'Flamingo' }), []);
  assert.equal((await b.person.call('episodes', { query: 'codename' })).length, 0);
  // The words left the journal at B too, not only the graph.
  assert.ok(!fs.readFileSync(path.join(b.dir, 'journal.jsonl'), 'utf8').includes('secret codename'));
  await b.person.call('remember', { text: 'Flamingo is back: the new billing UI ships in June.', entities: ['Flamingo'] });
  await eventually('the later episode at A', async () => (await count(a)) === 1);
});

test('a service killed in the middle of a pull resumes it cleanly: nothing doubled or lost', { skip }, async () => {
  const a = await machine('al', 'crash');
  for (let batch = 0; batch < 20; batch++) {
    const episodes = Array.from({ length: 100 }, (_, i) => ({ text: `al event ${batch * 100 + i}: retries use exponential backoff` }));
    await a.agent.call('ingest', { episodes });
  }
  await eventually("A's backlog pushed", async () => (await a.person.call('status', {})).sync!.backlog === 0, 60_000);
  const b = await machine('bi', 'crash');
  await eventually('B in the middle of pulling', async () => (await count(b)) > 0, 60_000);
  const pid = lockOf(b.dir)!.pid;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !alive(pid), 5000, 'the killed service to go');
  await eventually('B has everything once', async () => (await count(b)) === 2000, 60_000);
  const episodes = (await b.person.call('export', {})).episodes;
  assert.equal(new Set(episodes.map((e) => e.text)).size, 2000);
  assert.deepEqual(await normalised(b), await normalised(a));
});

test('recall sync --postgres stores the connection without its password; status shows the backlog and cursors', { skip }, async () => {
  const dir = tmpFolder('cli');
  const withPassword = team.pg.url.replace('recall@', 'recall:s3cret-pw@');
  const on = await recall(dir, ['sync', '--postgres', withPassword, '--author', 'cli@team.example', '--json']);
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stderr, /password was not stored/);
  const config = fs.readFileSync(path.join(dir, 'config.json'), 'utf8');
  assert.ok(!config.includes('s3cret-pw'), 'no password in config.json');
  assert.equal(JSON.parse(config).sync.postgres, team.pg.url);
  assert.match(fs.readFileSync(path.join(dir, 'memory-id'), 'utf8'), /^[a-z0-9]{12}\n$/);
  await recallOk(dir, ['remember', 'the CLI shares this note']);
  const status = JSON.parse(await recallOk(dir, ['sync', 'status', '--json']));
  assert.equal(status.author, 'cli@team.example');
  assert.equal(typeof status.backlog, 'number');
  assert.match(await recallOk(dir, ['status']), /^sync +postgres:\/\/recall@127\.0\.0\.1:\d+\/postgres as cli@team\.example/m);
  const bad = await recall(dir, ['sync', '--postgres', 'postgres://recall@127.0.0.1:1/postgres']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Cannot reach postgres:\/\/recall@127\.0\.0\.1:1\/postgres: .*Nothing was changed/);
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).sync.postgres, team.pg.url);
  const off = await recall(dir, ['sync', 'off']);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /^sync off/);
});

test('with projects chosen, only those projects leave: their turns, facts and corrections; never another project', { skip }, async () => {
  const shared = 'example.org/team/shared';
  const dir = tmpFolder('pia');
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ sync: { postgres: team.pg.url, author: 'pia@team.example', table: 'scoped', projects: [shared] } }),
  );
  const connect = (project: string): Promise<MemoryClient> => team.connect(dir, { project });
  const inShared = await connect(shared);
  const inPrivate = await connect('example.org/pia/private');
  const b = await machine('pat', 'scoped');
  const secret = await inPrivate.call('remember', { text: 'The private side project codename is Bluefin.', entities: ['Bluefin'] });
  const note = await inShared.call('remember', { text: 'The shared service deploys on Fridays.', entities: ['deploys'] });
  const fact = await inShared.call('relate', { subject: 'deploys', predicate: 'happen on', object: 'Friday' });
  await inShared.call('correct', { id: fact.id, verdict: 'wrong', reason: 'moved to Thursday' });
  await eventually(
    'the shared correction at B',
    async () => (await b.person.call('fact', { id: fact.id }).catch(() => undefined))?.status === 'wrong',
  );
  const atB = await b.person.call('browse.episodesById', { ids: [note.id, secret.id] });
  assert.deepEqual(
    atB.map((e) => e.id),
    [note.id],
    "the shared project's turn arrived; the private project's never left",
  );
  const found = await b.person.call('episodes', { query: 'Bluefin codename', scope: 'all' });
  assert.equal(found.length, 0);
});
