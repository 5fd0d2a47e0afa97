/**
 * GitHub Copilot Chat sessions as VS Code keeps them in workspace storage:
 * `<workspaceStorage>/<id>/chatSessions/<sessionId>.json` (older) or `.jsonl` (newer), and
 * `globalStorage/emptyWindowChatSessions/` for windows without a folder. Pure: content in, episodes out.
 *
 * Shapes handled (all defensively: a part or request of unknown shape is skipped and counted):
 *
 * 1. One JSON document (ISerializableChatData v1–v3, and the "Chat: Export Chat…" file):
 *    `{ version?, sessionId?, creationDate?, lastMessageDate?, requesterUsername?, responderUsername?,
 *       customTitle?, requests: Request[] }`.
 * 2. JSONL operation log (VS Code's ObjectMutationLog): line 1 `{kind: 0, v: <shape 1>}`, then
 *    `{kind: 1, k: path, v}` set, `{kind: 2, k: path, v?: [], i?: n}` truncate the array at `k` to `i`
 *    (when given) then append `v`, `{kind: 3, k: path}` delete. The log is replayed to its final state,
 *    then read as shape 1, so edit-and-resend splices and compaction rewrites come out right.
 *    A torn or unreadable line is skipped and counted; the state before it is kept.
 *
 * Request: `{ requestId?, timestamp? (epoch ms or ISO), message: string | {text?, parts?: [{text}]},
 *   response?: Part[] | {value} | string, result?: {timings?: {totalElapsed}}, isCanceled?,
 *   isSystemInitiated?, hiddenFromTranscript? }`; some third-party files hold `{timestamp, prompt,
 *   completion}` requests instead, read the same way.
 * Response parts: markdown `{value: string}` (no `kind`), `{kind: 'markdownContent'|'markdownVuln',
 *   content: {value}}`, `{kind: 'inlineReference', inlineReference: uri | {uri} | {name, location}, name?}`
 *   (rendered as the file or symbol name in backticks). Everything else — `thinking`,
 *   `toolInvocationSerialized`, `prepareToolInvocation`, `textEditGroup`, `codeblockUri`, `undoStop`,
 *   `progressMessage`, `confirmation`, `questionCarousel`, `mcpServersStarting`, … — is tool noise.
 *
 * Each request gives up to two episodes: the person's message (`user` authority) and the assistant's
 * markdown (`agent` authority), both with the session id, the request's time and `ref`
 * `<requestId>` / `<requestId>/response` (or `request N` when there is no id), so a re-import or a
 * grown session adds only its new turns. System-initiated requests are not the person's words: skipped.
 * In an operation log, the answer of the last request is taken only once it has a `result` (until then
 * it may still be streaming, and a partial copy would later sit beside the finished one).
 */
import { createHash } from 'node:crypto';
import type { EpisodeInput } from '../model/events.js';
import { withSessionTitle } from './session-title.js';
import { sessionFromSource, toIsoTime, type ParsedFile } from './transcripts.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when the parsed JSON (a session document, or the first line of an operation log) is a Copilot Chat session. */
export function isCopilotChatSession(json: unknown): boolean {
  if (typeof json === 'string') {
    const first = json.trimStart().split(/\r?\n/, 1)[0] ?? '';
    try {
      return isCopilotChatSession(JSON.parse(json));
    } catch {
      try {
        return isCopilotChatSession(JSON.parse(first));
      } catch {
        return false;
      }
    }
  }
  if (!isObj(json)) return false;
  if (json.kind === 0 && isObj(json.v)) return isSessionDocument(json.v);
  return isSessionDocument(json);
}

function isSessionDocument(o: Obj): boolean {
  if (!Array.isArray(o.requests)) return false;
  const marked =
    typeof o.sessionId === 'string' ||
    typeof o.requesterUsername === 'string' ||
    typeof o.responderUsername === 'string' ||
    typeof o.creationDate === 'number' ||
    typeof o.version === 'number';
  // An empty session is still a session; otherwise the requests must look like chat requests.
  return (
    marked &&
    (o.requests.length === 0 ||
      o.requests.some((r) => isObj(r) && ('message' in r || 'response' in r || 'requestId' in r || 'prompt' in r)))
  );
}

