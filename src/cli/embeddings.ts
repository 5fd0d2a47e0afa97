/**
 * `recall embeddings [on|off]`: turns the dense retrieval channel on or off for a memory (in its
 * config.json, which every client shares), restarts a running service so it takes effect, and
 * follows the model loading — and its one-time download, with progress — until it is ready or
 * says why it cannot be.
 */
import * as path from 'node:path';
import type { MemoryClient } from '../service/rpc/client.js';
import { readServiceConfig, updateServiceConfig } from '../service/config-file.js';
import { runningServicePid, stopService } from '../service/rpc/launch.js';
import type { ServiceStatus } from '../service/rpc/protocol.js';
import { renderEmbeddings } from '../tools/render.js';
import { UsageError } from './usage.js';

export interface EmbeddingsCommand {
  action: string | undefined;
  modelPath?: string;
  model?: string;
  allowDownload?: boolean;
  json?: boolean;
  memory: string;
  connect: () => Promise<MemoryClient>;
  out: (s: string) => void;
  err: (s: string) => void;
}

export async function runEmbeddings(c: EmbeddingsCommand): Promise<number> {
  const action = c.action ?? 'status';
  if (action !== 'on' && action !== 'off' && action !== 'status') throw new UsageError('embeddings takes one of: on, off, status.');
  if (action !== 'on' && (c.modelPath || c.model || c.allowDownload)) {
    throw new UsageError('--model-path, --model and --allow-download go with `recall embeddings on`.');
  }
  if (c.modelPath && c.model) throw new UsageError('Give either --model-path DIR (a local model) or --model ID (a hub model), not both.');
  if (action !== 'status') {
    const embeddings: Record<string, unknown> = { enabled: action === 'on' };
    // A local folder wins over a hub id in the service, so choosing one clears the other.
    if (c.modelPath) Object.assign(embeddings, { modelPath: path.resolve(c.modelPath), model: '' });
    if (c.model) Object.assign(embeddings, { model: c.model, modelPath: '' });
    if (c.allowDownload) embeddings.allowDownload = true;
    updateServiceConfig(c.memory, { embeddings });
    // Restart even when the file did not change: a model folder may have been filled since.
    if (runningServicePid(c.memory) !== undefined) {
      c.err('restarting the memory service to apply the change');
      await stopService(c.memory);
    }
  }
  const status = await follow(c, action === 'status' ? 0 : 30 * 60_000);
  const settings = readServiceConfig(c.memory).embeddings ?? {};
  if (c.json)
    c.out(
      JSON.stringify({
        settings,
        embedder: status.embedder,
        vectors: status.vectors_by_kind,
        vector_search: status.vector_search,
        pending: status.embedding_pending,
      }),
    );
  else c.out(`embeddings ${renderEmbeddings(status)}`);
  return action === 'on' && !status.embedder.startsWith('ready') ? 1 : 0;
}

/**
 * Polls the service until the model leaves its loading state (or `waitMs` passes), printing
 * each new state on stderr: a download shows its percentage as it goes.
 */
async function follow(c: EmbeddingsCommand, waitMs: number): Promise<ServiceStatus> {
  const client = await c.connect();
  try {
    const deadline = Date.now() + waitMs;
    let last = '';
    for (;;) {
      const s = await client.call('status', {});
      const loading = /^(loading|downloading)/.test(s.embedder);
      if (!loading || Date.now() >= deadline) return s;
      if (s.embedder !== last) c.err(s.embedder);
      last = s.embedder;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    client.close();
  }
}
