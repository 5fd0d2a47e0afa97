/**
 * LoCoMo retrieval benchmark: each conversation goes into its own fresh memory, every answerable
 * question (categories 1-4; 5 is adversarial, with no answer in the conversation) is asked as the
 * memory service asks it (VectorChannel.query: the mode's recipe, keyword and graph half, vector
 * hits of every kind fused in), and recall@k is the share of the question's evidence turns among
 * the top k episodes, averaged over questions.
 *
 * `mode` vector or hybrid runs the service's vector channel on the given model: every turn,
 * entity and fact is embedded (in the model's worker thread) before the questions are asked; a
 * question's time then includes embedding it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory, type EmbeddedKind } from '../core/memory/memory.js';
import { parseLocomo, type LocomoConversation } from '../core/ingest/locomo.js';
import { recipeFor, type RetrievalMode, type RetrievalRecipe } from '../core/retrieval/recipe.js';
import { withSettings, withoutMethods, type RetrievalMethod } from './ablation.js';
import { VectorChannel } from '../service/embeddings/vector-channel.js';
import { joinTurns } from './long-turns.js';
import { splitTurns } from './bursts.js';
import { percentile } from './percentile.js';

export interface LocomoBenchOptions {
  dataFile: string;
  /** Also report recall@k (recall@5 and recall@10 are always reported). */
  k?: number;
  /** Progress lines (the CLI sends them to stderr). */
  log?: (msg: string) => void;
  /** Only these conversation ids (all when absent). */
  conversations?: string[];
  /** Retrieval channels (default keyword: BM25 + graph). vector and hybrid need `modelPath`. */
  mode?: RetrievalMode;
  /** A local embedding model folder (transformers.js layout); the model runs in the service's worker (dist/embed-worker.js). */
  modelPath?: string;
  /** Every conversation in one memory (a crowded memory), instead of one memory each. */
  oneMemory?: boolean;
  /** Retrieval methods switched off (ablation.ts METHODS): an ablation. */
  without?: RetrievalMethod[];
  /** Numeric recipe settings replaced by path (ablation.ts withSettings). */
  settings?: Record<string, number>;
  /** Also ask each question for 50 episodes and count where its evidence turns rank (evidence_ranks). */
  ranks?: boolean;
  /** Each session's turns joined this many at a time into one long turn (long-turns.ts). */
  longTurns?: number;
  /** In every other session each turn is sent as its sentences, one message each (bursts.ts). */
  bursts?: boolean;
}

/** Where evidence turns rank when 50 episodes are asked for: `1-10`, `11-20`, `21-50` or `none` (not in the 50). */
export type RankBuckets = Record<'1-10' | '11-20' | '21-50' | 'none', number>;

export interface RecallFigures {
  questions: number;
  'recall@5': number;
  'recall@10': number;
  /** recall at the k asked for, when k is neither 5 nor 10. */
  [key: `recall@${number}`]: number;
}

export interface LocomoBenchResult extends RecallFigures {
  k: number;
  /** Turns joined into one (--long-turns), or null. */
  long_turns: number | null;
  /** Turns sent by sentence in every other session (--bursts). */
  bursts: boolean;
  mode: RetrievalMode;
  one_memory: boolean;
  without: RetrievalMethod[];
  /** The embedding model, for vector and hybrid. */
  model: string | null;
  /** Vectors of each kind the questions were searched against, over every conversation (vector and hybrid). */
  vectors_by_kind: Record<EmbeddedKind, number> | null;
  /** Answerable questions left out because none of their evidence ids names a turn. */
  skipped: number;
  query_p50_ms: number;
  query_p95_ms: number;
  ingest_ms: number;
  by_category: Record<string, RecallFigures>;
  by_conversation: Record<string, RecallFigures & { episodes: number }>;
  /** Evidence turns by category and rank bucket, when `ranks` was asked for. */
  evidence_ranks: Record<string, RankBuckets> | null;
}

