/**
 * Measures what a date in the question costs (retrieve.ts: the dated boost, and the keyword
 * matches of the date's own days fetched for it): synthetic coding turns (src/bench/synthetic.ts)
 * in-process, each question ending "on <a day the memory spans>", asked with the dated boost on and
 * off (`boosts.dated` 0 also skips the fetch), interleaved so the machine's phase hits both alike.
 *
 *   node --import tsx scripts/bench-dates.ts [--episodes 100000] [--queries 300]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Memory } from '../src/core/memory/memory';
import { percentile } from '../src/bench/percentile';
import { syntheticEpisodes, syntheticQueries } from '../src/bench/synthetic';
import { KEYWORD_RECIPE, withSettings } from '../src/core/retrieval/recipes';

const { values } = parseArgs({ options: { episodes: { type: 'string' }, queries: { type: 'string' } } });
const n = Number(values.episodes ?? 100_000);
const queries = Number(values.queries ?? 300);

async function main(): Promise<void> {
  const episodes = syntheticEpisodes(n);
  const first = Date.parse(episodes[0]!.time);
  const span = Date.parse(episodes[episodes.length - 1]!.time) - first;
  // Days spread over the memory's whole span, written as people write them ("on 2 January, 2024").
  const questions = syntheticQueries(episodes, queries).map((q, i) => {
    const day = new Date(first + (((i * 7919) % 100) / 100) * span);
    const month = day.toLocaleString('en', { month: 'long', timeZone: 'UTC' });
    return `${q.replace(/\?$/, '')} on ${day.getUTCDate()} ${month}, ${day.getUTCFullYear()}?`;
  });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-dates-bench-'));
  const memory = await Memory.open(folder);
  try {
    for (let i = 0; i < episodes.length; i += 1000) memory.ingest(episodes.slice(i, i + 1000), { authority: 'agent', source: 'bench' });
    const recipes = { on: KEYWORD_RECIPE, off: withSettings(KEYWORD_RECIPE, { 'boosts.dated': 0 }) };
    const times: Record<keyof typeof recipes, number[]> = { on: [], off: [] };
    for (const [i, query] of [...questions, ...questions].entries()) {
      for (const key of ['on', 'off'] as const) {
        const t0 = performance.now();
        memory.query({ query, limit: 10, mode: 'keyword' }, recipes[key]);
        // The first pass warms the caches (each word's rows are counted once): only the second counts.
        if (i >= questions.length) times[key].push(performance.now() - t0);
      }
    }
    const pct = (xs: number[], p: number): string => percentile(xs, p).toFixed(1);
    console.log(`${n} turns over ${(span / 864e5).toFixed(0)} days; ${queries} questions naming a day, e.g. "${questions[0]}"`);
    for (const key of ['on', 'off'] as const)
      console.log(`dated boost ${key}: keyword query p50 ${pct(times[key], 0.5)} ms, p95 ${pct(times[key], 0.95)} ms`);
  } finally {
    memory.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
