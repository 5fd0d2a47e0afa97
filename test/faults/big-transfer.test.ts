/**
 * Moving a lot of data: a generated JSONL transcript (RECALL_FAULT_TRANSFER_MB, 200 MB by default)
 * ingested through the CLI and exported back; every turn present once with the ref of its line,
 * the CLI's resident memory flat (it streams), nothing hung. A message over the service's limit is
 * a clear error, never "the service went away" and a resend.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/model/limits';
import { CLI, cleanup, connect, lockOf, recall, spawn, tmpMemory, track, withClient } from './kit';

after(cleanup);

const MB = Number(process.env.RECALL_FAULT_TRANSFER_MB ?? 200);
/** Far below what reading a 200 MB file whole would take (its string alone, then its objects). */
const CLI_RSS_LIMIT_MB = 300;

test('recall export writes page by page exactly what one export message holds', async () => {
  const memory = tmpMemory('export-same');
  await withClient(memory, async (c) => {
    const a = await c.call('remember', { text: 'billing moved to Postgres 16 in March', entities: ['billing', 'Postgres'] });
    await c.call('remember', { text: 'the cache is Redis, "quoted"\nand on two lines' });
    const fact = await c.call('relate', { subject: 'billing', predicate: 'uses', object: 'Postgres', evidence: [a.id] });
    await c.call('relate', { subject: 'billing', predicate: 'uses', object: 'MySQL' });
    await c.call('correct', { id: fact.id, verdict: 'wrong' });
  });
  for (const history of [false, true]) {
    const whole = await withClient(memory, (c) => c.call('export', { history }));
    const r = await recall(memory, history ? ['export', '--history'] : ['export']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, JSON.stringify(whole, null, 2) + '\n');
  }
  const empty = tmpMemory('export-empty');
  const r = await recall(empty, ['export']);
  assert.equal(r.stdout, JSON.stringify({ entities: [], facts: [], episodes: [] }, null, 2) + '\n');
});

test('a request over the message limit is refused at once with a clear error, and nothing is resent', async () => {
  const memory = tmpMemory('oversize');
  const client = await connect(memory);
  try {
    const pid = (await client.call('status', {})).service_pid;
    const text = 'x'.repeat(LIMITS.serviceMessageBytes);
    await assert.rejects(client.call('remember', { text }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'invalid_input');
      assert.match(e.message, /over the memory service's 64\.0 MiB message limit; nothing was sent/);
      return true;
    });
    assert.equal((await client.call('status', {})).service_pid, pid, 'the same service: it never went away');
    assert.equal((await client.call('status', {})).episodes, 0);
  } finally {
    client.close();
  }
  const log = fs.readFileSync(path.join(memory, 'service.log'), 'utf8');
  assert.equal((log.match(/listening on/g) ?? []).length, 1, 'started once');
});

test('a whole-JSON transcript over the whole-read bound: an actionable error, nothing stored', async () => {
  const memory = tmpMemory('whole-json');
  const file = path.join(memory, 'export.json');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '[\n');
  const turn = JSON.stringify({ role: 'user', content: 'y'.repeat(1 << 20) });
  for (let written = 0; written <= LIMITS.wholeTranscriptBytes; written += turn.length + 2) fs.writeSync(fd, `${turn},\n`);
  fs.writeSync(fd, `${turn}\n]\n`);
  fs.closeSync(fd);
  const r = await recall(memory, ['ingest', file]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /over the 64 MiB that is read at once for this format/);
  assert.match(r.stderr, /convert it to JSONL/);
  assert.equal(lockOf(memory), undefined, 'the service was never started for it');
});

test(`a ${MB} MB JSONL transcript through recall ingest and recall export: every turn once, the CLI's memory flat`, async () => {
  const memory = tmpMemory('transfer');
  const file = path.join(memory, 'big.jsonl');
  const turns = writeTranscript(file, MB * 1e6);

  const started = Date.now();
  const ingest = await runCli(memory, ['ingest', file]);
  const ingestMs = Date.now() - started;
  assert.equal(ingest.code, 0, ingest.stderr);
  assert.match(ingest.stdout, new RegExp(`jsonl, ${turns} turns, ${turns} added, 0 already there`));

  // Outside the memory folder: an export inside it is refused (local-trust.test.ts).
  const out = path.join(tmpMemory('transfer-out'), 'export.json');
  const exportStarted = Date.now();
  const exported = await runCli(memory, ['export', '--out', out]);
  const exportMs = Date.now() - exportStarted;
  assert.equal(exported.code, 0, exported.stderr);

  // Read back a line at a time: the export is as big as the transcript.
  const seen = new Uint8Array(turns);
  let current = -1;
  for await (const line of readline.createInterface({ input: fs.createReadStream(out) })) {
    const text = /^ {6}"text": "turn-(\d+) /.exec(line);
    if (text) {
      current = Number(text[1]);
      seen[current]!++;
      continue;
    }
    const ref = /^ {6}"ref": "(.*)"/.exec(line);
    if (ref) assert.equal(ref[1], `line ${current + 1}`, `turn ${current} keeps the ref of its line`);
  }
  const missing = seen.findIndex((n) => n !== 1);
  assert.equal(missing, -1, `turn ${missing} seen ${seen[missing]} times`);

  process.stdout.write(
    `# ${MB} MB transcript, ${turns} turns: ingest ${(ingestMs / 1000).toFixed(0)} s (CLI peak RSS ${ingest.peakMb} MB), ` +
      `export ${(exportMs / 1000).toFixed(0)} s (CLI peak RSS ${exported.peakMb} MB)\n`,
  );
  assert.ok(ingest.peakMb < CLI_RSS_LIMIT_MB, `ingest CLI peak RSS ${ingest.peakMb} MB`);
  assert.ok(exported.peakMb < CLI_RSS_LIMIT_MB, `export CLI peak RSS ${exported.peakMb} MB`);
});

/** Distinct turns, alternating speakers, about `bytes` in all; returns how many. */
function writeTranscript(file: string, bytes: number): number {
  const filler = 'the build pipeline runs lint then tests then packaging and the release notes mention the cache layer '.repeat(18);
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let i = 0;
  let block = '';
  while (written < bytes) {
    const line = JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `turn-${i} ${i.toString(36)} ${filler}` }) + '\n';
    block += line;
    written += line.length;
    i++;
    if (block.length > 1 << 20) {
      fs.writeSync(fd, block);
      block = '';
    }
  }
  fs.writeSync(fd, block);
  fs.closeSync(fd);
  return i;
}

/** Runs the CLI, watching its high-water resident memory (Linux /proc) while it runs. */
async function runCli(memory: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  const child = track(
    spawn(process.execPath, [CLI, '--memory', memory, ...args], { env: { ...process.env, RECALL_IDLE_EXIT_MS: '120000' } }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let peakKb = 0;
  const watch = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // Exited.
    }
  }, 100);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(watch);
  return { code, stdout, stderr, peakMb: Math.round(peakKb / 1024) };
}
