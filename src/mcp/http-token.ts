/**
 * The bearer token `recall mcp --http` always requires: loopback alone does not keep out the
 * other users of the machine. Taken from --token, else $RECALL_MCP_TOKEN, else --token-file, else
 * the memory folder's own token file, generated on first use (0600, in the 0700 folder) and reused.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkMemoryFolder, checkPrivateFile } from '../service/rpc/folder-trust.js';
import { ensureMemoryFolder } from '../service/rpc/paths.js';

export const HTTP_TOKEN_FILE = 'mcp-http.token';

export interface TokenSources {
  memory: string;
  flag?: string;
  file?: string;
  env?: string;
}

export const httpTokenPath = (memory: string): string => path.join(memory, HTTP_TOKEN_FILE);

/** The token to require, and a line for stderr saying where it came from (a warning for --token). */
export function resolveHttpToken(from: TokenSources): { token: string; note: string } {
  if (from.flag !== undefined)
    return {
      token: nonEmpty(from.flag, '--token'),
      note: 'warning: --token on the command line is visible to every local user (ps); use RECALL_MCP_TOKEN or --token-file.',
    };
  if (from.env) return { token: from.env.trim(), note: 'bearer token from RECALL_MCP_TOKEN' };
  if (from.file !== undefined) {
    checkPrivateFile(from.file);
    return {
      token: nonEmpty(readToken(from.file), `--token-file ${from.file}`),
      note: `bearer token from ${from.file}`,
    };
  }
  const file = httpTokenPath(from.memory);
  return { token: memoryFolderToken(from.memory), note: `bearer token in ${file} (send "Authorization: Bearer <its contents>")` };
}

/**
 * The memory folder's token, created when missing; the extension and the CLI share it. Another
 * user who could write it would know it: a folder (or token) others can write to is refused.
 */
export function memoryFolderToken(memory: string): string {
  checkMemoryFolder(memory);
  const file = httpTokenPath(memory);
  const existing = fs.existsSync(file) ? readToken(file).trim() : '';
  if (existing) return existing;
  ensureMemoryFolder(memory);
  const token = crypto.randomBytes(32).toString('base64url');
  // Written beside it, then linked into place: a reader never sees half a token, and of two first
  // starters the second finds the first's file (EEXIST) and uses that one.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, token + '\n', { mode: 0o600 });
  try {
    fs.linkSync(temp, file);
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readToken(file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function readToken(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`Cannot read the token file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}

function nonEmpty(token: string, where: string): string {
  if (!token.trim()) throw new Error(`The bearer token from ${where} is empty.`);
  return token.trim();
}