const ANSWERABLE = new Set([1, 2, 3, 4]);

export async function runLocomoBench(opts: LocomoBenchOptions): Promise<LocomoBenchResult> {
  const k = opts.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 50) throw new Error(`k must be a whole number from 1 to 50, got ${k}.`);
  const log = opts.log ?? (() => {});
  const source = path.basename(opts.dataFile);
  let conversations = parseLocomo(JSON.parse(fs.readFileSync(opts.dataFile, 'utf8')), source);
  if (opts.conversations) conversations = conversations.filter((c) => opts.conversations!.includes(c.id));
  if (opts.longTurns !== undefined) conversations = conversations.map((c) => joinTurns(c, opts.longTurns!));
  if (opts.bursts) conversations = conversations.map(splitTurns);
  const cutoffs = [...new Set([5, 10, k])].sort((a, b) => a - b);
  const mode = opts.mode ?? 'keyword';
  if (mode !== 'keyword' && !opts.modelPath) throw new Error(`--mode ${mode} needs an embedding model: --model-path DIR.`);
  const modelPath = mode === 'keyword' ? undefined : path.resolve(opts.modelPath!);
  let model: string | null = null;
  let vectorsByKind: LocomoBenchResult['vectors_by_kind'] = null;

  const all: Scored[] = [];
  const byConversation: LocomoBenchResult['by_conversation'] = {};
  const timings: number[] = [];
  let skipped = 0;
  let ingestMs = 0;
  const recipe = withSettings(withoutMethods(recipeFor(mode), opts.without ?? []), opts.settings ?? {});
  const groups = opts.oneMemory ? [conversations] : conversations.map((c) => [c]);
  for (const group of groups) {
    const run = await runMemory(group, { k, cutoffs, source, mode, recipe, modelPath, log, ranks: opts.ranks ?? false });
    model ??= run.model;
    if (run.vectors) {
      vectorsByKind ??= { episode: 0, entity: 0, fact: 0 };
      for (const kind of ['episode', 'entity', 'fact'] as const) vectorsByKind[kind] += run.vectors[kind];
    }
    all.push(...run.scored);
    timings.push(...run.timings);
    skipped += run.skipped;
    ingestMs += run.ingestMs;
  }
  for (const conv of conversations) {
    byConversation[conv.id] = {
      ...figures(
        all.filter((s) => s.conversation === conv.id),
        cutoffs,
      ),
      episodes: conv.episodes.length,
    };
    const f = byConversation[conv.id]!;
    log(`${conv.id}: ${conv.episodes.length} turns, ${f.questions} questions, recall@5 ${f['recall@5']}, recall@10 ${f['recall@10']}`);
  }
  const byCategory: Record<string, RecallFigures> = {};
  for (const c of [...new Set(all.map((s) => s.category))].sort())
    byCategory[c] = figures(
      all.filter((s) => s.category === c),
      cutoffs,
    );
  return {
    ...figures(all, cutoffs),
    k,
    mode,
    long_turns: opts.longTurns ?? null,
    bursts: opts.bursts ?? false,
    one_memory: opts.oneMemory ?? false,
    without: opts.without ?? [],
    model,
    vectors_by_kind: vectorsByKind,
    skipped,
    query_p50_ms: round(percentile(timings, 0.5), 2),
    query_p95_ms: round(percentile(timings, 0.95), 2),
    ingest_ms: Math.round(ingestMs),
    by_category: byCategory,
    by_conversation: byConversation,
    evidence_ranks: opts.ranks ? rankBuckets(all) : null,
  };
}

function rankBuckets(scored: Scored[]): Record<string, RankBuckets> {
  const out: Record<string, RankBuckets> = {};
  for (const s of scored) {
    const b = (out[s.category] ??= { '1-10': 0, '11-20': 0, '21-50': 0, none: 0 });
    for (const rank of s.evidenceRanks ?? []) b[rank < 0 ? 'none' : rank < 10 ? '1-10' : rank < 20 ? '11-20' : '21-50']++;
  }
  return out;
}