/** Parses a Copilot Chat session file (JSON document or JSONL operation log). Never throws on bad content. */
/** `parsed`: the file as one JSON value, when the caller has read it so already. */
export function parseCopilotChat(content: string, source: string, parsed?: unknown): ParsedFile {
  let skipped = 0;
  let state: unknown;
  let fromLog = false;
  const text = content.replace(/^\uFEFF/, '');
  try {
    state = parsed ?? JSON.parse(text);
    if (isObj(state) && state.kind === 0 && 'v' in state) state = state.v;
  } catch {
    const replay = replayLog(text);
    state = replay.state;
    skipped += replay.skipped;
    fromLog = true;
  }
  if (!isObj(state) || !Array.isArray(state.requests)) {
    return { format: 'copilot', episodes: [], skipped: skipped + (text.trim() ? 1 : 0) };
  }
  const session = sessionOf(state, source);
  const sessionTime = toIsoTime(state.creationDate);
  const episodes: EpisodeInput[] = [];
  const requests = state.requests as unknown[];
  requests.forEach((request, index) => {
    if (!isObj(request)) return void (skipped += 2);
    if (request.isSystemInitiated === true || request.hiddenFromTranscript === true) return void (skipped += 2);
    const id = typeof request.requestId === 'string' && request.requestId ? request.requestId : `request ${index + 1}`;
    const time = toIsoTime(request.timestamp) ?? sessionTime;
    const said = messageText(request.message ?? request.prompt);
    if (said) {
      episodes.push({ text: said, speaker: 'user', role: 'user', authority: 'user', session, source, ref: id, time });
    } else skipped++;
    // In a live log the last request may still be streaming (no `result` yet): its answer is not final,
    // and taking it now would store a truncated copy beside the finished one later.
    const streaming = fromLog && index === requests.length - 1 && request.result === undefined && request.isCanceled !== true;
    const answer = streaming ? '' : responseText(request.response ?? request.completion);
    if (answer) {
      const elapsed = isObj(request.result) && isObj(request.result.timings) ? request.result.timings.totalElapsed : undefined;
      const answeredAt = time && typeof elapsed === 'number' && elapsed > 0 ? new Date(Date.parse(time) + elapsed).toISOString() : time;
      episodes.push({
        text: answer,
        speaker: 'assistant',
        role: 'assistant',
        authority: 'agent',
        session,
        source,
        ref: `${id}/response`,
        time: answeredAt,
      });
    } else skipped++;
  });
  // v3 keeps the name a person gave the chat (or VS Code generated) as customTitle; v2 as computedTitle.
  return { format: 'copilot', episodes: withSessionTitle(episodes, state.customTitle ?? state.computedTitle), skipped };
}

/** Replays an ObjectMutationLog to the state it describes. */
function replayLog(content: string): { state: unknown; skipped: number } {
  let state: unknown;
  let skipped = 0;
  for (const line of content.split(/\r?\n/)) {
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (!isObj(entry)) {
      skipped++;
      continue;
    }
    if (entry.kind === 0) {
      state = entry.v;
      continue;
    }
    if (!applyEntry(state, entry)) skipped++;
  }
  return { state, skipped };
}

function applyEntry(state: unknown, entry: Obj): boolean {
  const path = entry.k;
  if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string' || typeof p === 'number')) return false;
  const keys = path as (string | number)[];
  if (entry.kind === 2) {
    const target = walk(state, keys, true);
    if (!Array.isArray(target)) return false;
    if (typeof entry.i === 'number' && entry.i >= 0 && entry.i < target.length) target.length = entry.i;
    if (Array.isArray(entry.v)) target.push(...entry.v);
    return true;
  }
  const parent = walk(state, keys.slice(0, -1), false);
  const last = keys[keys.length - 1]!;
  if (!isObj(parent) && !Array.isArray(parent)) return false;
  if (isUnsafeKey(last)) return false;
  const container = parent as Record<string | number, unknown>;
  if (entry.kind === 1) {
    container[last] = entry.v;
    return true;
  }
  if (entry.kind === 3) {
    delete container[last];
    return true;
  }
  return false;
}

