/**
 * Entry point of dist/service.js: `node service.js --memory DIR [--idle-exit-ms N]`.
 * Settings that shape the memory's judgement (priors, weights, half-life) live in the folder's
 * config.json, so every client of one memory sees the same numbers.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { MemoryError } from '../core/model/errors.js';
import { readServiceConfig } from './config-file.js';
import { checkMemoryFolder } from './rpc/folder-trust.js';
import { resolveMemoryFolder } from './rpc/paths.js';
import { runService } from './rpc/server.js';
import { START_FD_ENV } from './rpc/service-start.js';

// The client that started us reads why we could not start from this fd until we listen.
const startFd = Number(process.env[START_FD_ENV]) || undefined;
delete process.env[START_FD_ENV];

/**
 * The log is a file on a disk that can fill up: a line that cannot be written is dropped, never
 * fatal (an unhandled 'error' on process.stderr would end the service).
 */
const log = (msg: string): void => {
  try {
    fs.writeSync(2, `${new Date().toISOString()} [service ${process.pid}] ${msg}\n`);
  } catch {
    // Dropped: the service goes on without its log.
  }
};
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

function closeStartFd(why?: string): void {
  if (startFd === undefined) return;
  try {
    if (why) fs.writeSync(startFd, why);
    fs.closeSync(startFd);
  } catch {
    // The client is gone already.
  }
}

Promise.resolve()
  .then(() => {
    const { values } = parseArgs({
      options: { memory: { type: 'string' }, 'idle-exit-ms': { type: 'string' } },
      strict: true,
    });
    const memory = resolveMemoryFolder(values.memory);
    // Before anything in it is read: another user who can write there could have planted it.
    checkMemoryFolder(memory);
    const idle = values['idle-exit-ms'] ?? process.env.RECALL_IDLE_EXIT_MS;
    const { embeddings, sync, ...config } = readServiceConfig(memory);
    return runService({ memory, idleExitMs: idle ? Number(idle) : undefined, config, embeddings, sync, log });
  })
  .then(
    () => closeStartFd(),
    (err) => {
      // The client shows this as why the service did not start: the fix goes with it.
      const message = err instanceof MemoryError && err.hint ? `${err.message} ${err.hint}` : (err as Error).message;
      log(`recall service failed to start: ${message}`);
      closeStartFd(message);
      process.exit(1);
    },
  );
