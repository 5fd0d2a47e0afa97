/** `recall bench ...`: benchmarks that print figures. */
import * as path from 'node:path';
import { runLocomoBench } from '../bench/locomo.js';
import { runScaleBench } from '../bench/scale.js';

export async function runBench(
  args: string[],
  values: { data?: string; k?: string; json?: boolean; episodes?: string; mode?: string; 'model-path'?: string },
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const [suite] = args;
  if (suite === 'scale') return scale(values, out, err);
  if (suite !== 'locomo') throw new Error('bench needs a suite: locomo or scale.');
  if (!values.data) throw new Error('bench locomo needs --data FILE (a LoCoMo JSON file, e.g. ../shared/data/locomo-dev.json).');
  const k = values.k === undefined ? 10 : Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error('--k must be a whole number >= 1.');
  const mode = values.mode ?? 'keyword';
  if (mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') throw new Error('--mode is one of keyword, vector, hybrid.');
  const r = await runLocomoBench({ dataFile: values.data, k, mode, modelPath: values['model-path'], log: err });
  if (!values.json) {
    const pct = (x: number): string => x.toFixed(3);
    out(`LoCoMo retrieval: ${r.questions} questions (categories 1-4), mode ${r.mode}${r.model ? `, model ${r.model}` : ''}`);
    out(`  recall@5  ${pct(r['recall@5'])}`);
    out(`  recall@10 ${pct(r['recall@10'])}`);
    out(`  query p50 ${r.query_p50_ms} ms, p95 ${r.query_p95_ms} ms`);
    for (const [conv, c] of Object.entries(r.by_conversation ?? {})) {
      out(`  ${conv}: ${c.questions} questions, recall@5 ${pct(c['recall@5'])}, recall@10 ${pct(c['recall@10'])}`);
    }
  }
  // The last line is always the machine-readable result.
  out(JSON.stringify(r));
  return 0;
}

async function scale(values: { episodes?: string; json?: boolean; 'model-path'?: string }, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const episodes = Number(values.episodes);
  if (!values.episodes || !Number.isInteger(episodes) || episodes < 100 || episodes > 2_000_000) {
    throw new Error('bench scale needs --episodes N (100 to 2000000).');
  }
  // A scratch memory always: a benchmark must never write into a person's memory.
  const r = await runScaleBench({ episodes, modelPath: values['model-path'], serviceScript: path.join(__dirname, 'service.js'), log: err });
  if (!values.json) {
    const ms = (p50: number | null, p95: number | null): string => (p50 === null ? 'not measured' : `p50 ${p50} ms, p95 ${p95} ms`);
    out(`Scale: ${r.episodes} episodes`);
    out(`  ingest      ${r.ingest_per_s} episodes/s`);
    out(`  keyword     ${ms(r.keyword_p50_ms, r.keyword_p95_ms)}`);
    out(`  vector      ${ms(r.vector_p50_ms, r.vector_p95_ms)}`);
    out(`  hybrid      ${ms(r.hybrid_p50_ms, r.hybrid_p95_ms)}`);
    out(`  vector search ${r.vector_search}`);
    out(`  service RSS ${r.service_rss_mb} MB (peak ${r.service_peak_rss_mb} MB); snapshot ${r.snapshot_mb} MB; cold start ${r.cold_start_ms} ms`);
    for (const note of r.notes) out(`  note: ${note}`);
  }
  out(JSON.stringify(r));
  return 0;
}
