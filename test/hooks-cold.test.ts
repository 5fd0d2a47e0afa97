/**
 * A hook when no memory service answers: it answers from the hooks' cache the service keeps in
 * the memory folder (the same decision the service makes), starts the service for the next call,
 * and what it decided is recorded on the rule once the service runs. A cache that does not read
 * is not used. Real processes: the built CLI and hook bundle on a real memory.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { lockOf, onCleanup, tmpFolder, waitFor } from './helpers';
import { contextOf, decisionOf, hook, payload, project } from './hooks-kit';

const FROM_CACHE = /answered from the hooks cache/;

test('a cold hook denies from the cache at once, starts the service, and its decision is recorded on the rule', async () => {
  const p = project('cold');
  const rule = JSON.parse((await p.cli(['rule', 'add', 'Never force-push.', '--json'])).stdout);
  assert.equal((await p.cli(['service', 'stop'])).code, 0);

  const r = await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd), 'claude');
  const d = decisionOf('claude', r);
  assert.equal(d.decision, 'deny');
  assert.match(d.reason, new RegExp(`${rule.id} "Never force-push\\." \\(set by you\\)`), 'the same reason the service gives');
  assert.match(r.stderr, /no memory service answered \(started one for the next call\)/);
  assert.match(r.stderr, FROM_CACHE);
  // The service it started takes in the spooled decision before it serves anyone.
  await waitFor(() => lockOf(p.memory) !== undefined, 30_000, 'the service the hook started');
  const listed = JSON.parse((await p.cli(['rule', 'list', '--json'])).stdout) as { id: string; outcomes?: object }[];
  assert.deepEqual(listed.find((x) => x.id === rule.id)?.outcomes, { blocked: 1 });
  assert.equal(fs.existsSync(path.join(p.memory, 'hook-spool.jsonl')), false, 'the spool was taken in');
});

test('the cache follows the memory: a removed check stops nothing cold, a benign call is allowed', async () => {
  const p = project('follows');
  const rule = JSON.parse((await p.cli(['rule', 'add', 'Never force-push.', '--json'])).stdout);
  const benign = payload('claude', 'pre-tool-use', p.cwd, { tool_input: { command: 'git push origin main' } });
  await p.cli(['service', 'stop']);
  assert.equal(decisionOf('claude', await hook(p.memory, 'pre-tool-use', benign, 'claude')).decision, 'allow');

  await waitFor(() => lockOf(p.memory) !== undefined, 30_000, 'the service the hook started');
  assert.equal((await p.cli(['rule', 'check', rule.id, '--remove'])).code, 0);
  await p.cli(['service', 'stop']);
  const r = await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd, { tool_use_id: 'toolu_09' }), 'claude');
  assert.equal(decisionOf('claude', r).decision, 'allow');
  assert.match(r.stderr, FROM_CACHE);
});

test('a cold session start gets the brief a hook was last given for its project', async () => {
  const p = project('cold-start');
  await p.cli(['remember', 'We deploy with the blue-green script, never by hand.']);
  const warm = contextOf('claude', await hook(p.memory, 'session-start', payload('claude', 'session-start', p.cwd), 'claude'));
  assert.match(warm, /blue-green script/);
  // Kept between sessions only while the memory has not changed.
  await p.cli(['remember', 'Never merge to main on Fridays.']);
  const again = contextOf('claude', await hook(p.memory, 'session-start', payload('claude', 'session-start', p.cwd), 'claude'));
  assert.match(again, /blue-green script/);
  assert.match(again, /Fridays/, 'the brief made again after the memory changed');
  await p.cli(['service', 'stop']);
  const r = await hook(p.memory, 'session-start', payload('claude', 'session-start', p.cwd), 'claude');
  assert.equal(contextOf('claude', r), again);
  assert.match(r.stderr, FROM_CACHE);

  // Another project has no brief kept: the hook waits for the service and gets that project's own.
  await waitFor(() => lockOf(p.memory) !== undefined, 30_000, 'the service the hook started');
  await p.cli(['service', 'stop']);
  const otherFolder = tmpFolder('cold-other');
  const other = await hook(p.memory, 'session-start', payload('claude', 'session-start', otherFolder), 'claude');
  assert.match(contextOf('claude', other), new RegExp(`project dir:${otherFolder}`));
  assert.doesNotMatch(contextOf('claude', other), /blue-green/);
  assert.doesNotMatch(other.stderr, FROM_CACHE);
});

test('a service that holds the memory and does not answer: the cache answers at the deadline', async () => {
  const p = project('busy');
  await p.cli(['rule', 'add', 'Never force-push.']);
  await p.cli(['service', 'stop']);
  // A listener that takes the connection and never says a word, where the service would be.
  const sock = path.join(tmpFolder('busy-sock'), 's.sock');
  const silent = net.createServer(() => {}).listen(sock);
  onCleanup(() => silent.close());
  await new Promise((r) => silent.once('listening', r));
  fs.writeFileSync(
    path.join(p.memory, 'service.lock'),
    JSON.stringify({ pid: process.pid, started: new Date().toISOString(), socket: sock }),
    {
      mode: 0o600,
    },
  );
  const r = await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd), 'claude', { RECALL_HOOK_DEADLINE_MS: '1500' });
  assert.equal(decisionOf('claude', r).decision, 'deny');
  assert.match(r.stderr, /did not answer within 1500 ms/);
  assert.match(r.stderr, FROM_CACHE);
  fs.rmSync(path.join(p.memory, 'service.lock'));
});

test('a cache that does not read, or is older than the memory, is not used: the service answers', async () => {
  const p = project('forged');
  await p.cli(['rule', 'add', 'Never force-push.']);
  await p.cli(['service', 'stop']);
  const file = path.join(p.memory, 'hook-cache.json');
  const kept = fs.readFileSync(file, 'utf8');
  const cache = JSON.parse(kept);
  assert.equal(Object.values(cache.projects).flat().length, 1, 'the service kept the rule for hooks');
  const unused = async (forged: object): Promise<void> => {
    fs.writeFileSync(file, JSON.stringify(forged), { mode: 0o600 });
    const r = await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd), 'claude');
    assert.equal(decisionOf('claude', r).decision, 'deny', 'the service decided');
    assert.doesNotMatch(r.stderr, FROM_CACHE);
    await p.cli(['service', 'stop']);
  };
  // A check no person could set (a pattern over its limit) makes the whole file unusable.
  const bad = JSON.parse(kept);
  (Object.values(bad.projects)[0] as { check: { command: string[] } }[])[0]!.check.command = ['x'.repeat(5000)];
  await unused(bad);
  // No rules, written before the memory's last change: stale, so not trusted to allow.
  await unused({ ...JSON.parse(kept), projects: {}, journal_bytes: cache.journal_bytes - 1 });
});

test('a forgotten turn leaves no copy in the briefs kept for hooks once forget returns', async () => {
  const p = project('cold-forget');
  const marker = 'QX7-HOOKS-CACHE-MARKER';
  await p.cli(['remember', `Zephyrine must never deploy on Fridays, said ${marker}.`, '--entity', 'Zephyrine']);
  const served = await hook(p.memory, 'session-start', payload('claude', 'session-start', p.cwd), 'claude');
  assert.match(contextOf('claude', served), new RegExp(marker), 'the brief held it (the check can fail)');
  await waitFor(() => fs.readFileSync(path.join(p.memory, 'hook-cache.json'), 'utf8').includes(marker), 10_000, 'the brief kept');
  const r = await p.cli(['forget', 'Zephyrine', '--confirm']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(fs.readFileSync(path.join(p.memory, 'hook-cache.json'), 'utf8'), new RegExp(marker));
});
