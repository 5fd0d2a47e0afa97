/**
 * `--write-docs`: a bench replaces its own section of docs/BENCHMARKS.md (between
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`) with what it measured, the command that
 * measures it again, the date and the machine, so the figures in the docs are always a run's.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { LocomoBenchResult } from './locomo.js';
import type { ScaleBenchResult } from './scale.js';

/** Relative to the repository root, where the npm scripts run. */
export const BENCHMARKS_DOC = 'docs/BENCHMARKS.md';

/** The document with section `name` replaced by `body` (added at the end when it has none). */
export function replaceSection(doc: string, name: string, body: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const section = `${open}\n${body.trim()}\n${close}`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close, start);
  if (start < 0 || end < 0) return `${doc.trimEnd()}\n\n${section}\n`;
  return doc.slice(0, start) + section + doc.slice(end + close.length);
}

export function writeDocsSection(name: string, body: string, file = BENCHMARKS_DOC): void {
  if (!fs.existsSync(file)) throw new Error(`--write-docs: there is no ${file} here; run the bench from the repository root.`);
  fs.writeFileSync(file, replaceSection(fs.readFileSync(file, 'utf8'), name, body));
}

/** When and where a figure was measured: the date, the cores and their model, memory, Node. */
export function runContext(command: string): string {
  const cpus = os.cpus();
  const machine = `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${machine} with:\n\n\`\`\`\n${command}\n\`\`\``;
}

const table = (head: string[], rows: (string | number)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const recall = (x: number | undefined): string => (x === undefined ? '' : x.toFixed(3));

export function locomoSection(r: LocomoBenchResult, command: string): string {
  const cutoffs = [...new Set([5, 10, r.k])].sort((a, b) => a - b);
  const head = ['', 'questions', ...cutoffs.map((c) => `recall@${c}`)];
  const row = (name: string, f: LocomoBenchResult['by_category'][string]): (string | number)[] => [
    name,
    f.questions,
    ...cutoffs.map((c) => recall(f[`recall@${c}`])),
  ];
  return [
    `### LoCoMo retrieval, ${r.mode} mode${r.one_memory ? ', every conversation in one memory' : ''}${r.model ? ` (model ${r.model})` : ''}`,
    runContext(command),
    table(head, [row('all', r), ...Object.entries(r.by_category).map(([c, f]) => row(`category ${c}`, f))]),
    table(
      head,
      Object.entries(r.by_conversation).map(([c, f]) => row(c, f)),
    ),
    table(
      ['query p50', 'query p95', 'ingest (all conversations)', 'skipped (no evidence turn)'],
      [[`${r.query_p50_ms} ms`, `${r.query_p95_ms} ms`, `${r.ingest_ms} ms`, r.skipped]],
    ),
  ].join('\n\n');
}

export function scaleSection(r: ScaleBenchResult, command: string): string {
  const ms = (p50: number | null, p95: number | null): string => (p50 === null ? 'not measured' : `${p50} / ${p95} ms`);
  return [
    `### Scale: ${r.episodes} synthetic episodes through the memory service`,
    runContext(command),
    table(
      ['measure', 'value'],
      [
        ['ingest', `${r.ingest_per_s} episodes/s`],
        ['keyword query p50 / p95', ms(r.keyword_p50_ms, r.keyword_p95_ms)],
        ['vector query p50 / p95', ms(r.vector_p50_ms, r.vector_p95_ms)],
        ['hybrid query p50 / p95', ms(r.hybrid_p50_ms, r.hybrid_p95_ms)],
        ['vector search', r.vector_search],
        ['service RSS after the queries', `${r.service_rss_mb} MB`],
        ['service peak RSS', `${r.service_peak_rss_mb} MB`],
        ['snapshot', `${r.snapshot_mb} MB`],
        ['cold start (service start to first answer)', `${r.cold_start_ms} ms`],
      ],
    ),
    ...r.notes.map((n) => `Note: ${n}.`),
  ].join('\n\n');
}
