/**
 * The embedder, run in a worker thread (embed-worker.ts): the same model, loading and pooling as
 * embedder.ts, behind the same `Embedder` interface, with the CPU-heavy part off the memory
 * service's event loop. If the thread dies, pending and later calls fail with the reason (the
 * queue logs and counts them; queries fall back to keyword + graph).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Embedder, EmbedderOptions, ModelProgress } from './embedder.js';
import type { Backend } from './native-runtime.js';

export type WorkerLoadResult = { embedder: WorkerEmbedder } | { unavailable: string };

export interface WorkerEmbedder extends Embedder {
  /** False once the thread has stopped (closed, crashed, or out of memory): every call then fails. */
  readonly alive: boolean;
  /** Which ONNX Runtime the thread runs, and why not the native one when it is not. */
  readonly backend: Backend;
  readonly fallback?: string;
  close(): Promise<void>;
}

type FromWorker =
  | { type: 'log'; message: string }
  | { type: 'progress'; progress: ModelProgress }
  | { type: 'ready'; id: string; dim: number; backend: Backend; fallback?: string }
  | { type: 'unavailable'; reason: string }
  | { type: 'vectors'; seq: number; vectors: Float32Array[] }
  | { type: 'failed'; seq: number; message: string };

/** The worker's script: dist/embed-worker.js, beside the service bundle. */
export function workerScript(dir = __dirname): string | undefined {
  const file = path.join(dir, 'embed-worker.js');
  return fs.existsSync(file) ? file : undefined;
}

/** Starts the worker and loads the model in it; says why not, like loadEmbedder, instead of throwing. */
export function loadWorkerEmbedder(script: string, options: EmbedderOptions): Promise<WorkerLoadResult> {
  const { log, onProgress, ...data } = options;
  // A small young generation: the model's tensors die young, and V8's default nursery (tens of
  // MB a thread) would stay resident.
  const worker = new Worker(script, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
  const pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  let seq = 0;
  let dead: string | undefined;

  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: WorkerLoadResult): void => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const die = (reason: string): void => {
      dead ??= reason;
      for (const p of pending.values()) p.reject(new Error(`embedding worker stopped: ${dead}`));
      pending.clear();
      settle({ unavailable: `embedding worker stopped: ${dead}` });
    };
    worker.on('error', (err) => die(err.message));
    worker.on('exit', (code) => die(`exited with code ${code}`));
    worker.on('message', (msg: FromWorker) => {
      switch (msg.type) {
        case 'log':
          log?.(msg.message);
          break;
        case 'progress':
          onProgress?.(msg.progress);
          break;
        case 'unavailable':
          settle({ unavailable: msg.reason });
          void worker.terminate();
          break;
        case 'ready':
          settle({
            embedder: {
              id: msg.id,
              dim: msg.dim,
              backend: msg.backend,
              fallback: msg.fallback,
              get alive() {
                return dead === undefined;
              },
              embed: (texts) => {
                if (texts.length === 0) return Promise.resolve([]);
                if (dead) return Promise.reject(new Error(`embedding worker stopped: ${dead}`));
                const n = ++seq;
                return new Promise<Float32Array[]>((res, rej) => {
                  pending.set(n, { resolve: res, reject: rej });
                  worker.postMessage({ seq: n, texts });
                });
              },
              close: async () => {
                dead ??= 'closed';
                await worker.terminate();
              },
            },
          });
          break;
        case 'vectors':
          pending.get(msg.seq)?.resolve(msg.vectors);
          pending.delete(msg.seq);
          break;
        case 'failed':
          pending.get(msg.seq)?.reject(new Error(msg.message));
          pending.delete(msg.seq);
          break;
      }
    });
  });
}
