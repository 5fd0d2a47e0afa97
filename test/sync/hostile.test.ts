/**
 * A hostile teammate against the team's memory, on a real PostgreSQL server: anyone who holds
 * the team's database role can write rows into the shared log with `pg` directly, and a member
 * can run a modified client that signs whatever it likes with its own key. Each test is one
 * attack of the adversarial round of 2026-12-01, done as the attacker did it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { MemoryEvent } from '../../src/core/model/events';
import { memberKey, publicKeyText, signEvent } from '../../src/sync/signing';
import * as crypto from 'node:crypto';
import { recall, recallOk } from '../helpers';
import { episodeCount, eventually, skip, startTeam, type Machine, type Team } from './team';

let team: Team;
let db: pg.Client;
before(async () => {
  if (skip) return;
  team = await startTeam();
  db = new pg.Client({ connectionString: team.pg.url });
  await db.connect();
});
after(async () => {
  await db?.end();
  await team?.close();
});

const originOf = (m: Machine): string => fs.readFileSync(path.join(m.dir, 'memory-id'), 'utf8').trim();
const now = (): string => new Date().toISOString();

interface Row {
  origin: string;
  seq: number;
  author: string | null;
  authority?: string;
  type?: string;
  project?: string | null;
  body: unknown;
  signature?: string | null;
  digests?: unknown;
}

/** Writes rows straight into the shared log, as anyone with the team's role can, and wakes everyone. */
async function insert(table: string, rows: Row[]): Promise<void> {
  for (const r of rows) {
    const body = r.body as { type?: string; by?: { authority?: string } };
    await db.query(
      `INSERT INTO ${table}_events (origin, origin_seq, author, authority, type, project, at, body, signature, digests)
       VALUES ($1, $2, $3, $4, $5, $6, now(), $7::jsonb, $8, $9::jsonb)`,
      [
        r.origin,
        r.seq,
        r.author,
        r.authority ?? body.by?.authority ?? 'human',
        r.type ?? body.type ?? 'entity.upsert',
        r.project ?? null,
        typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
        r.signature ?? null,
        r.digests === undefined ? null : JSON.stringify(r.digests),
      ],
    );
  }
  await db.query('SELECT pg_notify($1, $2)', [`${table}_events`, 'attacker']);
}

/** A row a member's modified client writes: signed with that member's real key, saying whatever it likes. */
/** An event as an attacker writes it: any shape, checked by nothing but the peers. */
type Draft = { type: string; at: string; by: { authority: string; author?: string } } & Record<string, unknown>;

function signed(m: Machine, seq: number, event: Draft, author = event.by.author!): Row {
  const full = { ...event, seq } as unknown as MemoryEvent;
  const { body, signature, digests } = signEvent(memberKey(m.dir), originOf(m), author, full);
  return { origin: originOf(m), seq, author, authority: event.by.authority, type: event.type, project: null, body, signature, digests };
}

const status = async (m: Machine) => (await m.person.call('status', {})).sync!;
const quarantined = async (m: Machine): Promise<number> => (await status(m)).quarantined;
const texts = async (m: Machine): Promise<string[]> => (await m.person.call('export', {})).episodes.map((e) => e.text);

