/**
 * The embedding model, let go while nobody needs it. The model's thread (ONNX Runtime's
 * WebAssembly heap, its compiled code, transformers.js) is most of what a service with embeddings
 * holds beyond the memory itself, and a service beside the editor spends most of the day idle:
 * after `idleMs` without a call the thread is stopped, and the next call (a question, a new
 * episode) starts it again and waits for it: a reload of seconds once, against the model's
 * memory all day.
 */
import type { Embedder } from './embedder.js';
import type { Backend } from './native-runtime.js';
import type { WorkerEmbedder, WorkerLoadResult } from './worker-embedder.js';

export interface IdleEmbedder extends Embedder {
  /** Whether the model is in memory now. */
  readonly loaded: boolean;
  /** The runtime of the model thread now (or of the last one, while unloaded). */
  readonly backend: Backend;
  readonly fallback?: string;
  close(): Promise<void>;
}

/**
 * Wraps a loaded embedder; `load` makes another like it after an unload, or after its thread
 * died. A reload that gives another model (its files changed on disk) is refused: the vectors
 * held were made by the first.
 */
export function idleEmbedder(
  first: WorkerEmbedder,
  load: () => Promise<WorkerLoadResult>,
  idleMs: number,
  log: (msg: string) => void,
): IdleEmbedder {
  let current: WorkerEmbedder | undefined = first;
  let last: WorkerEmbedder = first;
  let loading: Promise<WorkerEmbedder> | undefined;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const arm = (): void => {
    clearTimeout(timer);
    if (closed || !(idleMs > 0) || !Number.isFinite(idleMs)) return;
    timer = setTimeout(() => {
      if (inFlight > 0 || !current) return;
      const unloading = current;
      current = undefined;
      log(`embeddings: model unloaded after ${Math.round(idleMs / 1000)} s idle; the next question or new episode loads it again`);
      void unloading.close();
    }, idleMs);
    timer.unref();
  };

  const model = (): Promise<WorkerEmbedder> => {
    if (current && !current.alive) {
      // Its thread died (a crash, WebAssembly out of memory): start another rather than fail forever.
      log('embeddings: the model thread had stopped; loading it again');
      current = undefined;
    }
    if (current) return Promise.resolve(current);
    loading ??= load().then(
      (r) => {
        loading = undefined;
        if ('unavailable' in r) throw new Error(`the embedding model did not load again: ${r.unavailable}`);
        if (r.embedder.id !== first.id || r.embedder.dim !== first.dim) {
          void r.embedder.close();
          throw new Error(`the embedding model changed on disk (${first.id} -> ${r.embedder.id}); restart the service to re-embed with it`);
        }
        if (closed) {
          void r.embedder.close();
          throw new Error('embedder closed');
        }
        current = r.embedder;
        last = r.embedder;
        log(`embeddings: model loaded again (${r.embedder.backend})`);
        return current;
      },
      (err: Error) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };

  arm();
  return {
    id: first.id,
    dim: first.dim,
    get loaded() {
      return current !== undefined;
    },
    get backend() {
      return last.backend;
    },
    get fallback() {
      return last.fallback;
    },
    async embed(texts) {
      if (closed) throw new Error('embedder closed');
      if (texts.length === 0) return [];
      inFlight++;
      clearTimeout(timer);
      try {
        return await (await model()).embed(texts);
      } finally {
        inFlight--;
        if (inFlight === 0) arm();
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const open = current;
      current = undefined;
      await open?.close();
    },
  };
}
