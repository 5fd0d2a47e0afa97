/**
 * Team sync throughput and lag against a real PostgreSQL the script starts (test/sync/postgres.ts):
 *
 *   node --import tsx scripts/bench-sync.ts [--sizes 10000,100000] [--lag 200] [--write-docs]
 *
 * For each size N: machine A stores N episodes while the server is down (its backlog grows in the
 * journal); the server starts and A pushes it (events/s pushed); a fresh machine B then pulls and
 * applies everything (events/s pulled). Lag: with both live, A writes notes one at a time and B
 * notes when each reaches it (B's 'changed' notification, then a read); p50/p95 of the delay.
 * Needs `npm run build` first (the services are dist/service.js).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryClient } from '../src/service/rpc/client';
import { findPgBin, startPostgres } from '../test/sync/postgres';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const sizes = opt('sizes', '10000').split(',').map(Number);
const lagNotes = Number(opt('lag', '200'));
const ROOT = path.resolve(__dirname, '..');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function until(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}

async function main(): Promise<void> {
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL found (apt-get install postgresql, or RECALL_PG_BIN)');
  const pg = await startPostgres(bin);
  const dirs: string[] = [];
  const clients: MemoryClient[] = [];
  const rows: string[] = [];
  try {
    for (const n of sizes) {
      const table = `bench_${n}`;
      const share = (dir: string, tag: string): void =>
        fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ sync: { postgres: pg.url, author: `${tag}@bench`, table } }));
      const machine = async (tag: string, shared = true): Promise<{ dir: string; c: MemoryClient }> => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), `recall-bench-sync-${tag}-`));
        dirs.push(dir);
        if (shared) share(dir, tag);
        const c = await MemoryClient.connect({ memory: dir, surface: 'mcp', serviceScript: path.join(ROOT, 'dist/service.js') });
        clients.push(c);
        return { dir, c };
      };
      const first = await machine('a', false);
      let a = first.c;
      for (let i = 0; i < n; i += 500) {
        const episodes = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
          text: `note ${i + j}: the ingest worker retries a failed upload after ${j % 7} seconds`,
        }));
        await a.call('ingest', { episodes });
      }
      // A's backlog: N episodes stored before it shared; the service restarts sharing and pushes them.
      await a.call('shutdown', {});
      a.close();
      share(first.dir, 'a');
      let t = Date.now();
      a = await MemoryClient.connect({ memory: first.dir, surface: 'mcp', serviceScript: path.join(ROOT, 'dist/service.js') });
      clients.push(a);
      await until(
        async () =>
          (await a.call('status', {})).sync?.pushed_seq !== undefined &&
          (await a.call('status', {})).sync!.pushed_seq > 0 &&
          (await a.call('status', {})).sync!.backlog === 0,
        30 * 60_000,
        'A pushed',
      );
      // Every event in A's journal is its own: the last one pushed is how many there are.
      const events = (await a.call('status', {})).sync!.pushed_seq;
      const pushSeconds = (Date.now() - t) / 1000;
      t = Date.now();
      const b = (await machine('b')).c;
      await until(async () => (await b.call('status', {})).episodes === n, 60 * 60_000, 'B pulled');
      const pullSeconds = (Date.now() - t) / 1000;
      // Lag between two live services: A's acknowledged write to B holding it.
      const written = new Map<string, number>();
      const lags: number[] = [];
      b.onChanged(() => {
        void b.call('episodes', { limit: 50 }).then((eps) => {
          for (const e of eps) {
            const at = written.get(e.text);
            if (at !== undefined) {
              lags.push(Date.now() - at);
              written.delete(e.text);
            }
          }
        });
      });
      for (let i = 0; i < lagNotes; i++) {
        const text = `lagprobe ${i} for the sync benchmark`;
        written.set(text, Date.now());
        await a.call('remember', { text });
        await sleep(50);
      }
      await until(async () => written.size === 0, 60_000, 'every lag probe at B').catch(() => {});
      rows.push(
        `| ${n.toLocaleString('en')} | ${events} | ${pushSeconds.toFixed(1)} s (${Math.round(n / pushSeconds).toLocaleString('en')}/s) | ${pullSeconds.toFixed(1)} s (${Math.round(n / pullSeconds).toLocaleString('en')}/s) | ${pct(lags, 50)} ms | ${pct(lags, 95)} ms | ${lags.length}/${lagNotes} |`,
      );
      process.stderr.write(rows[rows.length - 1] + '\n');
    }
  } finally {
    for (const c of clients) {
      await c.call('shutdown', {}).catch(() => {});
      c.close();
    }
    await sleep(500);
    pg.destroy();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
  const section = [
    `\`node --import tsx scripts/bench-sync.ts --sizes ${sizes.join(',')} --lag ${lagNotes}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), PostgreSQL on loopback, ${new Date().toISOString().slice(0, 10)}.`,
    'A stores N episodes (ingest batches of 500, offline extractor on: one episodes event a batch plus entity and fact events) before it shares; push: from',
    'restarting its service with sync on to an empty backlog. Pull: a fresh memory B from its start to holding all N (applied, indexed). Both include a service start.',
    "Lag: A writes one note every 50 ms; from A's request to B's read after its 'changed' notification.",
    '',
    '| episodes | journal events | push (episodes/s) | pull + apply (episodes/s) | lag p50 | lag p95 | probes seen |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(section + '\n');
  if (args.includes('--write-docs')) {
    const file = path.join(ROOT, 'docs/BENCHMARKS.md');
    const doc = fs.readFileSync(file, 'utf8');
    const block = `<!-- bench:sync -->\n${section}\n<!-- /bench:sync -->`;
    const re = /<!-- bench:sync -->[\s\S]*?<!-- \/bench:sync -->/;
    fs.writeFileSync(file, re.test(doc) ? doc.replace(re, block) : `${doc.trimEnd()}\n\n## Team sync (PostgreSQL)\n\n${block}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`bench-sync failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
