/**
 * Memories bleeding across projects: every LoCoMo conversation becomes one project of a single
 * shared memory, and each answerable question (categories 1-4) is asked twice, as the service
 * asks it (VectorChannel.query, keyword mode): over every project (scope all, as before projects
 * existed) and within the question's own project plus the global memory (scope project, the
 * default). Reported: the share of top-5 episodes from another project, and recall@10 of the
 * question's evidence turns, each way.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../core/memory/memory.js';
import { parseLocomo } from '../core/ingest/locomo.js';
import { VectorChannel } from '../service/embeddings/vector-channel.js';
import { runContext } from './docs.js';

const ANSWERABLE = new Set([1, 2, 3, 4]);

export interface ProjectsBenchOptions {
  dataFile: string;
  log?: (msg: string) => void;
}

export interface ScopeFigures {
  /** Share of the top-5 episodes (over all questions) that come from another project. */
  wrong_project_top5: number;
  /** Share of questions whose top 5 hold any episode of another project. */
  questions_with_bleed: number;
  'recall@10': number;
  query_p50_ms: number;
}

export interface ProjectsBenchResult {
  projects: number;
  episodes: number;
  questions: number;
  before: ScopeFigures;
  after: ScopeFigures;
}

export async function runProjectsBench(opts: ProjectsBenchOptions): Promise<ProjectsBenchResult> {
  const log = opts.log ?? (() => {});
  const source = path.basename(opts.dataFile);
  const conversations = parseLocomo(JSON.parse(fs.readFileSync(opts.dataFile, 'utf8')), source);
  if (conversations.length < 2)
    throw new Error(`${opts.dataFile} holds ${conversations.length} conversation(s); the bench needs two or more.`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-projects-'));
  try {
    const memory = await Memory.open(folder);
    const things = { ids: memory.embeddingIds.bind(memory), texts: memory.embeddingTexts.bind(memory) };
    const vectors = new VectorChannel(folder, { enabled: false }, things, log);
    try {
      let episodes = 0;
      for (const conv of conversations) {
        // Each conversation's own source and project, as if each came from another workspace.
        const project = `locomo/${conv.id}`;
        memory.ingest(
          conv.episodes.map((e) => ({ ...e, project, source: `${source}#${conv.id}` })),
          { authority: 'user', source },
        );
        episodes += conv.episodes.length;
      }
      log(`${conversations.length} projects, ${episodes} turns in one memory`);
      const runs = { before: new Tally(), after: new Tally() };
      let questions = 0;
      for (const conv of conversations) {
        const project = `locomo/${conv.id}`;
        for (const qa of conv.qa) {
          if (!ANSWERABLE.has(qa.category) || qa.evidence.length === 0 || !qa.question.trim()) continue;
          questions++;
          for (const [name, scope] of [
            ['before', 'all'],
            ['after', 'project'],
          ] as const) {
            const t0 = performance.now();
            const r = await vectors.query(memory, { query: qa.question, limit: 10, mode: 'keyword', project, scope });
            runs[name].add(performance.now() - t0, r.episodes, project, qa.evidence);
          }
        }
      }
      return { projects: conversations.length, episodes, questions, before: runs.before.figures(), after: runs.after.figures() };
    } finally {
      vectors.close();
      memory.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

class Tally {
  private top5 = 0;
  private wrong = 0;
  private bled = 0;
  private recall = 0;
  private questions = 0;
  private readonly timings: number[] = [];

  add(ms: number, episodes: { ref: string | null; project?: string | null }[], project: string, evidence: string[]): void {
    this.timings.push(ms);
    this.questions++;
    const top = episodes.slice(0, 5);
    const wrong = top.filter((e) => e.project !== project && e.project !== null).length;
    this.top5 += top.length;
    this.wrong += wrong;
    if (wrong > 0) this.bled++;
    // Evidence refs (dia_ids) repeat across conversations: only this project's turns count.
    const refs = episodes
      .slice(0, 10)
      .filter((e) => e.project === project)
      .map((e) => e.ref);
    this.recall += evidence.filter((ev) => refs.includes(ev)).length / evidence.length;
  }

  figures(): ScopeFigures {
    const sorted = [...this.timings].sort((a, b) => a - b);
    const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
    return {
      wrong_project_top5: r4(this.top5 ? this.wrong / this.top5 : 0),
      questions_with_bleed: r4(this.questions ? this.bled / this.questions : 0),
      'recall@10': r4(this.questions ? this.recall / this.questions : 0),
      query_p50_ms: Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 100) / 100,
    };
  }
}

/** The docs/BENCHMARKS.md section (docs.ts writes it between its markers). */
export function projectsSection(r: ProjectsBenchResult, command: string): string {
  const row = (name: string, f: ScopeFigures): string =>
    `| ${name} | ${f.wrong_project_top5.toFixed(3)} | ${f.questions_with_bleed.toFixed(3)} | ${f['recall@10'].toFixed(3)} | ${f.query_p50_ms} ms |`;
  return [
    `### Projects: ${r.projects} LoCoMo conversations as projects of one memory, keyword mode`,
    runContext(command),
    `${r.episodes} turns, ${r.questions} questions (categories 1-4), each asked from its own conversation's project.`,
    [
      '| scope | top-5 episodes from another project | questions with any | recall@10 (own project) | query p50 |',
      '|---|---|---|---|---|',
      row('before: all projects', r.before),
      row('after: project + global (default)', r.after),
    ].join('\n'),
  ].join('\n\n');
}
