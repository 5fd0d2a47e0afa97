/**
 * Faults around the service's life: killed outright and restarted at once (its pid left a zombie
 * by a parent that never reaps), a lock naming a live process that is not ours, a service that
 * cannot start. Nothing acknowledged is lost, nothing waits out a timeout, no stranger is signalled.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import {
  alive,
  assertAllOnce,
  cleanup,
  connect,
  killService,
  lockOf,
  procParent,
  procState,
  recall,
  SERVICE,
  spawn,
  tmpMemory,
  track,
  waitFor,
  withClient,
} from './kit';

after(cleanup);

/** Well under the client's 30 s start timeout: an answer this late would still be a hang. */
const PROMPT_MS = 10_000;

test('SIGKILL, restart at once, 10 of 10: the zombie left behind never blocks a start', async () => {
  const memory = tmpMemory('zombie');
  const acknowledged: string[] = [];
  const timings: number[] = [];
  for (let round = 0; round < 10; round++) {
    // A parent that never reaps: `sh` runs the service, then becomes `sleep`, so the killed
    // service stays a zombie whose pid still answers kill(pid, 0).
    const parent = track(
      spawn('sh', ['-c', `"${process.execPath}" "${SERVICE}" --memory "${memory}" & exec sleep 120`], {
        stdio: 'ignore',
        env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' },
      }),
    );
    // The sh's own child, not a service some earlier client started, must be the one killed.
    const procfs = fs.existsSync('/proc/self/stat');
    await waitFor(
      () => {
        const pid = lockOf(memory)?.pid;
        return pid !== undefined && pid !== parent.pid && alive(pid) && (!procfs || procParent(pid) === parent.pid);
      },
      20_000,
      `round ${round}: the service under the non-reaping parent to take the lock`,
    );
    const text = `round ${round}: a note written just before the crash`;
    await withClient(memory, async (c) => void (await c.call('remember', { text })));
    acknowledged.push(text);
    const pid = await killService(memory);
    if (procfs) assert.equal(procState(pid), 'Z', `round ${round}: the killed service is a zombie while its parent lives`);
    const started = Date.now();
    const status = await withClient(memory, (c) => c.call('status', {}));
    timings.push(Date.now() - started);
    assert.notEqual(status.service_pid, pid);
    assert.equal(status.episodes, round + 1);
    assert.ok(alive(parent.pid!), 'the zombie parent was left alone');
    await killService(memory); // the one the client started; the next round starts under a non-reaping parent again
    parent.kill('SIGKILL');
  }
  process.stdout.write(`# restart after SIGKILL (zombie holder): ${timings.length}/10 answered; ms ${timings.join(' ')}\n`);
  for (const ms of timings) assert.ok(ms < PROMPT_MS, `a restart took ${ms} ms`);
  await assertAllOnce(memory, acknowledged);
});

test('a lock naming a live process that is not the service: no wait, and it is never signalled', async () => {
  for (const lock of [
    (pid: number) => ({ pid, started: 'now', nonce: 'feedface', ticks: 1 }),
    (pid: number) => ({ pid, started: 'long ago' }), // the older format, without start time or nonce
  ]) {
    const memory = tmpMemory('foreign');
    const stranger = track(spawn('sleep', ['120'], { stdio: 'ignore' }));
    await waitFor(() => alive(stranger.pid!), 5_000, 'sleep to start');
    fs.writeFileSync(path.join(memory, 'service.lock'), JSON.stringify(lock(stranger.pid!)), { mode: 0o600 });

    const status = await recall(memory, ['service', 'status', '--json']);
    assert.equal(JSON.parse(status.stdout).running, false, 'a stranger is not our service');
    const stop = await recall(memory, ['service', 'stop']);
    assert.equal(stop.code, 0, stop.stderr);
    assert.ok(alive(stranger.pid!), '`recall service stop` did not signal the stranger');

    fs.writeFileSync(path.join(memory, 'service.lock'), JSON.stringify(lock(stranger.pid!)), { mode: 0o600 });
    const r = await recall(memory, ['remember', 'written despite a foreign lock']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.ms < PROMPT_MS, `took ${r.ms} ms`);
    assert.notEqual(lockOf(memory)!.pid, stranger.pid);
    assert.ok(alive(stranger.pid!), 'the stranger still runs');
    await assertAllOnce(memory, ['written despite a foreign lock']);
    stranger.kill('SIGKILL');
  }
});

test('a service that cannot start says why at once: invalid config.json', async () => {
  const memory = tmpMemory('badconfig');
  fs.writeFileSync(path.join(memory, 'config.json'), '{ "halfLifeDays": 30, }');
  const r = await recall(memory, ['status']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /could not start: .*config\.json is not valid JSON/);
  assert.ok(r.ms < PROMPT_MS, `took ${r.ms} ms`);
  // Fixed, it starts.
  fs.writeFileSync(path.join(memory, 'config.json'), '{}');
  assert.equal((await recall(memory, ['status'])).code, 0);
});

