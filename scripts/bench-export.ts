/**
 * Measures `Memory.export` in-process: N synthetic coding turns (src/bench/synthetic.ts, with the
 * entities they mention), exported three times; prints each time and a hash of the episodes, so
 * two builds can be compared for speed and for the same output.
 *
 *   node --import tsx scripts/bench-export.ts [--episodes 20000]
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Memory } from '../src/core/memory/memory';
import { syntheticEpisodes } from '../src/bench/synthetic';

const { values } = parseArgs({ options: { episodes: { type: 'string' } } });
const n = Number(values.episodes ?? 20_000);

async function main(): Promise<void> {
  const episodes = syntheticEpisodes(n);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-export-bench-'));
  const memory = await Memory.open(folder);
  try {
    for (let i = 0; i < episodes.length; i += 1000) memory.ingest(episodes.slice(i, i + 1000), { authority: 'agent', source: 'bench' });
    for (let run = 1; run <= 3; run++) {
      const t0 = performance.now();
      const out = memory.export();
      const ms = performance.now() - t0;
      const mentions = out.episodes.reduce((sum, e) => sum + e.entities.length, 0);
      const hash = createHash('sha256').update(JSON.stringify(out.episodes)).digest('hex').slice(0, 16);
      console.log(`export of ${out.episodes.length} episodes (${mentions} mentions): ${ms.toFixed(0)} ms; episodes sha256 ${hash}`);
    }
  } finally {
    memory.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