/** The value at a path; with `createArray`, a missing last step becomes an empty array. */
function walk(state: unknown, keys: (string | number)[], createArray: boolean): unknown {
  let node: unknown = state;
  for (const [i, key] of keys.entries()) {
    if (isUnsafeKey(key) || (!isObj(node) && !Array.isArray(node))) return undefined;
    const container = node as Record<string | number, unknown>;
    if (container[key] === undefined && createArray && i === keys.length - 1) container[key] = [];
    node = container[key];
  }
  return node;
}

const isUnsafeKey = (k: string | number): boolean => k === '__proto__' || k === 'constructor' || k === 'prototype';

function messageText(message: unknown): string {
  if (typeof message === 'string') return message.trim();
  if (!isObj(message)) return '';
  if (typeof message.text === 'string' && message.text.trim()) return message.text.trim();
  if (Array.isArray(message.parts)) {
    return message.parts
      .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
      .join('')
      .trim();
  }
  return '';
}

function responseText(response: unknown): string {
  if (typeof response === 'string') return response.trim();
  if (isObj(response)) {
    if (typeof response.value === 'string') return response.value.trim();
    if (Array.isArray(response.value)) return responseText(response.value);
    return '';
  }
  if (!Array.isArray(response)) return '';
  const blocks: string[] = [];
  let current = '';
  const breakBlock = (): void => {
    if (current.trim()) blocks.push(current.trim());
    current = '';
  };
  for (const part of response) {
    if (typeof part === 'string') {
      current += part;
      continue;
    }
    if (!isObj(part)) continue;
    const kind = typeof part.kind === 'string' ? part.kind : undefined;
    if (kind === undefined && typeof part.value === 'string') current += part.value;
    else if ((kind === 'markdownContent' || kind === 'markdownVuln') && isObj(part.content) && typeof part.content.value === 'string') {
      current += part.content.value;
    } else if (kind === 'inlineReference') {
      const name = referenceName(part);
      if (name) current += `\`${name}\``;
    } else breakBlock(); // a tool call, edit or progress message stands between two runs of prose
  }
  breakBlock();
  // A code block whose body was a codeblockUri or textEditGroup part is left as an empty fence.
  return blocks
    .join('\n\n')
    .replace(/^[ \t]*```[\w-]*[ \t]*\n(?:[ \t]*\n)*[ \t]*```[ \t]*$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function referenceName(part: Obj): string | undefined {
  if (typeof part.name === 'string' && part.name) return part.name;
  const ref = part.inlineReference;
  if (!isObj(ref)) return undefined;
  if (typeof ref.name === 'string' && ref.name) return ref.name;
  const uri = isObj(ref.uri) ? ref.uri : isObj(ref.location) && isObj(ref.location.uri) ? ref.location.uri : ref;
  const p = typeof uri.path === 'string' ? uri.path : typeof uri.fsPath === 'string' ? uri.fsPath : undefined;
  return p ? p.split(/[\\/]/).filter(Boolean).pop() : undefined;
}

/**
 * The session's own id. An export has none ("chat.json" is VS Code's default export name, so the file
 * name alone would merge unrelated chats): the first request's id, else a digest of its text, tells it apart.
 */
function sessionOf(state: Obj, source: string): string {
  if (typeof state.sessionId === 'string' && state.sessionId) return state.sessionId;
  const first = (state.requests as unknown[]).find(isObj);
  const base = sessionFromSource(source);
  if (!first) return base;
  if (typeof first.requestId === 'string' && first.requestId) return `${base} ${first.requestId}`;
  const digest = createHash('sha256')
    .update(messageText(first.message ?? first.prompt) + String(first.timestamp ?? ''))
    .digest('hex')
    .slice(0, 12);
  return `${base} ${digest}`;
}