interface Scored {
  conversation: string;
  category: number;
  /** recall at each cutoff */
  recall: Map<number, number>;
  /** Each evidence turn's rank (from 0) among 50 episodes asked for, -1 when not among them. */
  evidenceRanks?: number[];
}

interface RunOptions {
  k: number;
  cutoffs: number[];
  source: string;
  mode: RetrievalMode;
  recipe: RetrievalRecipe;
  modelPath: string | undefined;
  log: (msg: string) => void;
  ranks: boolean;
}

/** One fresh memory holding `convs`, every answerable question of each asked of it. */
async function runMemory(
  convs: LocomoConversation[],
  { k, cutoffs, source, mode, recipe, modelPath, log, ranks }: RunOptions,
): Promise<{
  scored: Scored[];
  timings: number[];
  skipped: number;
  ingestMs: number;
  model: string | null;
  vectors: Record<EmbeddedKind, number> | null;
}> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-locomo-'));
  try {
    const memory = await Memory.open(folder);
    const things = { ids: memory.embeddingIds.bind(memory), texts: memory.embeddingTexts.bind(memory) };
    const vectors = new VectorChannel(folder, { enabled: modelPath !== undefined, modelPath }, things, log);
    try {
      if (modelPath) {
        await vectors.start();
        if (!vectors.model) throw new Error(`--mode ${mode}: the embedding model is ${vectors.status().embedder}.`);
      }
      // As in the service: the write, then what it added is embedded (catchUp) before the questions.
      const started = performance.now();
      for (const conv of convs) memory.ingest(conv.episodes, { authority: 'user', source });
      vectors.catchUp();
      await vectors.embedded();
      const ingestMs = performance.now() - started;
      const model = vectors.model ?? null;
      const vectorCounts = modelPath ? vectors.status().vectors_by_kind : null;
      const scored: Scored[] = [];
      const timings: number[] = [];
      let skipped = 0;
      for (const conv of convs) {
        for (const qa of conv.qa) {
          if (!ANSWERABLE.has(qa.category)) continue;
          if (qa.evidence.length === 0 || !qa.question.trim()) {
            skipped++;
            continue;
          }
          const t0 = performance.now();
          const limit = Math.max(k, 10);
          const result = await vectors.query(memory, { query: qa.question, limit, mode }, recipe);
          timings.push(performance.now() - t0);
          // A turn is evidence when its conversation is the question's (sessions are "<conversation>:session_N"; refs repeat across conversations).
          const refsOf = (episodes: typeof result.episodes): (string | null | undefined)[] =>
            episodes.map((e) => (e.session?.startsWith(`${conv.id}:`) ? e.ref : undefined));
          const refs = refsOf(result.episodes);
          const recall = new Map(
            cutoffs.map((c) => [c, qa.evidence.filter((ev) => refs.slice(0, c).includes(ev)).length / qa.evidence.length]),
          );
          let evidenceRanks: number[] | undefined;
          if (ranks) {
            const deep = refsOf((await vectors.query(memory, { query: qa.question, limit: 50, mode }, recipe)).episodes);
            evidenceRanks = qa.evidence.map((ev) => deep.indexOf(ev));
          }
          scored.push({ conversation: conv.id, category: qa.category, recall, evidenceRanks });
        }
      }
      return { scored, timings, skipped, ingestMs, model, vectors: vectorCounts };
    } finally {
      vectors.close();
      memory.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function figures(scored: Scored[], cutoffs: number[]): RecallFigures {
  const out: Record<string, number> = { questions: scored.length };
  for (const c of cutoffs) {
    out[`recall@${c}`] = scored.length ? round(scored.reduce((s, x) => s + x.recall.get(c)!, 0) / scored.length, 4) : 0;
  }
  return out as unknown as RecallFigures;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
