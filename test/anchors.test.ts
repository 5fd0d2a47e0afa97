/** Code anchors: finding references in text, anchoring them to real files, checking them as the files change, and the memory around it. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import { test } from 'node:test';
import { findCodeRefs } from '../src/core/anchors/detect';
import { AnchorChecker, anchorsIn } from '../src/core/anchors/resolve';
import { workspaceRoot } from '../src/core/anchors/workspace';
import { Memory } from '../src/core/memory/memory';
import { MemoryError } from '../src/core/model/errors';
import { renderFact } from '../src/tools/render';
import { socketPath } from '../src/service/rpc/paths';
import { CLI, tmpFolder } from './helpers';

const person = { authority: 'human' as const, source: 'cli' };
const agent = { authority: 'agent' as const, source: 'mcp' };
const NOW = '2026-11-30T10:00:00.000Z';

const SETTLE = [
  "import { clock } from './clock';",
  '',
  '/** Payments after this hour settle the next business day. */',
  'export function settleCutoff(day: Date): Date {',
  '  const cutoff = new Date(day);',
  '  cutoff.setUTCHours(17, 0, 0, 0);',
  '  return cutoff;',
  '}',
  '',
  'export function settle(amount: number): number {',
  '  return Math.round(amount * 100) / 100;',
  '}',
  '',
].join('\n');

/** A workspace with src/pay/settle.ts and src/pay/refund.ts, as a git repository would hold them. */
function workspace(): string {
  const root = tmpFolder('ws');
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'src/pay'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/pay/settle.ts'), SETTLE);
  fs.writeFileSync(path.join(root, 'src/pay/refund.ts'), 'export const refundDays = 30;\n');
  return root;
}

/** A file edit that a cached check cannot miss: new content and a later mtime. */
function edit(file: string, change: (text: string) => string, mtime = new Date(Date.now() + 2000)): void {
  fs.writeFileSync(file, change(fs.readFileSync(file, 'utf8')));
  fs.utimesSync(file, mtime, mtime);
}

test('findCodeRefs: paths, ranges, #L lines and backticked symbols; URLs and versions are not paths', () => {
  const refs = findCodeRefs(
    'The cutoff lives in `settleCutoff()` of src/pay/settle.ts (see src/pay/settle.ts:40-58 and settle.ts#L4, ./lib/a.py:7). ' +
      'Docs at https://example.com/docs/index.html; we upgraded to 1.2.3 and node 20.1; `Memory.query` too.',
  );
  assert.deepEqual(refs.paths, [
    { path: 'src/pay/settle.ts' },
    { path: 'src/pay/settle.ts', startLine: 40, endLine: 58 },
    { path: 'settle.ts', startLine: 4, endLine: 4 },
    { path: 'lib/a.py', startLine: 7, endLine: 7 },
  ]);
  assert.deepEqual(refs.symbols, ['settleCutoff', 'query']);
  assert.deepEqual(findCodeRefs('nothing here, e.g. this.'), { paths: [], symbols: [] });
});

test('anchorsIn keeps only references to files under the root: a symbol over its file, ranges, bare names beside named files', () => {
  const root = workspace();
  const anchors = anchorsIn(
    'settle in src/pay/settle.ts via `settleCutoff()`; refunds in src/pay/refund.ts and refund.ts#L1; src/pay/missing.ts is imagined; so is ../outside.ts',
    root,
    NOW,
  );
  const places = anchors.map((a) => [a.path, a.symbol ?? null, a.startLine ?? null, a.endLine ?? null]);
  assert.deepEqual(places, [
    ['src/pay/settle.ts', 'settleCutoff', null, null],
    ['src/pay/refund.ts', null, null, null],
    ['src/pay/refund.ts', null, 1, 1],
  ]);
  assert.ok(anchors.every((a) => a.root === root && /^[0-9a-f]{16}$/.test(a.hash) && a.at === NOW));
  assert.deepEqual(anchorsIn('src/pay/settle.ts:900-910 is past the end', root, NOW), []);
  assert.deepEqual(anchorsIn('no code at all', root, NOW), []);
});

test('AnchorChecker: current, changed since the mtime, gone when deleted or renamed, a moved range still current', () => {
  const root = workspace();
  const settle = path.join(root, 'src/pay/settle.ts');
  const [symbol] = anchorsIn('`settleCutoff` in src/pay/settle.ts', root, NOW);
  const [file] = anchorsIn('src/pay/settle.ts', root, NOW);
  const [range] = anchorsIn('src/pay/settle.ts:10-12', root, NOW);
  const check = (a: typeof file): string => new AnchorChecker(root).check(a!).status;
  assert.deepEqual([check(symbol), check(file), check(range)], ['current', 'current', 'current']);

  // Lines added above: the symbol and the range moved, their text did not; the whole file changed.
  edit(settle, (t) => `// settlement\n// rules\n${t}`);
  assert.deepEqual([check(symbol), check(file), check(range)], ['current', 'changed', 'current']);
  const stamped = new Date(fs.statSync(settle).mtimeMs).toISOString();
  assert.equal(new AnchorChecker(root).check(file!).changedAt, stamped);

  // The symbol's body edited: changed. Its definition removed: gone.
  edit(settle, (t) => t.replace('setUTCHours(17', 'setUTCHours(16'));
  assert.equal(check(symbol), 'changed');
  assert.equal(check(range), 'current');
  edit(settle, (t) => t.replace('settleCutoff', 'cutoffFor'));
  assert.equal(check(symbol), 'gone');

  // Renamed (the old path no longer exists), then deleted.
  fs.renameSync(settle, path.join(root, 'src/pay/settlement.ts'));
  assert.deepEqual([check(file), check(range)], ['gone', 'gone']);
});

