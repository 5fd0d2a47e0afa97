/**
 * Measures what searching long turns by passage costs (store/passages.ts, recipe `passages`):
 * a memory of synthetic coding turns (src/bench/synthetic.ts) where every 4th turn is a long
 * answer (its text and the next five turns' texts, over 100 words), in-process; the same
 * questions asked with the method on and off, interleaved so the machine's phase hits both alike.
 *
 *   node --import tsx scripts/bench-passages.ts [--episodes 20000] [--queries 300]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Memory } from '../src/core/memory/memory';
import { percentile } from '../src/bench/percentile';
import { syntheticEpisodes, syntheticQueries } from '../src/bench/synthetic';
import { KEYWORD_RECIPE, withoutMethods } from '../src/core/retrieval/recipes';

const PASSAGES = KEYWORD_RECIPE.passages;

const { values } = parseArgs({ options: { episodes: { type: 'string' }, queries: { type: 'string' } } });
const n = Number(values.episodes ?? 20_000);
const queries = Number(values.queries ?? 300);

const base = syntheticEpisodes(n);
const episodes = base.map((e, i) =>
  i % 4 === 0
    ? {
        ...e,
        text: base
          .slice(i, i + 6)
          .map((x) => x.text)
          .join('\n'),
      }
    : e,
);
const long = episodes.filter((e) => e.text.split(/\s+/).length > PASSAGES.minWords).length;

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-passages-bench-'));
  const memory = await Memory.open(folder);
  try {
    const started = performance.now();
    for (let i = 0; i < episodes.length; i += 1000) memory.ingest(episodes.slice(i, i + 1000), { authority: 'agent', source: 'bench' });
    const ingestPerS = Math.round(n / ((performance.now() - started) / 1000));
    while (!memory.compactIndex(1000)) {
      /* merge the index segments, as the idle service does */
    }
    memory.snapshot();
    const snapshotMb = (memory.status().snapshot_bytes / 1e6).toFixed(1);
    const longTextMb = (
      episodes.filter((e) => e.text.split(/\s+/).length > PASSAGES.minWords).reduce((b, e) => b + e.text.length, 0) / 1e6
    ).toFixed(1);
    const recipes = { on: KEYWORD_RECIPE, off: withoutMethods(KEYWORD_RECIPE, ['passages']) };
    const times: Record<keyof typeof recipes, number[]> = { on: [], off: [] };
    for (const query of syntheticQueries(base, queries)) {
      for (const key of ['on', 'off'] as const) {
        const t0 = performance.now();
        memory.query({ query, limit: 10, mode: 'keyword' }, recipes[key]);
        times[key].push(performance.now() - t0);
      }
    }
    const pct = (xs: number[], p: number): string => percentile(xs, p).toFixed(1);
    console.log(`${n} turns, ${long} of them long (over ${PASSAGES.minWords} words); ingest ${ingestPerS} turns/s`);
    console.log(`snapshot ${snapshotMb} MB (the long turns' text: ${longTextMb} MB)`);
    for (const key of ['on', 'off'] as const)
      console.log(`passages ${key}: keyword query p50 ${pct(times[key], 0.5)} ms, p95 ${pct(times[key], 0.95)} ms`);
  } finally {
    memory.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
