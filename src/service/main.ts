/**
 * Entry point of dist/service.js: `node service.js --memory DIR [--idle-exit-ms N]`.
 * Settings that shape the memory's judgement (priors, weights, half-life) live in the folder's
 * config.json, so every client of one memory sees the same numbers.
 */
import { parseArgs } from 'node:util';
import { readServiceConfig } from './config-file.js';
import { resolveMemoryFolder } from './rpc/paths.js';
import { runService } from './rpc/server.js';

const { values } = parseArgs({
  options: { memory: { type: 'string' }, 'idle-exit-ms': { type: 'string' } },
  strict: true,
});

const memory = resolveMemoryFolder(values.memory);
const idle = values['idle-exit-ms'] ?? process.env.RECALL_IDLE_EXIT_MS;

Promise.resolve()
  .then(() => {
    const { embeddings, ...config } = readServiceConfig(memory);
    return runService({ memory, idleExitMs: idle ? Number(idle) : undefined, config, embeddings });
  })
  .catch((err) => {
    process.stderr.write(`recall service failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
