/**
 * Rules with checks across a team: a teammate's rule and its check arrive as data, so here they
 * only ask, never deny, even once confirmed here; only this memory's person setting a check of
 * their own makes it a barrier. A teammate's hooks' decisions are counted on the rule too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, skip, startTeam, type Team } from './team';

let team: Team;
before(async () => {
  if (!skip) team = await startTeam();
});
after(async () => {
  await team?.close();
});

const forcePush = { event: 'pre' as const, host: 'claude', tool: 'Bash', input: { command: 'git push --force origin main' } };

test("a teammate's rule only asks here; this memory's person's own check makes it deny", { skip }, async () => {
  const a = await team.machine('alice', 'rules');
  const b = await team.machine('bob', 'rules');
  const rule = await a.person.call('rule.add', { statement: 'Never force-push.', project: null });
  assert.equal((await a.person.call('hook.check', { ...forcePush, call_id: 'a1' })).decision, 'deny', "at home, the person's rule denies");
  await eventually('the rule at B', async () => (await b.person.call('rules', { checked: true })).some((r) => r.id === rule.id));

  const pulled = (await b.person.call('rules', { checked: true })).find((r) => r.id === rule.id)!;
  assert.equal(pulled.check_by, 'peer');
  const asked = await b.person.call('hook.check', { ...forcePush, call_id: 'b1' });
  assert.equal(asked.decision, 'ask');
  assert.match(asked.reason, /check from a teammate's memory/);

  await b.person.call('correct', { id: rule.id, verdict: 'confirm' });
  assert.equal(
    (await b.person.call('hook.check', { ...forcePush, call_id: 'b2' })).decision,
    'ask',
    "confirming does not trust a teammate's check",
  );

  await b.person.call('rule.check', { id: rule.id, check: { command: ['git push --force*'] } });
  assert.equal(
    (await b.person.call('hook.check', { ...forcePush, call_id: 'b3' })).decision,
    'deny',
    "bob's own check on a rule he confirmed",
  );
  await eventually("B's decisions counted at A", async () => {
    const there = (await a.person.call('rules', { checked: true })).find((r) => r.id === rule.id);
    return (there?.outcomes?.asked ?? 0) >= 2;
  });
  const home = (await a.person.call('rules', { checked: true })).find((r) => r.id === rule.id)!;
  assert.equal(home.check_by, 'peer', "bob's check is data at A too");
});
