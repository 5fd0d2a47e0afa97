/**
 * How long a request can wait behind a snapshot during a bulk ingest: one client ingests N turns
 * (default 30000, ~2 KB each) in back-to-back batches of 500, as `recall ingest` does, while a
 * second client pings every 50 ms. Prints the worst and 99th-percentile ping and ingest-call
 * latencies and the snapshots the service logged meanwhile.
 * usage: node --import tsx scripts/faults/snapshot-latency.ts [N] [path/to/service.js]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryClient } from '../../src/service/rpc/client';

const FILLER = 'the build pipeline runs lint then tests then packaging and the release notes mention the cache layer '.repeat(18);

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 30_000);
  const serviceScript = path.resolve(process.argv[3] ?? path.join(__dirname, '..', '..', 'dist', 'service.js'));
  const memory = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-snapshot-latency-'));
  const connect = (): Promise<MemoryClient> => MemoryClient.connect({ memory, surface: 'cli', serviceScript });
  const writer = await connect();
  const pinger = await connect();
  const pings: number[] = [];
  const calls: number[] = [];
  let writing = true;
  const pingLoop = (async () => {
    while (writing) {
      const t = performance.now();
      await pinger.call('ping', {});
      pings.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const started = performance.now();
  for (let i = 0; i < n; i += 500) {
    const episodes = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({ text: `turn-${i + j} ${FILLER}`, role: 'user' }));
    const t = performance.now();
    await writer.call('ingest', { episodes });
    calls.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  writing = false;
  await pingLoop;
  const status = await writer.call('status', {});
  await writer.call('shutdown', {}).catch(() => undefined);
  writer.close();
  pinger.close();
  const snapshots = fs
    .readFileSync(path.join(memory, 'service.log'), 'utf8')
    .split('\n')
    .filter((l) => / snapshot: /.test(l))
    .map((l) => / in (\d+) ms/.exec(l)?.[1] + ' ms');
  const p = (xs: number[], q: number): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] ?? 0);
  console.log(
    JSON.stringify({
      turns: n,
      ingest_s: Math.round(seconds),
      journal_mb: Math.round(status.journal_bytes / 1e6),
      snapshots_during_and_after: snapshots,
      ping_ms: { count: pings.length, p99: p(pings, 0.99), max: p(pings, 1) },
      ingest_call_ms: { count: calls.length, p50: p(calls, 0.5), max: p(calls, 1) },
    }),
  );
  fs.rmSync(memory, { recursive: true, force: true });
}

void main();