test('AnchorChecker: a moved range is found thousands of lines away, and re-taken where it is now', () => {
  const root = workspace();
  const settle = path.join(root, 'src/pay/settle.ts');
  const [range] = anchorsIn('src/pay/settle.ts:10-12', root, NOW);
  edit(settle, (t) => `${Array.from({ length: 5000 }, (_, i) => `// note ${i}`).join('\n')}\n${t}`);
  assert.equal(new AnchorChecker(root).check(range!).status, 'current');
  const now = new AnchorChecker(root).retake(range!, NOW)!;
  assert.deepEqual([now.startLine, now.endLine, now.hash], [5010, 5012, range!.hash]);
});

test('AnchorChecker: cached by mtime and size, bounded by files per answer, falls back to the reader workspace', () => {
  const root = workspace();
  const refund = path.join(root, 'src/pay/refund.ts');
  const mtime = new Date('2026-11-01T00:00:00Z'); // whole milliseconds, so setting it again restores it exactly
  fs.utimesSync(refund, mtime, mtime);
  const [a] = anchorsIn('src/pay/refund.ts', root, NOW);
  const [b] = anchorsIn('src/pay/settle.ts', root, NOW);
  assert.equal(new AnchorChecker(root).check(a!).status, 'current');
  // Same size, same mtime: the cached reading stands (the file is not read again).
  edit(refund, (t) => t.replace('30', '31'), mtime);
  assert.equal(new AnchorChecker(root).check(a!).status, 'current');
  edit(refund, (t) => t); // a new mtime: read again
  assert.equal(new AnchorChecker(root).check(a!).status, 'changed');

  const one = new AnchorChecker(root, { files: 1, ms: 10_000 });
  assert.deepEqual(
    one.status([a!, b!]).anchors.map((c) => c.status),
    ['changed', 'unchecked'],
  );
  // The anchor's root is not on this machine: the reader's workspace stands in for it. Without one, nothing is read.
  const elsewhere = { ...b!, root: path.join(root, 'no-such-dir') };
  assert.equal(new AnchorChecker().check(elsewhere).status, 'unchecked');
  assert.equal(new AnchorChecker(root).check(elsewhere).status, 'current');
});

test('workspaceRoot: the git repository around a folder, else the folder', () => {
  const root = workspace();
  assert.equal(workspaceRoot(path.join(root, 'src/pay')), root);
  const plain = tmpFolder('plain');
  assert.equal(workspaceRoot(plain), plain);
});

test('memory: a fact whose evidence names code turns changed after an edit, ranks lower, and re-confirming clears it', async () => {
  const root = workspace();
  const folder = tmpFolder('anchors-mem');
  const m = await Memory.open(folder, { extract: false });
  const ep1 = m.remember({ text: 'the settlement cutoff lives in src/pay/settle.ts, see `settleCutoff()`' }, person, root).id;
  const ep2 = m.remember({ text: 'the refund window is set in src/pay/refund.ts' }, person, root).id;
  const ep3 = m.remember({ text: 'the settlement report lives in src/pay/report.ts' }, person, root).id; // no such file
  const cutoff = m.relate({ subject: 'settlement cutoff', predicate: 'lives in', object: 'settle module', evidence: [ep1] }, person).id;
  const refund = m.relate(
    { subject: 'settlement refund window', predicate: 'lives in', object: 'refund module', evidence: [ep2] },
    person,
  ).id;
  const report = m.relate({ subject: 'settlement report', predicate: 'lives in', object: 'report module', evidence: [ep3] }, person).id;

  const ask = () => m.query({ query: 'where does settlement live', mode: 'keyword', workspace: root });
  const before = ask();
  const byId = (r: typeof before, id: string) => r.facts.find((f) => f.id === id)!;
  assert.equal(byId(before, cutoff).code?.status, 'current');
  assert.equal(byId(before, refund).code?.status, 'current');
  assert.equal(byId(before, report).code, undefined, 'a path that names no file gives no anchor');

  edit(path.join(root, 'src/pay/settle.ts'), (t) => t.replace('setUTCHours(17', 'setUTCHours(15'));
  const afterEdit = ask();
  const changed = byId(afterEdit, cutoff);
  assert.equal(changed.code?.status, 'changed');
  assert.equal(changed.code?.changedAt, new Date(fs.statSync(path.join(root, 'src/pay/settle.ts')).mtimeMs).toISOString());
  assert.ok(Math.abs(changed.score! - byId(before, cutoff).score! * 0.5) < 1e-3, 'a changed fact scores half');
  assert.equal(byId(afterEdit, refund).score, byId(before, refund).score);
  assert.match(renderFact(changed), /⚠ code changed since \d{4}-\d\d-\d\d \(src\/pay\/settle\.ts `settleCutoff`\)/);
  assert.match(renderFact(byId(afterEdit, refund)), /✓ code unchanged \(src\/pay\/refund\.ts\)/);

  // Only a person re-confirms; then the anchor is re-taken at the current code.
  assert.throws(
    () => m.correct({ id: cutoff, verdict: 'confirm' }, agent, root),
    (e: unknown) => (e as MemoryError).code === 'forbidden',
  );
  const confirmed = m.correct({ id: cutoff, verdict: 'confirm' }, person, root);
  assert.equal(confirmed.code?.status, 'current');
  assert.equal(m.fact(cutoff, root).code?.status, 'current');

  // Deleting the file: gone, everywhere a fact is read.
  fs.rmSync(path.join(root, 'src/pay/refund.ts'));
  assert.equal(m.fact(refund, root).code?.status, 'gone');
  assert.equal(m.traverse({ entity: 'settlement refund window' }, root).facts[0]!.code?.status, 'gone');
  assert.match(renderFact(m.fact(refund, root)), /⚠ code gone \(src\/pay\/refund\.ts\)/);
  m.close();

  // The anchors are journal events: a replay from the journal alone gives the same answers.
  fs.rmSync(path.join(folder, 'snapshot.sqlite'), { force: true });
  const again = await Memory.open(folder, { extract: false });
  assert.equal(again.fact(cutoff, root).code?.status, 'current');
  assert.equal(again.fact(refund, root).code?.status, 'gone');
  // Forgetting the entity takes its fact's anchors with it, from the journal too.
  again.forget('settlement cutoff', person);
  assert.ok(!fs.readFileSync(path.join(folder, 'journal.jsonl'), 'utf8').includes(`"target":"${cutoff}"`));
  again.close();
});

test('memory: a person fact naming code anchors itself; without a workspace nothing is anchored', async () => {
  const root = workspace();
  const m = await Memory.open(tmpFolder('anchors-rel'), { extract: false });
  const id = m.relate({ subject: 'settleCutoff', predicate: 'is defined in', object: 'src/pay/settle.ts' }, person, root).id;
  assert.equal(m.fact(id).code?.anchors[0]?.path, 'src/pay/settle.ts');
  const plain = m.remember({ text: 'src/pay/settle.ts holds the cutoff' }, person).id;
  const other = m.relate({ subject: 'cutoff', predicate: 'is in', object: 'settle', evidence: [plain] }, person).id;
  assert.equal(m.fact(other, root).code, undefined);
  m.close();
});

/** The built CLI run from `cwd`: its workspace is the git repository around it. */
function recallIn(cwd: string, memory: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' } },
      (err, out, e) => (err ? reject(new Error(`recall ${args.join(' ')}: ${e}`)) : resolve(out)),
    ),
  );
}

