/**
 * Entry point of dist/service.js: `node service.js --memory DIR [--idle-exit-ms N]`.
 * Settings that shape the memory's judgement (priors, weights, half-life) live in the folder's
 * config.json, so every client of one memory sees the same numbers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { ConfigOverride } from '../core/config.js';
import { resolveMemoryFolder } from './paths.js';
import { runService } from './server.js';
import type { EmbeddingSettings } from './vector-channel.js';

const { values } = parseArgs({
  options: { memory: { type: 'string' }, 'idle-exit-ms': { type: 'string' } },
  strict: true,
});

const memory = resolveMemoryFolder(values.memory);
const idle = values['idle-exit-ms'] ?? process.env.RECALL_IDLE_EXIT_MS;

function readConfig(): ConfigOverride & { embeddings?: EmbeddingSettings } {
  const file = path.join(memory, 'config.json');
  if (!fs.existsSync(file)) return {};
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ConfigOverride;
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix or delete it.`);
  }
}

Promise.resolve()
  .then(() => {
    const { embeddings, ...config } = readConfig();
    return runService({ memory, idleExitMs: idle ? Number(idle) : undefined, config, embeddings });
  })
  .catch((err) => {
    process.stderr.write(`recall service failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
