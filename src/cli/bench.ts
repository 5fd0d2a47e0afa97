/** `recall bench ...`: benchmarks that print figures. */
import { parseArgs } from 'node:util';
import { runLocomoBench } from '../bench/locomo.js';

export async function runBench(
  args: string[],
  values: { data?: string; k?: string; json?: boolean },
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  void parseArgs;
  const [suite] = args;
  if (suite !== 'locomo') throw new Error('bench needs a suite: locomo.');
  if (!values.data) throw new Error('bench locomo needs --data FILE (a LoCoMo JSON file, e.g. ../shared/data/locomo-dev.json).');
  const k = values.k === undefined ? 10 : Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error('--k must be a whole number >= 1.');
  const result = await runLocomoBench({ dataFile: values.data, k, log: err });
  out(JSON.stringify(result));
  return 0;
}