test(
  "F1: a forged forget erases nothing; a member's forget is worked out by each peer, never touches unshared data, and can be undone",
  { skip },
  async () => {
    const table = 'wipe';
    const shared = 'github.com/team/app';
    const a = await team.machine('alice', table, { projects: [shared] });
    const aShared = await team.connect(a.dir, { project: shared });
    const b = await team.machine('bob', table);
    const m = await team.machine('mallory', table);
    const note = await aShared.call('remember', { text: 'Billing retries failed charges three times.', entities: ['Billing'] });
    const personal = await a.person.call('remember', {
      text: 'Billing: my own card for the staging box ends 4242.',
      entities: ['Billing'],
    });
    const bNote = await b.person.call('remember', { text: 'Billing invoices go out on the first of the month.', entities: ['Billing'] });
    const bOther = await b.person.call('remember', { text: 'Deploys happen on Fridays after the standup.', entities: ['Deploys'] });
    await m.person.call('remember', { text: 'Mallory was here.', entities: ['Mallory'] });
    await eventually('everyone has the shared notes', async () => (await episodeCount(b)) === 4 && (await episodeCount(a)) === 5);
    const everything = [note.id, personal.id, bNote.id, bOther.id, 'ep_1', 'ep_2', 'ep_3'];

    // 1. The report's row: an unregistered memory forgets a name nobody has, listing everyone's ids.
    await insert(table, [
      {
        origin: 'mallory00001',
        seq: 30,
        author: 'alice@team.example',
        body: {
          type: 'entity.forget',
          at: now(),
          by: { authority: 'human', author: 'alice@team.example' },
          name: 'zz-nonexistent',
          episodes: everything,
          relationships: [],
        },
      },
    ]);
    await eventually('the forged forget quarantined at A and B', async () => (await quarantined(a)) >= 1 && (await quarantined(b)) >= 1);
    assert.equal(await episodeCount(a), 5, 'A lost nothing');
    assert.equal(await episodeCount(b), 4, 'B lost nothing');

    // 2. A member's modified client signs a forget of "Billing" that lists every id it can guess.
    await insert(table, [
      signed(m, 50, {
        type: 'entity.forget',
        at: now(),
        by: { authority: 'human', author: 'mallory@team.example' },
        name: 'Billing',
        episodes: everything,
        relationships: [],
      }),
    ]);
    await eventually('the forget applied at B', async () => !(await texts(b)).some((t) => t.includes('first of the month')));
    await eventually('the forget applied at A', async () => !(await texts(a)).some((t) => t.includes('three times')));
    const atA = await texts(a);
    const atB = await texts(b);
    assert.ok(
      atA.some((t) => t.includes('ends 4242')),
      "A's personal note, never shared, stays",
    );
    assert.ok(
      atB.some((t) => t.includes('Fridays')),
      "B's note about something else stays, though its id was listed",
    );
    assert.ok(
      atA.some((t) => t.includes('Fridays')),
      "B's other note stays at A too",
    );

    // 3. What it erased at B is held aside and the person can restore it.
    const held = JSON.parse(await recallOk(b.dir, ['sync', 'forgotten', '--json']));
    assert.equal(held.length, 1, JSON.stringify(held));
    assert.equal(held[0].entity, 'Billing');
    assert.equal(held[0].author, 'mallory@team.example');
    assert.ok(held[0].episodes >= 2, JSON.stringify(held[0]));
    const restored = await recall(b.dir, ['sync', 'restore', held[0].id]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.ok(
      (await texts(b)).some((t) => t.includes('first of the month')),
      "B's note is back",
    );
    assert.ok(
      (await texts(b)).some((t) => t.includes('three times')),
      "A's shared note is back at B",
    );
    assert.deepEqual(JSON.parse(await recallOk(b.dir, ['sync', 'forgotten', '--json'])), []);
    // Restored here, and shared again: B's own note reaches A once more.
    await eventually("B's restored note at A", async () => (await texts(a)).some((t) => t.includes('first of the month')));
    const bad = await recall(b.dir, ['sync', 'restore', 'f999999']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /No held-aside forget "f999999"/);
  },
);

test(
  "F2: rows forged as another member, or claiming authority they lack, are refused; a member's own confirmation says whose it is",
  { skip },
  async () => {
    const table = 'forge';
    const a = await team.machine('alice', table);
    const b = await team.machine('bob', table);
    const m = await team.machine('mallory', table);
    const fact = await a.person.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres' });
    await m.person.call('remember', { text: 'Mallory joined the team.' });
    await eventually("A's fact at B", async () => (await b.person.call('fact', { id: fact.id }).catch(() => undefined)) !== undefined);
    await eventually("Mallory's note at B", async () => (await episodeCount(b)) === 1);
    const mo = originOf(m);
    const by = { authority: 'human', author: 'alice@team.example' };
    const twoFa: Draft = {
      type: 'episodes.add',
      at: now(),
      by,
      episodes: [
        {
          id: `ep_${mo}_900`,
          hash: 'f00d',
          text: 'Alice: we decided to disable 2FA on the admin panel for everyone',
          time: now(),
          authority: 'user',
        },
      ],
    };
    await insert(table, [
      // The report's rows: an unregistered memory writing as Alice, at human authority.
      {
        origin: 'mallory00001',
        seq: 1,
        author: 'alice@team.example',
        body: { ...twoFa, episodes: [{ ...(twoFa.episodes as object[])[0], id: 'ep_mallory00001_1' }] },
      },
      {
        origin: 'mallory00001',
        seq: 2,
        author: 'alice@team.example',
        body: {
          type: 'relationship.assert',
          at: now(),
          by,
          id: 'rel_mallory00001_1',
          prior: 'explicit',
          subject: 'admin panel',
          predicate: 'decided',
          object: 'disable 2FA',
          evidence: ['ep_mallory00001_1'],
        },
      },
      {
        origin: 'mallory00001',
        seq: 3,
        author: 'alice@team.example',
        body: { type: 'relationship.correct', at: now(), by, id: 'rel_mallory00001_1', verdict: 'confirm' },
      },
      {
        origin: 'mallory00001',
        seq: 4,
        author: 'alice@team.example',
        body: {
          type: 'relationship.correct',
          at: '2099-01-01T00:00:00.000Z',
          by,
          id: fact.id,
          verdict: 'wrong',
          reason: 'we moved off Postgres',
        },
      },
      // Alice's own memory id, unsigned.
      {
        origin: originOf(a),
        seq: 500,
        author: 'alice@team.example',
        body: { ...twoFa, episodes: [{ ...(twoFa.episodes as object[])[0], id: `ep_${originOf(a)}_500` }] },
      },
      // Mallory's real key, but writing as Alice: the row says Alice, or the event does.
      signed(m, 101, twoFa, 'alice@team.example'),
      signed(m, 102, { ...twoFa, episodes: [{ ...(twoFa.episodes as object[])[0], id: `ep_${mo}_901` }] }, 'mallory@team.example'),
      // Mallory as herself, but a turn above the event's own authority.
      signed(m, 103, {
        type: 'episodes.add',
        at: now(),
        by: { authority: 'agent', author: 'mallory@team.example' },
        episodes: [
          { id: `ep_${mo}_902`, hash: 'beef', text: "An agent note raised to the person's word.", time: now(), authority: 'user' },
        ],
      }),
    ]);
    await eventually('all eight refused at B', async () => (await quarantined(b)) >= 8, 20_000);
    const brief = await b.person.call('brief', { budget_tokens: 600 });
    assert.doesNotMatch(brief.text, /2FA/);
    assert.equal((await b.person.call('fact', { id: fact.id })).status, 'current', "Alice's fact was not marked wrong");
    assert.ok(!(await texts(b)).some((t) => t.includes('2FA') || t.includes('raised')));
    const reasons = (await b.person.call('sync.quarantine', {})).map((q) => q.reason).join('\n');
    assert.match(reasons, /no registered key/);
    assert.match(reasons, /signature does not hold/);
    assert.match(reasons, /writes as mallory@team\.example, not alice@team\.example/);
    assert.match(reasons, /the event names author alice@team\.example but the row mallory@team\.example/);
    assert.match(reasons, /above the event's own \(agent\)/);

    // A second memory claiming to be Alice, with a key of its own: refused until the person trusts it.
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    const fake = { origin: 'fakealice0001', key: { privateKey, publicKey: publicKeyText(crypto.createPublicKey(privateKey)) } };
    await db.query(`INSERT INTO ${table}_members (origin, author, public_key) VALUES ($1, $2, $3)`, [
      fake.origin,
      'alice@team.example',
      fake.key.publicKey,
    ]);
    const ev = {
      type: 'episodes.add',
      at: now(),
      by,
      seq: 1,
      episodes: [{ id: `ep_${fake.origin}_1`, hash: 'abcd', text: 'Second machine of Alice, or not.', time: now(), authority: 'user' }],
    } as MemoryEvent;
    const s = signEvent(fake.key, fake.origin, 'alice@team.example', ev);
    await insert(table, [
      { origin: fake.origin, seq: 1, author: 'alice@team.example', body: s.body, signature: s.signature, digests: s.digests },
    ]);
    await eventually('the second key refused', async () => (await quarantined(b)) >= 9);
    const members = JSON.parse(await recallOk(b.dir, ['sync', 'members', '--json']));
    assert.equal(members.find((x: { origin: string }) => x.origin === fake.origin)?.state, 'conflict', JSON.stringify(members));
    assert.match(await recallOk(b.dir, ['sync', 'trust', fake.origin]), /Trusted memory fakealice0001 \(alice@team\.example/);
    await eventually('its row applied once trusted', async () => (await texts(b)).some((t) => t.includes('Second machine')));

    // Mallory, as herself, confirms Alice's fact: B's brief says it is Mallory's confirmation.
    await m.person.call('correct', { id: fact.id, verdict: 'confirm' });
    await eventually('the confirmation at B', async () => (await b.person.call('fact', { id: fact.id })).pinned);
    assert.equal((await b.person.call('fact', { id: fact.id })).confirmed_by, 'mallory@team.example');
    assert.match((await b.person.call('brief', { budget_tokens: 600 })).text, /billing uses Postgres \(confirmed by mallory@team\.example/);
  },
);

test("F3: a forged row under a member's id neither silences the member nor is taken as theirs", { skip }, async () => {
  const table = 'silence';
  const a = await team.machine('alice', table);
  const b = await team.machine('bob', table);
  await a.person.call('remember', { text: 'Alice writes before the forged row.' });
  await eventually('the first note at B', async () => (await episodeCount(b)) === 1);
  const ao = originOf(a);
  const forged = (seq: number): Row => ({
    origin: ao,
    seq,
    author: 'alice@team.example',
    body: { type: 'entity.upsert', at: now(), by: { authority: 'human', author: 'alice@team.example' }, name: `forged ${seq}` },
  });
  // The report's row (seq 1,000,000), and one at the very seq Alice's next write will take.
  const next = (await a.person.call('status', {})).sync!.pushed_seq + 1;
  await insert(table, [forged(1_000_000), forged(next)]);
  await eventually('both refused at B', async () => (await quarantined(b)) >= 2);
  await a.person.call('remember', { text: 'Alice writes after the forged row.' });
  await eventually("Alice's later note at B", async () => (await texts(b)).some((t) => t.includes('after the forged row')));
  // A restart checks the rows under its own id: the forged ones are gone from the server.
  await recallOk(a.dir, ['service', 'stop']);
  const after = await status(a);
  await eventually('A reconnected', async () => (await status(a)).connected);
  const { rows } = await db.query(`SELECT origin_seq FROM ${table}_events WHERE origin = $1 ORDER BY origin_seq`, [ao]);
  assert.ok(!rows.some((r) => Number(r.origin_seq) === 1_000_000), 'the forged row is gone');
  assert.ok((await status(a)).pushed_seq < 1000, JSON.stringify(after));
  assert.equal((await status(a)).backlog, 0);
  assert.match(await recallOk(b.dir, ['sync', 'status']), /quarantined +\d+ row\(s\) refused; latest: row \d+ from alice@team\.example/);
});

test('F4, F5: poison and oversized rows are quarantined and the pull goes on; the peer keeps answering', { skip }, async () => {
  const table = 'poison';
  const b = await team.machine('bob', table);
  const m = await team.machine('mallory', table);
  const mo = originOf(m);
  await m.person.call('remember', { text: 'Mallory joined the team.' });
  await eventually("Mallory's note at B", async () => (await episodeCount(b)) === 1);
  const by = { authority: 'human', author: 'mallory@team.example' };
  const episode = (n: number, text: string): Draft => ({
    type: 'episodes.add',
    at: now(),
    by,
    episodes: [
      {
        id: `ep_${mo}_${n}`,
        hash: crypto.createHash('sha256').update(text).digest('hex').slice(0, 32),
        text,
        time: now(),
        authority: 'user',
      },
    ],
  });
  await insert(table, [
    { origin: mo, seq: 200, author: 'mallory@team.example', body: { type: 'entity.upsert' } },
    signed(m, 201, { type: 'entity.upsert', at: now(), by, name: '' }),
    signed(m, 202, episode(700, 'billing runs on postgres sixteen '.repeat(330_000))),
    signed(m, 203, episode(701, 'a two-megabyte turn '.repeat(110_000))),
    signed(m, 204, episode(702, 'The first turn with this id.')),
    signed(m, 205, episode(702, 'Another turn reusing the same id.')),
    signed(m, 206, episode(703, 'The valid turn after the poison rows: the pull went on.')),
  ]);
  // The report's 52.8 MB text: compressed by the server, but as JSON far over the event limit.
  await db.query(
    `INSERT INTO ${table}_events (origin, origin_seq, author, authority, type, at, body) SELECT $1, 207, 'mallory@team.example', 'human', 'episodes.add', now(),
       jsonb_build_object('type', 'episodes.add', 'text', repeat('billing runs on postgres sixteen ', 1600000))`,
    [mo],
  );
  await db.query('SELECT pg_notify($1, $2)', [`${table}_events`, 'attacker']);
  await eventually('the valid row applied at B', async () => (await texts(b)).some((t) => t.includes('the pull went on')), 30_000);
  await eventually('the 52.8 MB row refused', async () => (await b.person.call('sync.quarantine', {})).some((q) => q.origin_seq === 207));
  assert.ok((await texts(b)).some((t) => t.includes('first turn with this id')));
  const refused = await b.person.call('sync.quarantine', {});
  const why = (seq: number): string => refused.find((q) => q.origin_seq === seq)?.reason ?? 'not quarantined';
  assert.match(why(200), /signature|name/);
  assert.match(why(201), /a name of 0 characters/);
  assert.match(why(202), /text is 10890000 characters; a turn is 1 to 1000000/);
  assert.match(why(203), /text is 2200000 characters/);
  assert.match(why(205), /could not be applied here: .*UNIQUE/);
  assert.match(why(207), /bytes, over the \d+-byte limit of one event|signature/);
  // Still answering, and a restart does not fall over the same rows.
  assert.ok((await b.agent.call('query', { query: 'billing postgres' })).episodes !== undefined);
  await recallOk(b.dir, ['service', 'stop']);
  assert.match(await recallOk(b.dir, ['query', 'valid turn after the poison']), /the pull went on/);
  assert.equal((await status(b)).quarantined, refused.length);
});

test('F5: the server refuses a row over the size limit of one event', { skip }, async () => {
  const table = 'bounded';
  const c = await team.machine('carol', table);
  await eventually('the schema made', async () => (await status(c)).connected);
  await assert.rejects(
    db.query(
      `INSERT INTO ${table}_events (origin, origin_seq, author, authority, type, at, body) VALUES ('x00000000001', 1, 'x', 'human', 'episodes.add', now(),
         jsonb_build_object('t', repeat('x', 65 * 1024 * 1024)))`,
    ),
    /violates check constraint "bounded_events_body_size"/,
  );
});

test('F6: a verdict dated 2099 is clamped to when it arrived; a later correction by the person wins', { skip }, async () => {
  const table = 'future';
  const a = await team.machine('alice', table);
  const b = await team.machine('bob', table);
  const m = await team.machine('mallory', table);
  const fact = await a.person.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres' });
  await eventually("A's fact at B", async () => (await b.person.call('fact', { id: fact.id }).catch(() => undefined)) !== undefined);
  await m.person.call('remember', { text: 'Mallory joined the team.' });
  await insert(table, [
    signed(m, 300, {
      type: 'relationship.correct',
      at: '2099-01-01T00:00:00.000Z',
      by: { authority: 'human', author: 'mallory@team.example' },
      id: fact.id,
      verdict: 'wrong',
      reason: 'we moved off Postgres',
    }),
  ]);
  const endedAt = async (x: Machine): Promise<number> => Date.parse((await x.person.call('fact', { id: fact.id })).valid_to ?? '');
  await eventually('the verdict at A and B', async () => (await endedAt(a)) > 0 && (await endedAt(b)) > 0);
  // Each peer clamps it to when it arrived there (plus the allowed skew): the later of the two must pass.
  const ended = Math.max(await endedAt(a), await endedAt(b));
  assert.ok(ended < Date.now() + 11_000, `ended ${new Date(ended).toISOString()}, not in 2099`);
  await new Promise((r) => setTimeout(r, Math.max(0, ended - Date.now() + 50)));
  await b.person.call('correct', { id: fact.id, verdict: 'confirm' });
  assert.equal((await b.person.call('fact', { id: fact.id })).status, 'current');
  await eventually('the correction at A', async () => (await a.person.call('fact', { id: fact.id })).status === 'current');
});

test("a member cannot move this memory's own turns between projects", { skip }, async () => {
  const table = 'assign';
  const a = await team.machine('alice', table);
  const m = await team.machine('mallory', table);
  const secret = await a.person.call('remember', { text: 'My personal note, in no project.' });
  await m.person.call('remember', { text: 'Mallory joined the team.' });
  await eventually("Mallory's note at A", async () => (await episodeCount(a)) === 2);
  await insert(table, [
    signed(m, 400, {
      type: 'project.assign',
      at: now(),
      by: { authority: 'human', author: 'mallory@team.example' },
      project: 'github.com/evil/loot',
      from: null,
    }),
    signed(m, 401, {
      type: 'episodes.add',
      at: now(),
      by: { authority: 'human', author: 'mallory@team.example' },
      episodes: [{ id: `ep_${originOf(m)}_2`, hash: 'c0ffee', text: 'after the move', time: now(), authority: 'user' }],
    }),
  ]);
  await eventually('the rows after it at A', async () => (await texts(a)).includes('after the move'));
  const [mine] = await a.person.call('browse.episodesById', { ids: [secret.id] });
  assert.equal(mine!.project, null, 'still in the global memory');
});
