/**
 * Trust and code anchors: a repository (its symlinks, FIFOs, huge files) and a peer (anchors it
 * forges in the journal) cannot make the memory hash files outside the workspace, read them at
 * check time, or stall the service. Each test does an attack of the adversarial report of
 * 2026-12-01 (F7, F10-F13) against the built CLI and service, from a workspace folder.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Workspace } from '../../src/core/anchors/files';
import { anchorsIn, SourceFiles } from '../../src/core/anchors/resolve';
import { LIMITS } from '../../src/core/model/limits';
import { CLI, cleanup, lockOf, onCleanup, tmpMemory, type CliResult } from './kit';

after(cleanup);

/** A git-looking workspace (its realpath, as a client would send it) with `files` written in it. */
function workspace(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-anchor-ws-')));
  onCleanup(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, '.git'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** A folder outside every workspace, as a secret elsewhere on the machine. */
function outside(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-anchor-out-')));
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** The built CLI standing in `cwd` (its workspace is the git folder around it); a hang ends at `timeoutMs` with a non-zero code. */
function recallIn(cwd: string, memory: string, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

async function ok(cwd: string, memory: string, args: string[], timeoutMs?: number): Promise<string> {
  const r = await recallIn(cwd, memory, args, timeoutMs);
  assert.equal(r.code, 0, `recall ${args.join(' ')} exited ${r.code} after ${r.ms} ms: ${r.stderr}`);
  return r.stdout;
}

interface Anchor {
  root: string;
  path: string;
  symbol?: string;
  startLine?: number;
  endLine?: number;
  hash: string;
  at: string;
}

/** The journal's events, parsed. */
function journal(memory: string): { seq: number; type: string; target?: string; anchors?: Anchor[] }[] {
  return fs
    .readFileSync(path.join(memory, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const anchored = (memory: string): Anchor[] => journal(memory).flatMap((e) => (e.type === 'anchors.set' ? e.anchors! : []));

/** A peer's `anchors.set` for `target`, as team sync would have applied it: appended to the journal while the service is stopped. */
async function forgeAnchors(cwd: string, memory: string, target: string, anchors: Anchor[]): Promise<void> {
  await ok(cwd, memory, ['service', 'stop']);
  const events = journal(memory);
  const seq = events[events.length - 1]!.seq + 1;
  const at = new Date().toISOString();
  const event = {
    type: 'anchors.set',
    target,
    anchors,
    seq,
    at,
    by: { authority: 'agent', source: 'sync' },
    origin: 'peer-mallory',
    originSeq: 1,
  };
  fs.appendFileSync(path.join(memory, 'journal.jsonl'), JSON.stringify(event) + '\n');
}

/** A fact about `subject` whose evidence is the episode `text`, remembered from `cwd`. */
async function factFrom(cwd: string, memory: string, text: string, subject: string): Promise<string> {
  const ep = JSON.parse(await ok(cwd, memory, ['remember', text, '--json'])).id;
  return JSON.parse(await ok(cwd, memory, ['relate', subject, 'lives in', `${subject} module`, '--evidence', ep, '--json'])).id;
}

/** Each anchor's status for the fact, in the order stored, as the CLI in `cwd` is told. */
async function statuses(cwd: string, memory: string, subject: string, timeoutMs?: number): Promise<{ path: string; status: string }[]> {
  const r = JSON.parse(await ok(cwd, memory, ['traverse', subject, '--json'], timeoutMs));
  const fact = r.facts.find((f: { subject: string }) => f.subject === subject);
  assert.ok(fact?.code, `no code status on ${subject}: ${JSON.stringify(r.facts)}`);
  return fact.code.anchors.map((a: { path: string; status: string }) => ({ path: a.path, status: a.status }));
}

/** Peak resident memory of a process (Linux /proc), in MB. */
function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) / 1024;
}

const ZERO = '0'.repeat(16);
const isRoot = process.getuid?.() === 0;
const hasFifo = process.platform !== 'win32';

test('F10: a symlinked file or folder leading out of the workspace, /proc/self/environ and a line of /etc/passwd are never hashed', async () => {
  const out = outside({
    'secret.ts': "export function secretFn() {\n  return 'hunter2';\n}\n",
    'sub/creds.json': '{"password": "hunter2"}\n',
  });
  const ws = workspace({ 'src/ok.ts': 'export const ok = true;\n' });
  fs.symlinkSync(path.join(out, 'secret.ts'), path.join(ws, 'src/link.ts'));
  fs.symlinkSync(out, path.join(ws, 'src/outdir'));
  fs.symlinkSync('/proc/self/environ', path.join(ws, 'src/env.txt'));
  fs.symlinkSync('/etc/passwd', path.join(ws, 'src/pw.txt'));
  fs.symlinkSync('ok.ts', path.join(ws, 'src/inner.ts')); // a link that stays inside: followed
  const memory = tmpMemory('trust-links');
  await ok(ws, memory, [
    'remember',
    'Look at src/link.ts and `secretFn()` and src/outdir/sub/creds.json and src/env.txt and src/pw.txt:1-1 and src/ok.ts and src/inner.ts',
  ]);
  const paths = anchored(memory)
    .map((a) => a.path)
    .sort();
  assert.deepEqual(paths, ['src/inner.ts', 'src/ok.ts']);
});

test('F10: a single short line, or a short file, that is not source code is not hashed; source code is', async () => {
  const ws = workspace({
    'src/notes.txt': 'password=hunter2\nThe rest of these notes is about the payment cutoff and the refund window.\n',
    'src/secret.cfg': 'token=abc123\n',
    'src/pay.ts': 'export const cutoffHour = 17;\n',
  });
  const memory = tmpMemory('trust-short');
  await ok(ws, memory, ['remember', 'The password is on src/notes.txt:1-1, the token in src/secret.cfg, the cutoff on src/pay.ts:1-1']);
  assert.deepEqual(
    anchored(memory).map((a) => [a.path, a.startLine ?? null]),
    [['src/pay.ts', 1]],
  );
});

test("F11: a peer's anchors naming root / or climbing out with ../ are never read, and re-confirming takes no hash of them", async () => {
  const out = outside({ 'secret.ts': 'export const secret = 1;\n' });
  const ws = workspace({ 'src/ok.ts': 'export const ok = true;\n' });
  const memory = tmpMemory('trust-forged');
  const fact = await factFrom(ws, memory, 'The switch lives in src/ok.ts', 'Feature switch');
  const genuine = anchored(memory).find((a) => a.path === 'src/ok.ts')!;
  fs.symlinkSync('/etc', path.join(ws, 'src/etc'));
  const at = '2026-12-01T00:00:00.000Z';
  await forgeAnchors(ws, memory, fact, [
    { root: '/', path: 'etc/passwd', startLine: 1, endLine: 1, hash: ZERO, at },
    { root: '/nonexistent-root', path: '../../../etc/shadow', hash: ZERO, at },
    { root: out, path: 'secret.ts', hash: ZERO, at }, // another folder of this machine, not this workspace
    { root: ws, path: 'src/etc/passwd', hash: ZERO, at }, // through a link in the workspace leading out
    genuine,
  ]);
  // The climbing path is no path this memory writes: left out. The others are shown, unread.
  assert.deepEqual(await statuses(ws, memory, 'Feature switch'), [
    { path: 'etc/passwd', status: 'unchecked' },
    { path: 'secret.ts', status: 'unchecked' },
    { path: 'src/etc/passwd', status: 'unchecked' },
    { path: 'src/ok.ts', status: 'current' },
  ]);
  // The person re-confirms the fact: its anchors are re-taken, but none outside the workspace.
  await ok(ws, memory, ['correct', '--confirm', fact]);
  const sets = journal(memory).filter((e) => e.type === 'anchors.set' && e.target === fact);
  assert.deepEqual(
    sets[sets.length - 1]!.anchors!.map((a) => a.path),
    ['src/ok.ts'],
  );
});

test(
  'F13: /proc/kmsg through a symlink in the repository does not hang the service',
  { skip: isRoot ? false : 'only root can read /proc/kmsg (the attack needs a root service)' },
  async () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.symlinkSync('/proc/kmsg', path.join(ws, 'docs/log.md'));
    const memory = tmpMemory('trust-kmsg');
    await ok(ws, memory, ['remember', 'The boot notes are in docs/log.md'], 20_000);
    await ok(ws, memory, ['status'], 20_000);
    assert.deepEqual(anchored(memory), []);
  },
);

test(
  'F13: a FIFO behind a symlink, or swapped in for an anchored file, is never read',
  { skip: hasFifo ? false : 'no FIFOs here' },
  async () => {
    const ws = workspace({ 'src/a.ts': 'export const a = 1;\n' });
    execFileSync('mkfifo', [path.join(ws, 'src/fifo')]);
    fs.symlinkSync('fifo', path.join(ws, 'src/pipe.ts'));
    const memory = tmpMemory('trust-fifo');
    await factFrom(ws, memory, 'The flag is read in src/pipe.ts and set in src/a.ts', 'Flag');
    assert.deepEqual(
      anchored(memory).map((a) => a.path),
      ['src/a.ts'],
    );
    fs.rmSync(path.join(ws, 'src/a.ts'));
    execFileSync('mkfifo', [path.join(ws, 'src/a.ts')]);
    assert.deepEqual(await statuses(ws, memory, 'Flag', 20_000), [{ path: 'src/a.ts', status: 'gone' }]);
  },
);

test(
  'F13: a FIFO swapped in between looking at a file and reading it is not read (the open does not block)',
  { skip: hasFifo ? false : 'no FIFOs here' },
  () => {
    const ws = workspace({ 'src/b.ts': 'export const b = 2;\n' });
    const at = Workspace.at(ws)!;
    const file = at.locate('src/b.ts');
    assert.ok(typeof file === 'object', `src/b.ts: ${String(file)}`);
    fs.rmSync(path.join(ws, 'src/b.ts'));
    execFileSync('mkfifo', [path.join(ws, 'src/b.ts')]);
    assert.equal(at.read(file), undefined);
    // And a link to a file outside swapped in: not followed.
    const out = outside({ 'b.ts': 'export const b = 2;\n' });
    fs.rmSync(path.join(ws, 'src/b.ts'));
    fs.symlinkSync(path.join(out, 'b.ts'), path.join(ws, 'src/b.ts'));
    assert.equal(at.read(file), undefined);
    assert.equal(at.locate('src/b.ts'), 'out of reach');
  },
);

/** A workspace with d/v.txt of 40,000 distinct lines (about 430 KB). */
function bigLines(): string {
  return workspace({ 'd/v.txt': Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
}

function changeFirstLine(ws: string): void {
  const file = path.join(ws, 'd/v.txt');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^line 1\n/, 'changed\n'));
  const later = new Date(Date.now() + 2000);
  fs.utimesSync(file, later, later);
}

test('F7: a changed 20,000-line range of a 40,000-line file is checked promptly, and another client is answered meanwhile', async () => {
  const ws = bigLines();
  const memory = tmpMemory('trust-range');
  await factFrom(ws, memory, 'Config lives in d/v.txt:1-20000', 'Config');
  changeFirstLine(ws);
  const [check, status] = await Promise.all([
    statuses(ws, memory, 'Config', 20_000),
    new Promise((r) => setTimeout(r, 500)).then(() => ok(ws, memory, ['status'], 20_000)),
  ]);
  assert.deepEqual(check, [{ path: 'd/v.txt', status: 'changed' }]);
  assert.match(status, /service +pid \d+/);
});

test("F7: a peer's many range anchors on one file are checked within the answer's budget", async () => {
  const ws = bigLines();
  const memory = tmpMemory('trust-ranges');
  const fact = await factFrom(ws, memory, 'Config lives in d/v.txt', 'Config');
  const at = '2026-12-01T00:00:00.000Z';
  const ranges = Array.from({ length: 40 }, (_, i) => ({
    root: ws,
    path: 'd/v.txt',
    startLine: i + 1,
    endLine: i + 20_000,
    hash: ZERO,
    at,
  }));
  await forgeAnchors(ws, memory, fact, ranges);
  const [check] = await Promise.all([
    statuses(ws, memory, 'Config', 20_000),
    new Promise((r) => setTimeout(r, 1000)).then(() => ok(ws, memory, ['status'], 20_000)),
  ]);
  assert.equal(check.length, 40);
  for (const c of check) assert.ok(['changed', 'unchecked'].includes(c.status), JSON.stringify(c));
});

test('F12: 300 symlinks to one 2 MB file named by an ingested transcript keep the service well under 1.2 GB', async () => {
  // Short lines: what a lines array costs the most for.
  const line = 'x'.repeat(15);
  const ws = workspace({ 'big/data.txt': Array.from({ length: 120_000 }, (_, i) => `${line}${i % 10}`).join('\n') });
  assert.ok(fs.statSync(path.join(ws, 'big/data.txt')).size < LIMITS.anchorFileBytes);
  fs.mkdirSync(path.join(ws, 'links'));
  for (let i = 0; i < 300; i++) fs.symlinkSync('../big/data.txt', path.join(ws, `links/l${i}.txt`));
  const turns = Array.from({ length: 30 }, (_, t) => ({
    role: 'user',
    text: `Turn ${t}: the data is in ${Array.from({ length: 10 }, (_, k) => `links/l${t * 10 + k}.txt`).join(' and ')}`,
  }));
  fs.writeFileSync(path.join(ws, 't.jsonl'), turns.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const memory = tmpMemory('trust-rss');
  await ok(ws, memory, ['ingest', 't.jsonl'], 120_000);
  const pid = lockOf(memory)!.pid;
  const peak = peakRssMb(pid);
  assert.ok(peak < 400, `the service peaked at ${Math.round(peak)} MB`);
  assert.ok(anchored(memory).length > 0, 'links inside the workspace are still anchored');
});

test('F12: one batch reads at most LIMITS.anchorBatchBytes of files to take anchors; the next batch reads again', () => {
  const size = 1_500_000;
  const count = Math.floor(LIMITS.anchorBatchBytes / size) + 2;
  const body = Array.from({ length: size / 20 }, (_, i) => `${String(i).padStart(19, '0')}\n`).join('');
  const files = Object.fromEntries(
    Array.from({ length: count }, (_, k) => [`big/f${k}.txt`, `${k}`.padEnd(19, '-') + '\n' + body.slice(20)]),
  );
  const ws = workspace(files);
  assert.equal(fs.statSync(path.join(ws, 'big/f0.txt')).size, size);
  const batch = new SourceFiles();
  const taken = Object.keys(files).flatMap((f) => anchorsIn(`see ${f}`, ws, '2026-12-01T00:00:00.000Z', batch));
  assert.equal(taken.length, Math.floor(LIMITS.anchorBatchBytes / size));
  assert.equal(anchorsIn(`see big/f${count - 1}.txt`, ws, '2026-12-01T00:00:00.000Z').length, 1);
});
