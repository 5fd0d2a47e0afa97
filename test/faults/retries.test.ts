/**
 * Saying the same thing twice, and a client retrying a write whose answer was lost: an identical
 * current fact is not asserted again, and a write request id (rid) sent again is not applied
 * again, whether the service lived on or was killed and restarted in between.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { alive, cleanup, killService, lockOf, tmpMemory, waitFor, wire, withClient } from './kit';

after(cleanup);

test('relate twice: one current fact, returned as a duplicate; only evidence it lacks is added', async () => {
  const memory = tmpMemory('relate');
  await withClient(memory, async (c) => {
    const a = (await c.call('remember', { text: 'billing moved to Postgres' })).id;
    const b = (await c.call('remember', { text: 'billing runs Postgres 16' })).id;
    const first = await c.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres', evidence: [a] });
    assert.equal(first.duplicate, false);
    const again = await c.call('relate', { subject: 'Billing', predicate: 'USES', object: 'postgres', evidence: [a, b, b] });
    assert.deepEqual(again, { id: first.id, duplicate: true });
    const fact = await c.call('fact', { id: first.id });
    assert.deepEqual(fact.evidence, [a, b], 'a cited once, b added once');
    const current = (await c.call('export', {})).facts.filter((f) => f.predicate === 'uses');
    assert.equal(current.length, 1, 'one current fact');
    // Once it is no longer current, saying it again is a new fact.
    await c.call('correct', { id: first.id, verdict: 'wrong' });
    const fresh = await c.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres' });
    assert.notEqual(fresh.id, first.id);
    assert.equal(fresh.duplicate, false);
  });
});

test('a write sent again with the same rid gets the first answer and is not applied again', async () => {
  const memory = tmpMemory('rid-live');
  await withClient(memory, (c) => c.call('status', {})); // starts the service
  const conn = await wire(memory);
  try {
    await conn.call('hello', { surface: 'cli' });
    const first = await conn.call('remember', { text: 'a note sent twice' }, { rid: 'rid-1' });
    assert.deepEqual(await conn.call('remember', { text: 'a note sent twice' }, { rid: 'rid-1' }), first, 'the first answer');
    assert.equal(
      (await conn.call('remember', { text: 'a note sent twice' }, { rid: 'rid-2' })).duplicate,
      true,
      'a new rid is a new write',
    );
  } finally {
    conn.close();
  }
});

test('after the service was killed, a retried write is recognised from the journal and not applied twice', async () => {
  const memory = tmpMemory('rid-restart');
  const { episode, fact } = await withClient(memory, async (c) => {
    const episode = (await c.call('remember', { text: 'the cache is Redis' })).id;
    const fact = (await c.call('relate', { subject: 'cache', predicate: 'is', object: 'Redis' })).id;
    return { episode, fact };
  });
  const extraction = { episode, facts: [{ subject: 'cache', predicate: 'is', object: 'Redis' }], extractor: 'test-model' };
  let conn = await wire(memory);
  await conn.call('hello', { surface: 'cli' });
  await conn.call('extracted', extraction, { rid: 'extract-1' });
  conn.close();
  // Killed before anything else: as if the answer had been lost with it.
  await killService(memory);
  await withClient(memory, (c) => c.call('status', {})); // restarted
  conn = await wire(memory);
  try {
    await conn.call('hello', { surface: 'cli' });
    await assert.rejects(conn.call('extracted', extraction, { rid: 'extract-1' }), /applied before the memory service restarted/);
    const f = await conn.call('fact', { id: fact });
    assert.deepEqual(f.evidence, [episode], 'the extraction counted once');
    // Harmless writes run again and answer as before.
    const remembered = await conn.call('remember', { text: 'the cache is Redis' }, { rid: 'extract-1' });
    assert.equal(remembered.id, episode);
  } finally {
    conn.close();
  }
});

test('one hello per connection: a second is refused and the surface (so the authority) stays', async () => {
  const memory = tmpMemory('hello');
  await withClient(memory, (c) => c.call('status', {}));
  const conn = await wire(memory);
  try {
    await conn.call('hello', { surface: 'mcp' });
    await assert.rejects(conn.call('hello', { surface: 'cli' }), (err: Error & { data?: { code?: string } }) => {
      assert.equal(err.data?.code, 'invalid_input');
      return true;
    });
    // Still an agent: a person's act is refused.
    await assert.rejects(conn.call('relate', { subject: 'a', predicate: 'b', object: 'c' }), /forbidden|person|human/i);
  } finally {
    conn.close();
  }
});

/** Sends `method` with a rid, stops the service (killed, or stopped cleanly so a snapshot covers the write), restarts it and sends the same again. */
async function retryAfterRestart(
  memory: string,
  method: string,
  params: object,
  how: 'kill' | 'stop',
): Promise<{ first: unknown; again: Promise<any> }> {
  let conn = await wire(memory);
  await conn.call('hello', { surface: 'cli' });
  const rid = `${method}-${how}-${Math.random()}`;
  const first = await conn.call(method, params, { rid });
  const pid = lockOf(memory)!.pid;
  if (how === 'kill') await killService(memory);
  else await conn.call('shutdown', {}).catch(() => undefined);
  conn.close();
  if (how === 'stop') await waitFor(() => !alive(pid), 10_000, 'the service to stop');
  await withClient(memory, (c) => c.call('status', {})); // restarted
  conn = await wire(memory);
  await conn.call('hello', { surface: 'cli' });
  const again = conn.call(method, params, { rid });
  again.finally(() => conn.close()).catch(() => undefined);
  return { first, again };
}

