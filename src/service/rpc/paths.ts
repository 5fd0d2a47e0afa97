/** Where a memory lives and where its service listens. */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** `--memory DIR`, else $RECALL_HOME, else ~/.recall. */
export function resolveMemoryFolder(explicit?: string): string {
  const chosen = explicit ?? process.env.RECALL_HOME ?? path.join(os.homedir(), '.recall');
  return path.resolve(chosen.startsWith('~') ? path.join(os.homedir(), chosen.slice(1)) : chosen);
}

export const lockPath = (folder: string): string => path.join(folder, 'service.lock');
export const logPath = (folder: string): string => path.join(folder, 'service.log');

/**
 * The socket lives in the memory folder (mode 0700, so only its owner can reach it). Unix socket
 * paths are limited to ~104 bytes; a deeper folder gets one in a private per-user temp folder.
 * On Windows it is a named pipe derived from the folder.
 */
export function socketPath(folder: string): string {
  const digest = crypto.createHash('sha256').update(folder).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\recall-${digest}`;
  const inFolder = path.join(folder, 'service.sock');
  if (Buffer.byteLength(inFolder) <= 100) return inFolder;
  const dir = path.join(os.tmpdir(), `recall-${os.userInfo().uid}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `${digest}.sock`);
}
