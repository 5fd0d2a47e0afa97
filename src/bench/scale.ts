/**
 * `recall bench scale --episodes N`: a synthetic memory of N episodes built through the real
 * memory service, then measured: ingest rate, query latency per retrieval mode, service RSS,
 * snapshot size, and cold start (service start to first answer).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryClient } from '../service/rpc/client.js';
import { stopService } from '../service/rpc/launch.js';
import type { RetrievalMode } from '../service/rpc/protocol.js';
import { DEFAULT_APPROXIMATE_ABOVE as approximateAbove } from '../core/vectors/index.js';
import { percentile } from './percentile.js';
import { syntheticEpisodes, syntheticQueries } from './synthetic.js';

export interface ScaleBenchOptions {
  episodes: number;
  /** Keep the memory here instead of a temporary folder (kept afterwards). */
  memory?: string;
  queries?: number;
  batch?: number;
  /** An embedding model folder: vectors are built (and waited for) so vector and hybrid can be measured. */
  modelPath?: string;
  serviceScript: string;
  log: (msg: string) => void;
}

export interface ScaleBenchResult {
  episodes: number;
  ingest_per_s: number;
  keyword_p50_ms: number | null;
  keyword_p95_ms: number | null;
  vector_p50_ms: number | null;
  vector_p95_ms: number | null;
  hybrid_p50_ms: number | null;
  hybrid_p95_ms: number | null;
  /** Right after the queries. */
  service_rss_mb: number;
  /** The most the service was resident, ingest and embedding included. */
  service_peak_rss_mb: number;
  /** How vector search ran: exact, or which kinds used the approximate index. */
  vector_search: string;
  snapshot_mb: number;
  cold_start_ms: number;
  /** Why a mode has no figures (no embedding model, say). */
  notes: string[];
}

const MODES: RetrievalMode[] = ['keyword', 'vector', 'hybrid'];

export async function runScaleBench(opts: ScaleBenchOptions): Promise<ScaleBenchResult> {
  const { log } = opts;
  const memory = opts.memory ?? fs.mkdtempSync(path.join(os.tmpdir(), 'recall-scale-'));
  const batch = opts.batch ?? 1000;
  const notes: string[] = [];
  const connect = (): Promise<MemoryClient> =>
    MemoryClient.connect({ memory, surface: 'cli', serviceScript: opts.serviceScript, startTimeoutMs: 120_000, log });
  try {
    if (opts.modelPath) {
      fs.writeFileSync(
        path.join(memory, 'config.json'),
        JSON.stringify({ embeddings: { enabled: true, modelPath: path.resolve(opts.modelPath) } }),
      );
    }
    log(`generating ${opts.episodes} synthetic episodes`);
    const episodes = syntheticEpisodes(opts.episodes);
    let client = await connect();
    const ingestStart = performance.now();
    for (let i = 0; i < episodes.length; i += batch) {
      await client.call('ingest', { episodes: episodes.slice(i, i + batch) });
      if ((i / batch) % 10 === 9 || i + batch >= episodes.length)
        log(`ingested ${Math.min(i + batch, episodes.length)}/${episodes.length}`);
    }
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    let vectorsReady = false;
    let vectorSearch = 'none';
    if (opts.modelPath) {
      // Embedding runs in the background; measure vector search once everything has a vector and,
      // past its threshold, the approximate index is built.
      for (let s = await client.call('status', {}); ; s = await client.call('status', {})) {
        if (s.embedder.startsWith('unavailable')) {
          notes.push(`embedder ${s.embedder}`);
          break;
        }
        const embedded = s.embedder.startsWith('ready') && s.embedding_pending === 0 && s.vectors_by_kind.episode >= s.episodes;
        if (embedded && (s.episodes < approximateAbove || s.vector_search.includes('episode'))) {
          vectorsReady = true;
          vectorSearch = s.vector_search;
          break;
        }
        log(
          `embedding: ${s.vectors_by_kind.episode}/${s.episodes} episodes, ${s.vectors_by_kind.entity} entities, ${s.vectors_by_kind.fact} facts (${s.embedder}; search ${s.vector_search})`,
        );
        await new Promise((r) => setTimeout(r, 5000));
      }
    } else {
      notes.push('vector and hybrid not measured: no embedding model given (--model-path DIR)');
    }

    const questions = syntheticQueries(episodes, opts.queries ?? 200);
    const latency: Partial<Record<RetrievalMode, { p50: number; p95: number }>> = {};
    for (const mode of vectorsReady ? MODES : (['keyword'] as RetrievalMode[])) {
      const times: number[] = [];
      try {
        for (const [i, query] of questions.entries()) {
          const t = performance.now();
          await client.call('query', { query, limit: 10, mode });
          if (i >= 5) times.push(performance.now() - t); // the first few warm caches up
        }
        latency[mode] = { p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)) };
        log(`${mode}: p50 ${latency[mode]!.p50} ms, p95 ${latency[mode]!.p95} ms`);
      } catch (err) {
        notes.push(`${mode}: ${(err as Error).message}`);
        log(`${mode}: not measured (${(err as Error).message})`);
      }
    }
    const status = await client.call('status', {});
    client.close();

    log('stopping the service (it flushes a snapshot), then timing a cold start');
    await stopService(memory);
    const snapshotMb = fs.statSync(path.join(memory, 'snapshot.sqlite')).size / 1e6;
    const coldStart = performance.now();
    client = await connect();
    await client.call('query', { query: questions[0]!, limit: 10 });
    const coldStartMs = performance.now() - coldStart;
    client.close();
    await stopService(memory);

    return {
      episodes: status.episodes,
      ingest_per_s: Math.round(episodes.length / ingestSeconds),
      keyword_p50_ms: latency.keyword?.p50 ?? null,
      keyword_p95_ms: latency.keyword?.p95 ?? null,
      vector_p50_ms: latency.vector?.p50 ?? null,
      vector_p95_ms: latency.vector?.p95 ?? null,
      hybrid_p50_ms: latency.hybrid?.p50 ?? null,
      hybrid_p95_ms: latency.hybrid?.p95 ?? null,
      service_rss_mb: status.rss_mb,
      service_peak_rss_mb: status.peak_rss_mb,
      vector_search: vectorSearch,
      snapshot_mb: round(snapshotMb),
      cold_start_ms: Math.round(coldStartMs),
      notes,
    };
  } finally {
    await stopService(memory).catch(() => false);
    if (!opts.memory) fs.rmSync(memory, { recursive: true, force: true });
  }
}

const round = (x: number): number => Math.round(x * 10) / 10;