test('service: the CLI anchors in its git root, answers say changed after an edit, `correct --confirm` clears it', async () => {
  const root = workspace();
  const memory = tmpFolder('anchors');
  const here = path.join(root, 'src/pay'); // a sub-folder: the workspace is the repository around it
  const ep = JSON.parse(await recallIn(here, memory, ['remember', 'the refund window is in src/pay/refund.ts', '--json'])).id;
  const id = JSON.parse(
    await recallIn(here, memory, ['relate', 'refund window', 'is set in', 'refund module', '--evidence', ep, '--json']),
  ).id;
  assert.match(await recallIn(root, memory, ['query', 'where is the refund window set']), /✓ code unchanged \(src\/pay\/refund\.ts\)/);
  edit(path.join(root, 'src/pay/refund.ts'), (t) => t.replace('30', '45'));
  const answer = await recallIn(root, memory, ['query', 'where is the refund window set']);
  assert.match(
    answer,
    new RegExp(`${id}: refund window —is set in→ refund module .*⚠ code changed since \\d{4}-\\d\\d-\\d\\d \\(src/pay/refund\\.ts\\)`),
  );
  await recallIn(root, memory, ['correct', '--confirm', id]);
  assert.match(await recallIn(root, memory, ['query', 'where is the refund window set']), /✓ code unchanged \(src\/pay\/refund\.ts\)/);

  // A workspace must be an absolute path: said otherwise, hello is refused with a hint.
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(socketPath(memory));
    socket.on('error', reject);
    socket.on('data', (d) => (resolve(String(d)), socket.end()));
    socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { surface: 'cli', workspace: 'src/pay' } }) + '\n');
  });
  assert.match(JSON.parse(reply).error.message, /workspace "src\/pay" is not an absolute path/);
});