test('--memory naming a file is refused with a clear message', async () => {
  const memory = tmpMemory('file');
  const file = path.join(memory, 'not-a-folder');
  fs.writeFileSync(file, 'x');
  const r = await recall(file, ['status']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot be the memory folder: it, or a folder above it, is a file/);
  assert.doesNotMatch(r.stderr, /EEXIST/);
});

test('stop, then immediate starts from several clients at once: exactly one service', async () => {
  const memory = tmpMemory('race');
  await withClient(memory, (c) => c.call('remember', { text: 'before the race' }));
  await killService(memory);
  const clients = await Promise.all(Array.from({ length: 6 }, () => connect(memory)));
  const pids = await Promise.all(clients.map((c) => c.call('status', {}).then((s) => s.service_pid)));
  for (const c of clients) c.close();
  assert.equal(new Set(pids).size, 1, `services: ${[...new Set(pids)].join(', ')}`);
  const log = fs.readFileSync(path.join(memory, 'service.log'), 'utf8');
  assert.equal((log.match(/listening on/g) ?? []).length, 2, 'one before the kill, one after');
  await assertAllOnce(memory, ['before the race']);
});

test('a client that comes while the owner is still opening the memory waits for it and starts no second', async (t) => {
  if (!fs.existsSync('/proc/self/stat')) return t.skip('needs /proc to catch the owner between taking the lock and listening');
  // Stopped between taking the lock and listening, the owner stands for one opening a large memory.
  let memory = '';
  let owner: ReturnType<typeof spawn> | undefined;
  for (let attempt = 0; attempt < 10 && !owner; attempt++) {
    memory = tmpMemory('opening');
    const child = track(
      spawn(process.execPath, [SERVICE, '--memory', memory], { stdio: 'ignore', env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' } }),
    );
    const deadline = Date.now() + 20_000;
    while (lockOf(memory)?.pid !== child.pid && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    child.kill('SIGSTOP');
    const socket = lockOf(memory)?.socket;
    if (socket && !fs.existsSync(socket)) owner = child;
    else child.kill('SIGKILL');
  }
  assert.ok(owner, 'the owner was never caught before it listened, in 10 tries');

  const early = await connect(memory, 1_500).then(
    () => assert.fail('connected to a stopped owner'),
    (err: Error) => err,
  );
  assert.match(early.message, new RegExp(`\\(pid ${owner.pid}\\) holds the folder but did not answer in time`));

  const waiting = connect(memory);
  setTimeout(() => owner.kill('SIGCONT'), 500);
  const client = await waiting;
  const status = await client.call('status', {});
  client.close();
  assert.equal(status.service_pid, owner.pid, 'the client reached the owner it waited for');
  const log = path.join(memory, 'service.log');
  const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
  assert.doesNotMatch(said, /already owns/, 'no second service was started only to step aside');
});

test('six services started at once: one owner, and the lock is whole whenever it exists', async () => {
  const memory = tmpMemory('contenders');
  const lock = path.join(memory, 'service.lock');
  const env = { ...process.env, RECALL_IDLE_EXIT_MS: '60000' };
  const exits: Promise<number | null>[] = [];
  const children = Array.from({ length: 6 }, () => {
    const child = track(spawn(process.execPath, [SERVICE, '--memory', memory], { stdio: 'ignore', env }));
    exits.push(new Promise((resolve) => child.once('exit', resolve)));
    return child;
  });
  let exited = 0;
  for (const exit of exits) void exit.then(() => exited++);
  const unreadable: string[] = [];
  const deadline = Date.now() + 30_000;
  // Read as fast as we can until five have stepped aside: a contender must never see a lock it cannot read.
  while (exited < 5 && Date.now() < deadline) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(lock, 'utf8');
    } catch {
      // Not there yet, or between owners.
    }
    if (text !== undefined && lockOf(memory) === undefined) unreadable.push(JSON.stringify(text));
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(exited, 5, 'five stepped aside');
  assert.deepEqual(unreadable, [], 'the lock was seen half-written');
  const owner = children.find((c) => c.exitCode === null && c.signalCode === null)!;
  assert.equal(lockOf(memory)!.pid, owner.pid);
  assert.deepEqual((await Promise.all(exits.filter((_, i) => children[i] !== owner))).sort(), [0, 0, 0, 0, 0]);
  assert.deepEqual(
    fs.readdirSync(memory).filter((n) => n.startsWith('service.lock.')),
    [],
    'no temp file of a lock left behind',
  );
});
