/**
 * Entry point of the embedding worker thread (dist/embed-worker.js): loads the model named in
 * `workerData` and embeds the texts it is sent. The model's work is CPU-bound for tens of
 * milliseconds a batch; here it never holds the memory service's event loop, so requests,
 * writes and the service's start-up answer while a backlog is embedded.
 *
 * Messages in: { seq, texts }. Out: { type: 'log' | 'progress' | 'ready' | 'unavailable' |
 * 'vectors' | 'failed' } (see worker-embedder.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { collectGarbage } from '../collect-garbage.js';
import { loadEmbedder, type EmbedderOptions } from './embedder.js';

const port = parentPort;
if (!port) throw new Error('embed-worker.js runs as a worker thread of the memory service');

void (async () => {
  const options = workerData as Omit<EmbedderOptions, 'log' | 'onProgress'>;
  const loaded = await loadEmbedder({
    ...options,
    log: (message) => port.postMessage({ type: 'log', message }),
    onProgress: (progress) => port.postMessage({ type: 'progress', progress }),
  });
  if ('unavailable' in loaded) {
    port.postMessage({ type: 'unavailable', reason: loaded.unavailable });
    return;
  }
  const embedder = loaded.embedder;
  // The model file was read into a buffer that ONNX Runtime has copied into its own heap; this
  // thread then sits idle between batches and V8 would keep that buffer for a long while.
  collectGarbage();
  port.on('message', (msg: { seq: number; texts: string[] }) => {
    embedder.embed(msg.texts).then(
      (vectors) =>
        port.postMessage(
          { type: 'vectors', seq: msg.seq, vectors },
          vectors.map((v) => v.buffer as ArrayBuffer),
        ),
      (err: Error) => port.postMessage({ type: 'failed', seq: msg.seq, message: err.message }),
    );
  });
  port.postMessage({ type: 'ready', id: embedder.id, dim: embedder.dim, backend: embedder.backend, fallback: embedder.fallback });
})();
