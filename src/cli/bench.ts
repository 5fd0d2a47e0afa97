/**
 * `recall bench ...`: the benchmarks are a bundle of their own, dist/bench.js, kept out of this
 * one (VS Code launches dist/cli.js as the MCP server, and the VSIX leaves the benchmarks out);
 * it is loaded from beside this bundle when a benchmark is asked for.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../core/model/errors.js';
import type { BenchValues } from '../bench/main.js';

export async function runBench(args: string[], values: BenchValues, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const file = path.join(__dirname, 'bench.js');
  if (!fs.existsSync(file)) {
    throw new MemoryError(
      'unavailable',
      `The benchmarks are not in this build: ${file} is missing.`,
      'Build them from a checkout with `npm run build` (dist/bench.js).',
    );
  }
  // A path known only at run time: esbuild leaves this require alone, so the benchmarks stay out of the CLI bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const bench = require(file) as typeof import('../bench/main.js');
  return bench.runBench(args, values, out, err);
}
