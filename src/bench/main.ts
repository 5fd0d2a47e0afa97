/**
 * Entry point of dist/bench.js, the benchmarks' own bundle, kept out of dist/cli.js (which VS Code
 * launches as the MCP server): `node dist/bench.js locomo|scale ...` runs one, and `recall bench
 * ...` loads this bundle at run time (src/cli/bench.ts) and calls runBench.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { locomoSection, scaleSection, writeDocsSection } from './docs.js';
import { runLocomoBench } from './locomo.js';
import { runScaleBench } from './scale.js';
import { projectsSection, runProjectsBench } from './projects.js';
import { METHODS, type RetrievalMethod } from './ablation.js';
import { knowledge } from './knowledge-command.js';

export interface BenchValues {
  data?: string;
  k?: string;
  json?: boolean;
  episodes?: string;
  mode?: string;
  'model-path'?: string;
  /** Keep the scale bench's memory in this new folder (for other benches to run on). */
  'keep-memory'?: string;
  /** Replace the bench's section of docs/BENCHMARKS.md with what it measured. */
  'write-docs'?: boolean;
  'one-memory'?: boolean;
  without?: string;
  set?: string;
  conversations?: string;
  ranks?: boolean;
  'long-turns'?: string;
  bursts?: boolean;
  /** The knowledge bench's folds: tune (default), held or all. */
  fold?: string;
}

const USAGE = `node dist/bench.js locomo --data FILE [--k N] [--mode keyword|vector|hybrid --model-path DIR] [--one-memory] [--without METHOD,...] [--set PATH=N,...] [--conversations ID,...] [--ranks] [--long-turns N] [--bursts] [--json] [--write-docs]
node dist/bench.js scale --episodes N [--model-path DIR] [--keep-memory NEW_DIR] [--json] [--write-docs]
node dist/bench.js projects --data FILE [--json] [--write-docs]
node dist/bench.js knowledge [--data LABELS] [--fold tune|held|all] [--json] [--write-docs]`;

/** The options each suite reads; another suite's option is refused rather than ignored. */
const SUITE_OPTIONS: Readonly<Record<string, readonly (keyof BenchValues)[]>> = {
  locomo: [
    'data',
    'k',
    'mode',
    'model-path',
    'one-memory',
    'without',
    'set',
    'conversations',
    'ranks',
    'long-turns',
    'bursts',
    'json',
    'write-docs',
  ],
  scale: ['episodes', 'model-path', 'keep-memory', 'json', 'write-docs'],
  projects: ['data', 'json', 'write-docs'],
  knowledge: ['data', 'fold', 'json', 'write-docs'],
};

