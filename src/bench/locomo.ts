/**
 * LoCoMo retrieval benchmark: each conversation goes into its own fresh memory, every answerable
 * question (categories 1-4; 5 is adversarial, with no answer in the conversation) is asked with
 * Memory.query, and recall@k is the share of the question's evidence turns among the top k
 * episodes, averaged over questions.
 *
 * `mode` vector or hybrid embeds every turn with the given model first (exact search, as the
 * service does below its approximate-index threshold); a question's time then includes embedding it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../core/memory/memory.js';
import { parseLocomo, type LocomoConversation } from '../core/ingest/locomo.js';
import type { Hit, RetrievalMode } from '../core/retrieval/keyword.js';
import { VectorStore } from '../core/vectors/store.js';
import { loadEmbedder, type Embedder } from '../service/embeddings/embedder.js';

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
  /** A local embedding model folder (transformers.js layout). */
  modelPath?: string;
}

export interface RecallFigures {
  questions: number;
  'recall@5': number;
  'recall@10': number;
  /** recall at the k asked for, when k is neither 5 nor 10. */
  [key: `recall@${number}`]: number;
}

export interface LocomoBenchResult extends RecallFigures {
  k: number;
  mode: RetrievalMode;
  /** The embedding model, for vector and hybrid. */
  model: string | null;
  /** Answerable questions left out because none of their evidence ids names a turn. */
  skipped: number;
  query_p50_ms: number;
  query_p95_ms: number;
  ingest_ms: number;
  by_category: Record<string, RecallFigures>;
  by_conversation: Record<string, RecallFigures & { episodes: number }>;
}

const ANSWERABLE = new Set([1, 2, 3, 4]);

export async function runLocomoBench(opts: LocomoBenchOptions): Promise<LocomoBenchResult> {
  const k = opts.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 50) throw new Error(`k must be a whole number from 1 to 50, got ${k}.`);
  const log = opts.log ?? (() => {});
  const source = path.basename(opts.dataFile);
  let conversations = parseLocomo(JSON.parse(fs.readFileSync(opts.dataFile, 'utf8')), source);
  if (opts.conversations) conversations = conversations.filter((c) => opts.conversations!.includes(c.id));
  const cutoffs = [...new Set([5, 10, k])].sort((a, b) => a - b);
  const mode = opts.mode ?? 'keyword';
  let embedder: Embedder | undefined;
  if (mode !== 'keyword') {
    if (!opts.modelPath) throw new Error(`--mode ${mode} needs an embedding model: --model-path DIR.`);
    const loaded = await loadEmbedder({ modelPath: opts.modelPath, log });
    if ('unavailable' in loaded) throw new Error(`--mode ${mode}: the embedding model is unavailable (${loaded.unavailable}).`);
    embedder = loaded.embedder;
  }

  const all: Scored[] = [];
  const byConversation: LocomoBenchResult['by_conversation'] = {};
  const timings: number[] = [];
  let skipped = 0;
  let ingestMs = 0;
  for (const conv of conversations) {
    const run = await runConversation(conv, k, cutoffs, source, mode, embedder);
    all.push(...run.scored);
    timings.push(...run.timings);
    skipped += run.skipped;
    ingestMs += run.ingestMs;
    byConversation[conv.id] = { ...figures(run.scored, cutoffs), episodes: conv.episodes.length };
    const f = byConversation[conv.id]!;
    log(`${conv.id}: ${conv.episodes.length} turns, ${f.questions} questions, recall@5 ${f['recall@5']}, recall@10 ${f['recall@10']}`);
  }
  const byCategory: Record<string, RecallFigures> = {};
  for (const c of [...new Set(all.map((s) => s.category))].sort()) byCategory[c] = figures(all.filter((s) => s.category === c), cutoffs);
  timings.sort((a, b) => a - b);
  return {
    ...figures(all, cutoffs),
    k,
    mode,
    model: embedder?.id ?? null,
    skipped,
    query_p50_ms: round(percentile(timings, 0.5), 2),
    query_p95_ms: round(percentile(timings, 0.95), 2),
    ingest_ms: Math.round(ingestMs),
    by_category: byCategory,
    by_conversation: byConversation,
  };
}

interface Scored {
  category: number;
  /** recall at each cutoff */
  recall: Map<number, number>;
}

async function runConversation(
  conv: LocomoConversation,
  k: number,
  cutoffs: number[],
  source: string,
  mode: RetrievalMode,
  embedder: Embedder | undefined,
): Promise<{ scored: Scored[]; timings: number[]; skipped: number; ingestMs: number }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-locomo-'));
  try {
    const memory = await Memory.open(folder);
    let vectors: VectorStore | undefined;
    try {
      const started = performance.now();
      memory.ingest(conv.episodes, { authority: 'user', source });
      if (embedder) vectors = await embedEpisodes(memory, embedder, path.join(folder, 'vectors.bin'));
      const ingestMs = performance.now() - started;
      const scored: Scored[] = [];
      const timings: number[] = [];
      let skipped = 0;
      for (const qa of conv.qa) {
        if (!ANSWERABLE.has(qa.category)) continue;
        if (qa.evidence.length === 0 || !qa.question.trim()) {
          skipped++;
          continue;
        }
        const t0 = performance.now();
        const limit = Math.max(k, 10);
        const vectorHits = vectors && embedder ? await nearestEpisodes(vectors, embedder, qa.question, limit * 3) : undefined;
        const result = memory.query({ query: qa.question, limit, mode, vectorHits });
        timings.push(performance.now() - t0);
        const refs = result.episodes.map((e) => e.ref);
        const recall = new Map(cutoffs.map((c) => [c, qa.evidence.filter((ev) => refs.slice(0, c).includes(ev)).length / qa.evidence.length]));
        scored.push({ category: qa.category, recall });
      }
      return { scored, timings, skipped, ingestMs };
    } finally {
      vectors?.close();
      memory.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

async function embedEpisodes(memory: Memory, embedder: Embedder, file: string): Promise<VectorStore> {
  const store = VectorStore.create(file, embedder.dim, embedder.id);
  const ids = memory.embeddingIds('episode');
  for (let i = 0; i < ids.length; i += 32) {
    const batch = memory.embeddingTexts('episode', ids.slice(i, i + 32));
    const vecs = await embedder.embed(batch.map((b) => b.text));
    batch.forEach((b, j) => store.add(b.id, vecs[j]!));
  }
  return store;
}

async function nearestEpisodes(store: VectorStore, embedder: Embedder, question: string, k: number): Promise<{ episode: Hit[]; entity: Hit[]; fact: Hit[] }> {
  const [q] = await embedder.embed([question]);
  return { episode: store.search(q!, k).map((h) => ({ rowid: h.id, score: h.score })), entity: [], fact: [] };
}

function figures(scored: Scored[], cutoffs: number[]): RecallFigures {
  const out: Record<string, number> = { questions: scored.length };
  for (const c of cutoffs) {
    out[`recall@${c}`] = scored.length ? round(scored.reduce((s, x) => s + x.recall.get(c)!, 0) / scored.length, 4) : 0;
  }
  return out as unknown as RecallFigures;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
