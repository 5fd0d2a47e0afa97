/** Where a memory lives and where its service listens. */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryError } from '../../core/model/errors.js';
import { JOURNAL_FILE } from '../../core/model/folder-layout.js';
import { checkMemoryFolder } from './folder-trust.js';

/** `--memory DIR`, else $RECALL_HOME, else ~/.recall. */
export function resolveMemoryFolder(explicit?: string): string {
  const chosen = explicit ?? process.env.RECALL_HOME ?? path.join(os.homedir(), '.recall');
  return path.resolve(chosen.startsWith('~') ? path.join(os.homedir(), chosen.slice(1)) : chosen);
}

/**
 * Creates the memory folder (0700) if missing, and refuses one another user could change
 * (folder-trust.ts); a file in its place is said plainly, not as EEXIST.
 */
export function ensureMemoryFolder(folder: string): void {
  checkMemoryFolder(folder);
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw err;
    throw new MemoryError(
      'unavailable',
      `${folder} cannot be the memory folder: it, or a folder above it, is a file.`,
      'Give --memory (or RECALL_HOME) a folder; it is created when missing.',
    );
  }
}

export const lockPath = (folder: string): string => path.join(folder, 'service.lock');
export const logPath = (folder: string): string => path.join(folder, 'service.log');
/** What hooks answer from when no service runs (model/hook-cache.ts), and what they decided meanwhile. */
export const hookCachePath = (folder: string): string => path.join(folder, 'hook-cache.json');
export const hookSpoolPath = (folder: string): string => path.join(folder, 'hook-spool.jsonl');
/** The journal grows with every change: a hooks cache written at this size holds every change so far. */
export const journalBytes = (folder: string): number => fs.statSync(path.join(folder, JOURNAL_FILE), { throwIfNoEntry: false })?.size ?? 0;

/**
 * The socket lives in the memory folder when only its owner can create files there (and the
 * path fits: Unix socket paths are limited to ~104 bytes); otherwise in a folder of this user's
 * with mode 0700 ($XDG_RUNTIME_DIR first), never in one another user made or can write to.
 * On Windows it is a named pipe derived from the folder.
 */
export function socketPath(folder: string): string {
  const digest = crypto.createHash('sha256').update(folder).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\recall-${digest}`;
  const inFolder = path.join(folder, 'service.sock');
  if (Buffer.byteLength(inFolder) <= 100 && onlyOwnerWrites(folder)) return inFolder;
  return path.join(privateSocketFolder(), `${digest}.sock`);
}

/** A missing folder counts: whoever creates it (client or service) makes it 0700. */
function onlyOwnerWrites(folder: string): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(folder, { throwIfNoEntry: false });
  } catch {
    return true; // Not a folder at all (ENOTDIR): creating it fails later, and says why.
  }
  return !st || (st.uid === process.getuid?.() && (st.mode & 0o022) === 0);
}

function privateSocketFolder(): string {
  const uid = process.getuid?.() ?? os.userInfo().uid;
  const runtime = process.env.XDG_RUNTIME_DIR;
  const candidates = [
    ...(runtime && path.isAbsolute(runtime) && isPrivate(runtime, uid) ? [path.join(runtime, 'recall')] : []),
    path.join(os.tmpdir(), `recall-${uid}`),
  ];
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') continue;
    }
    if (isPrivate(dir, uid)) return dir;
  }
  throw new MemoryError(
    'unavailable',
    `No private folder for the memory service's socket: ${candidates[candidates.length - 1]} belongs to another user or others can use it.`,
    'Remove that folder, set XDG_RUNTIME_DIR to a folder only you can use, or choose a shorter memory path.',
  );
}

/** A real folder (not a link to one), owned by this user, that nobody else may enter. */
function isPrivate(dir: string, uid: number): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
}