for (const how of ['kill', 'stop'] as const) {
  test(`every write method retried after the service was ${how === 'kill' ? 'killed' : 'stopped (snapshot taken)'}: applied once, or a clear error`, async () => {
    const memory = tmpMemory(`rid-all-${how}`);
    const { episode, fact, wrong } = await withClient(memory, async (c) => {
      const episode = (await c.call('remember', { text: 'the queue is RabbitMQ', entities: ['queue', 'RabbitMQ', 'Legacy'] })).id;
      const fact = (await c.call('relate', { subject: 'queue', predicate: 'is', object: 'RabbitMQ' })).id;
      const wrong = (await c.call('relate', { subject: 'queue', predicate: 'is', object: 'Kafka' })).id;
      await c.call('remember', { text: 'Legacy is the old billing system' });
      return { episode, fact, wrong };
    });

    const r1 = await retryAfterRestart(memory, 'remember', { text: 'a retried note' }, how);
    assert.equal((await r1.again).id, (r1.first as { id: string }).id, 'remember: the same episode, not a second');

    const r2 = await retryAfterRestart(memory, 'ingest', { episodes: [{ text: 'retried turn one' }, { text: 'retried turn two' }] }, how);
    const again2 = await r2.again;
    assert.deepEqual(
      again2.results.map((r: { id: string }) => r.id),
      (r2.first as { results: { id: string }[] }).results.map((r) => r.id),
    );
    assert.equal(again2.added, 0, 'ingest: nothing added twice');

    const r3 = await retryAfterRestart(memory, 'relate', { subject: 'queue', predicate: 'runs on', object: 'Erlang' }, how);
    assert.equal((await r3.again).id, (r3.first as { id: string }).id, 'relate: the same fact');

    const r4 = await retryAfterRestart(
      memory,
      'extracted',
      { episode, facts: [{ subject: 'queue', predicate: 'is', object: 'RabbitMQ' }], extractor: 'test-model' },
      how,
    );
    await assert.rejects(r4.again, /applied before the memory service restarted; it was not applied again/);

    const r5 = await retryAfterRestart(memory, 'correct', { id: wrong, verdict: 'wrong' }, how);
    const again5 = await r5.again;
    assert.deepEqual(again5, r5.first, 'correct: the fact as the first answer left it, not corrected twice');

    const r6 = await retryAfterRestart(memory, 'forget', { entity: 'Legacy' }, how);
    await assert.rejects(r6.again, /applied before the memory service restarted; it was not applied again/);

    const exported = await withClient(memory, (c) => c.call('export', { history: true }));
    assert.equal(exported.episodes.filter((e) => e.text === 'a retried note').length, 1);
    assert.equal(exported.episodes.filter((e) => e.text.startsWith('retried turn')).length, 2);
    assert.equal(exported.facts.filter((f) => f.predicate === 'runs on').length, 1);
    assert.deepEqual((await withClient(memory, (c) => c.call('fact', { id: fact }))).evidence, [episode], 'extraction counted once');
    assert.equal(exported.entities.filter((e) => e.name === 'Legacy').length, 0);
  });
}
