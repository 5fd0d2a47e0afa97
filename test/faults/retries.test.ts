/**
 * Saying the same thing twice, and a client retrying a write whose answer was lost: an identical
 * current fact is not asserted again, and a write request id (rid) sent again is not applied
 * again, whether the service lived on or was killed and restarted in between.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanup, killService, tmpMemory, wire, withClient } from './kit';

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
