/**
 * One item per piece of knowledge while the service keeps its list of held items between writes
 * (store/held-items.ts): the same statement said again in a later command is the same item, also
 * after the item moved to another project, and not once the item was forgotten. The built CLI against
 * one service, as a person uses it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recallOk, tmpFolder } from './helpers';

/** Remembers a knowledge item as the person; returns the item's id. */
async function item(memory: string, kind: string, text: string, project: string, subject = 'logging'): Promise<string> {
  const out = await recallOk(memory, ['remember', text, '--kind', kind, '--project', project, '--subject', subject]);
  const m = new RegExp(`^${kind} (\\S+)$`, 'm').exec(out);
  assert.ok(m, out);
  return m[1]!;
}

test('the same statement later is the same item, after a move to another project too, and a new one once forgotten', async () => {
  const memory = tmpFolder('held-items');
  const rule = 'Never log the database URL.';
  const first = await item(memory, 'rule', rule, 'github.com/acme/a');
  await item(memory, 'rule', 'Use pnpm for every install.', 'github.com/acme/a');
  await item(memory, 'rule', 'Keep handlers free of business logic.', 'github.com/acme/b');
  assert.equal(await item(memory, 'rule', 'never log the database url', 'github.com/acme/a'), first, 'said again: the same item');

  // Project b's list was read before the move; the moved rule is found there after it.
  await recallOk(memory, ['project', 'assign', 'github.com/acme/b', '--from', 'github.com/acme/a']);
  assert.equal(await item(memory, 'rule', rule, 'github.com/acme/b'), first, 'moved with its project');
  assert.notEqual(await item(memory, 'rule', rule, 'github.com/acme/a'), first, 'no longer in the project it left');

  // Forgotten, the item is gone; saying it again is a new item.
  const postgres = await item(memory, 'decision', 'Use Postgres for the billing store.', 'github.com/acme/b', 'billing store');
  await recallOk(memory, ['forget', 'billing store', '--confirm']);
  const again = await item(memory, 'decision', 'Use Postgres for the billing store.', 'github.com/acme/b', 'billing store');
  assert.notEqual(again, postgres, 'a forgotten item is not said again: a new one is');
  await recallOk(memory, ['service', 'stop']);
});
