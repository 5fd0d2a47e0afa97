/** `recall bench ...`: benchmarks that print figures. */
import { runLocomoBench } from '../bench/locomo.js';

export async function runBench(
  args: string[],
  values: { data?: string; k?: string; json?: boolean },
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const [suite] = args;
  if (suite !== 'locomo') throw new Error('bench needs a suite: locomo.');
  if (!values.data) throw new Error('bench locomo needs --data FILE (a LoCoMo JSON file, e.g. ../shared/data/locomo-dev.json).');
  const k = values.k === undefined ? 10 : Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error('--k must be a whole number >= 1.');
  const r = await runLocomoBench({ dataFile: values.data, k, log: err });
  if (!values.json) {
    const pct = (x: number): string => x.toFixed(3);
    out(`LoCoMo retrieval: ${r.questions} questions (categories 1-4)`);
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