export async function runBench(args: string[], values: BenchValues, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const [suite] = args;
  const takes = suite !== undefined && Object.hasOwn(SUITE_OPTIONS, suite) ? SUITE_OPTIONS[suite]! : undefined;
  if (!takes) throw new Error(`bench needs a suite: ${Object.keys(SUITE_OPTIONS).join(', ')}.`);
  const every = new Set(Object.values(SUITE_OPTIONS).flat());
  for (const option of every)
    if (values[option] !== undefined && !takes.includes(option))
      throw new Error(`bench ${suite} does not take --${option} (it takes ${takes.map((o) => `--${o}`).join(', ')}).`);
  if (suite === 'scale') return scale(values, out, err);
  if (suite === 'projects') return projects(values, out, err);
  if (suite === 'knowledge') return knowledge(values, out, err);
  if (!values.data) throw new Error('bench locomo needs --data FILE (a LoCoMo JSON file, e.g. ../shared/data/locomo-dev.json).');
  const k = values.k === undefined ? 10 : Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error('--k must be a whole number >= 1.');
  const mode = values.mode ?? 'keyword';
  if (mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') throw new Error('--mode is one of keyword, vector, hybrid.');
  const without = (values.without ?? '').split(',').filter(Boolean);
  for (const m of without)
    if (!Object.hasOwn(METHODS, m)) throw new Error(`--without: no method ${m} (${Object.keys(METHODS).join(', ')}).`);
  const settings = Object.fromEntries(
    (values.set ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
  );
  const r = await runLocomoBench({
    dataFile: values.data,
    k,
    mode,
    modelPath: values['model-path'],
    log: err,
    oneMemory: values['one-memory'],
    without: without as RetrievalMethod[],
    settings,
    conversations: values.conversations?.split(','),
    ranks: values.ranks,
    longTurns: values['long-turns'] === undefined ? undefined : Number(values['long-turns']),
    bursts: values.bursts,
  });
  if (!values.json) {
    const pct = (x: number): string => x.toFixed(3);
    const variant = `${r.long_turns ? `, turns joined ${r.long_turns} at a time` : ''}${r.bursts ? ', turns sent by sentence' : ''}${r.one_memory ? ', one memory' : ''}${r.without.length ? `, without ${r.without.join(', ')}` : ''}`;
    out(`LoCoMo retrieval: ${r.questions} questions (categories 1-4), mode ${r.mode}${r.model ? `, model ${r.model}` : ''}${variant}`);
    out(`  recall@5  ${pct(r['recall@5'])}`);
    out(`  recall@10 ${pct(r['recall@10'])}`);
    out(`  query p50 ${r.query_p50_ms} ms, p95 ${r.query_p95_ms} ms`);
    for (const [conv, c] of Object.entries(r.by_conversation ?? {})) {
      out(`  ${conv}: ${c.questions} questions, recall@5 ${pct(c['recall@5'])}, recall@10 ${pct(c['recall@10'])}`);
    }
    for (const [category, b] of Object.entries(r.evidence_ranks ?? {}))
      out(
        `  category ${category} evidence turns by rank: ${Object.entries(b)
          .map(([bucket, n]) => `${bucket}: ${n}`)
          .join(', ')}`,
      );
  }
  if (values['write-docs']) {
    // An ablation or a partial run is not the recipe's figure: it is printed, never written.
    if (without.length || Object.keys(settings).length || values.conversations || values['long-turns'] || values.bursts)
      throw new Error('--write-docs is for the full recipe on every conversation.');
    const model = values['model-path'] ? ` --model-path ${values['model-path']}` : '';
    const one = values['one-memory'] ? ' --one-memory' : '';
    const command = `node dist/bench.js locomo --data ${values.data}${k === 10 ? '' : ` --k ${k}`} --mode ${mode}${model}${one}`;
    const section = `locomo-${mode}${one ? '-one-memory' : ''}`;
    writeDocsSection(section, locomoSection(r, command));
    err(`docs/BENCHMARKS.md: section ${section} written`);
  }
  // The last line is always the machine-readable result.
  out(JSON.stringify(r));
  return 0;
}

async function scale(values: BenchValues, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const episodes = Number(values.episodes);
  if (!values.episodes || !Number.isInteger(episodes) || episodes < 100 || episodes > 2_000_000) {
    throw new Error('bench scale needs --episodes N (100 to 2000000).');
  }
  // A scratch memory always: a benchmark must never write into a person's memory, so one kept
  // afterwards goes in a folder that does not exist yet.
  const keep = values['keep-memory'];
  if (keep && fs.existsSync(keep)) throw new Error(`--keep-memory ${keep}: give a folder that does not exist yet (never a memory in use).`);
  if (keep) fs.mkdirSync(keep, { recursive: true, mode: 0o700 });
  const r = await runScaleBench({
    episodes,
    memory: keep,
    modelPath: values['model-path'],
    serviceScript: path.join(__dirname, 'service.js'),
    log: err,
  });
  if (!values.json) {
    const ms = (p50: number | null, p95: number | null): string => (p50 === null ? 'not measured' : `p50 ${p50} ms, p95 ${p95} ms`);
    out(`Scale: ${r.episodes} episodes`);
    out(`  ingest      ${r.ingest_per_s} episodes/s`);
    out(`  keyword     ${ms(r.keyword_p50_ms, r.keyword_p95_ms)}`);
    out(`  vector      ${ms(r.vector_p50_ms, r.vector_p95_ms)}`);
    out(`  hybrid      ${ms(r.hybrid_p50_ms, r.hybrid_p95_ms)}`);
    out(`  vector search ${r.vector_search}`);
    out(
      `  service RSS ${r.service_rss_mb} MB (peak ${r.service_peak_rss_mb} MB); snapshot ${r.snapshot_mb} MB; cold start ${r.cold_start_ms} ms`,
    );
    for (const note of r.notes) out(`  note: ${note}`);
  }
  if (values['write-docs']) {
    const model = values['model-path'] ? ` --model-path ${values['model-path']}` : '';
    writeDocsSection('scale', scaleSection(r, `node dist/bench.js scale --episodes ${episodes}${model}`));
    err('docs/BENCHMARKS.md: section scale written');
  }
  out(JSON.stringify(r));
  return 0;
}

async function projects(values: BenchValues, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  if (!values.data) throw new Error('bench projects needs --data FILE (a LoCoMo JSON file: each conversation is one project).');
  const r = await runProjectsBench({ dataFile: values.data, log: err });
  if (!values.json) {
    out(`Projects: ${r.projects} projects, ${r.episodes} turns, ${r.questions} questions (keyword mode)`);
    for (const [name, f] of [
      ['before (scope all)', r.before],
      ['after (scope project)', r.after],
    ] as const) {
      out(
        `  ${name}: top-5 from another project ${f.wrong_project_top5}, questions with any ${f.questions_with_bleed}, recall@10 ${f['recall@10']}, p50 ${f.query_p50_ms} ms`,
      );
    }
  }
  if (values['write-docs']) {
    writeDocsSection('projects', projectsSection(r, `node dist/bench.js projects --data ${values.data}`));
    err('docs/BENCHMARKS.md: section projects written');
  }
  out(JSON.stringify(r));
  return 0;
}

if (require.main === module) {
  const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : s + '\n');
  const err = (s: string): void => void process.stderr.write(s.endsWith('\n') ? s : s + '\n');
  Promise.resolve()
    .then(() => {
      const { values, positionals } = parseArgs({
        options: {
          data: { type: 'string' },
          k: { type: 'string' },
          json: { type: 'boolean' },
          episodes: { type: 'string' },
          mode: { type: 'string' },
          'model-path': { type: 'string' },
          'keep-memory': { type: 'string' },
          'write-docs': { type: 'boolean' },
          'one-memory': { type: 'boolean' },
          without: { type: 'string' },
          set: { type: 'string' },
          conversations: { type: 'string' },
          ranks: { type: 'boolean' },
          'long-turns': { type: 'string' },
          bursts: { type: 'boolean' },
          fold: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        allowPositionals: true,
        strict: true,
      });
      if (values.help || positionals.length === 0) {
        out(USAGE);
        return values.help ? 0 : 2;
      }
      return runBench(positionals, values, out, err);
    })
    .then(
      // exitCode, not exit(): exit() can cut off a large piped stdout mid-write.
      (code) => (process.exitCode = code),
      (e: unknown) => {
        err(`bench: ${(e as Error).message ?? e}\n${USAGE}`);
        process.exitCode = 1;
      },
    );
}
