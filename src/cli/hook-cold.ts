/**
 * A hook's answer when no memory service answers (none runs, or it is busy past the deadline):
 * from the hooks' cache the service keeps (model/hook-cache.ts), decided by the same rules as the
 * service decides (model/rule-decision.ts), so a cold call on a large memory is answered as fast
 * as a warm one. What it decided goes to the spool, which the service records on the rules when
 * it runs (service/rpc/hook-cache.ts). Without a cache (a memory no service has kept one for)
 * the hook allows and adds nothing, as before.
 */
import * as fs from 'node:fs';
import type { HookCall } from '../core/memory/rules.js';
import { cachedRules, parseHookCache, type HookCache } from '../core/model/hook-cache.js';
import { LIMITS } from '../core/model/limits.js';
import { decide } from '../core/model/rule-decision.js';
import { toolCallOf } from '../core/model/tool-call.js';
import { checkMemoryFolder, checkPrivateFile } from '../service/rpc/folder-trust.js';
import { hookCachePath, hookSpoolPath, journalBytes } from '../service/rpc/paths.js';
import type { HookEvent } from '../core/model/hook-kinds.js';
import { preToolUseOutput, sessionStartOutput, type HookInput } from './hook-hosts.js';

/** One hook call, read and placed: what both the warm and the cold answer start from. */
export interface HookRequest {
  event: HookEvent;
  input: HookInput;
  cwd: string;
  project: { key: string; root?: string };
  memory: string;
}

/**
 * The hook's answer from the cache (`cached`: it was used); `why` says what it could not use or
 * keep.
 */
export function answerFromCache(req: HookRequest): { text: string; cached: boolean; why?: string } {
  const cache = readCacheChecked(req.memory);
  if (!cache) return { text: '', cached: false, why: 'no usable hooks cache in the memory folder' };
  if (cache.journal_bytes !== journalBytes(req.memory))
    return { text: '', cached: false, why: 'the hooks cache is older than the memory (written before its last change)' };
  if (req.event === 'session-start') {
    const brief = cache.briefs[req.project.key];
    if (!brief) return { text: '', cached: false, why: 'no brief kept for this project yet' };
    return { text: sessionStartOutput(req.input.host, brief.text), cached: true };
  }
  const why = spool(req);
  if (req.event === 'post-tool-use') return { text: '', cached: true, why };
  const call = toolCallOf(req.input.tool!, req.input.input, req.project.root, req.cwd);
  const decision = decide(cachedRules(cache, req.project.key), call);
  return { text: preToolUseOutput(req.input.host, decision.decision, decision.reason), cached: true, why };
}

/** The call as a warm hook sends it to the service (`hook.check`). */
export function hookCallOf(req: HookRequest): HookCall {
  const { input } = req;
  return {
    event: req.event === 'pre-tool-use' ? ('pre' as const) : ('post' as const),
    host: input.host,
    tool: input.tool!,
    input: input.input,
    session: input.session,
    call_id: input.callId,
    cwd: req.cwd,
  };
}

/** The cache, only from a memory folder and file no other user can change (they could plant rules that deny nothing). */
function readCacheChecked(memory: string): HookCache | undefined {
  const file = hookCachePath(memory);
  if (!fs.existsSync(file)) return undefined;
  checkMemoryFolder(memory);
  checkPrivateFile(file, 'in the memory folder ');
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const size = fs.fstatSync(fd).size;
    if (size > LIMITS.hookCacheBytes) throw new Error(`the hooks cache is over ${LIMITS.hookCacheBytes} bytes`);
    const buf = Buffer.alloc(size);
    const n = fs.readSync(fd, buf, 0, size, 0);
    return parseHookCache(buf.subarray(0, n).toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Appends the call for the service to record; returns why not when it cannot (too large, the
 * spool full or unwritable): the answer stands, only its record is lost.
 */
function spool(req: HookRequest): string | undefined {
  const line = JSON.stringify({ call: hookCallOf(req), project: req.project.key, workspace: req.project.root }) + '\n';
  const bytes = Buffer.byteLength(line);
  if (bytes > LIMITS.hookSpoolLineBytes) return 'the call is too large to keep for the memory: not recorded';
  const file = hookSpoolPath(req.memory);
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size + bytes > LIMITS.hookSpoolBytes) return 'the spool of calls for the memory is full: not recorded';
  try {
    appendPrivately(file, line);
  } catch (err) {
    return `the call was not kept for the memory: ${(err as Error).message}`;
  }
  return undefined;
}

function appendPrivately(file: string, line: string): void {
  const fd = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    fs.writeSync(fd, line);
  } finally {
    fs.closeSync(fd);
  }
}
