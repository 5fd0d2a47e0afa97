/**
 * Claude Code transcripts: `~/.claude/projects/<project>/<sessionId>.jsonl`, one event a line (or
 * the same events pretty-printed, as some people commit them). Pure: content in, episodes out.
 *
 * Lines kept (one episode each):
 * - `{type: "user", message: {role: "user", content: string | Part[]}, uuid, sessionId, timestamp, ...}`:
 *   the person's typed text (`user` authority). Text parts only; `<system-reminder>` blocks removed;
 *   a slash command keeps its name and arguments (`/review focus on auth`). Also the person's: a
 *   prompt typed while the agent was busy (`{type: "attachment", attachment: {type: "queued_command",
 *   prompt}}`) and answers to the agent's AskUserQuestion tool ("User has answered your questions: …").
 *   A plan approved in plan mode comes as a `user` line with `planContent`: the plan is the agent's
 *   words, so the turn is the assistant's (`agent` authority).
 * - `{type: "assistant", message: {role: "assistant", content: Part[], model, id}, uuid, ...}`: the
 *   assistant's text parts (`agent` authority). Claude Code writes one line per content block, so a
 *   reply interleaved with tool calls gives one episode per text block, each with its own uuid.
 *
 * Lines skipped and counted: other types (`summary`, `system`, `file-history-snapshot`,
 * `queue-operation`, `progress`, …), sidechains (`isSidechain: true`, sub-agent runs), `isMeta` lines
 * (caveats), compaction summaries (`isCompactSummary`), API error messages, synthetic assistant lines,
 * background-task reports (`origin.kind: "task-notification"`, `<task-notification>` text),
 * lines with only `tool_use` / `tool_result` / `thinking` / image parts, local command output
 * (`<local-command-stdout>`, `<bash-stdout>`…), interruption notices, and unreadable JSON (a torn last
 * line while Claude Code is writing is normal).
 *
 * Each episode: session = `sessionId` (else the file name), ref = `uuid` (else `line N`),
 * time = `timestamp`, role and speaker `user` / `assistant`.
 */
import type { EpisodeInput } from '../model/events.js';
import { withSessionTitle } from './session-title.js';
import { HOST_NOTICE, sessionFromSource, type ParsedFile } from './transcripts.js';
import { jsonValues, type JsonStream } from './json-stream.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'summary',
  'system',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'result',
  'attachment',
]);

/** True when the start of a file (a string, or a list of lines) holds Claude Code transcript events, one a line or pretty-printed. */
export function isClaudeCodeJsonl(firstLines: string | string[]): boolean {
  return isClaudeCodeStream(jsonValues(Array.isArray(firstLines) ? firstLines.join('\n') : firstLines));
}

/** The same judgement on a file already read as JSON values (its first 50 decide). */
export function isClaudeCodeStream(stream: JsonStream): boolean {
  let claude = 0;
  for (const { value: o } of stream.values.slice(0, 50)) {
    if (!isObj(o)) return false;
    const type = o.type;
    if (typeof type !== 'string' || !CLAUDE_TYPES.has(type)) continue;
    if ((type === 'user' || type === 'assistant') && isObj(o.message) && (typeof o.sessionId === 'string' || typeof o.uuid === 'string'))
      claude++;
    else if (type === 'summary' && typeof o.leafUuid === 'string') claude++;
    else if (type === 'file-history-snapshot' && (typeof o.messageId === 'string' || isObj(o.snapshot))) claude++;
    else if (typeof o.sessionId === 'string') claude++;
  }
  return claude > 0;
}

/** Parses a Claude Code transcript. Never throws on bad content: what is not a text turn is skipped and counted. */
export function parseClaudeCode(content: string, source: string, stream: JsonStream = jsonValues(content)): ParsedFile {
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  const fallbackSession = sessionFromSource(source);
  const { values, bad } = stream;
  skipped += bad;
  let cwd: string | undefined;
  const summaries = new Map<string, string>();
  const uuids = new Set<string>();
  for (const { value: event, line } of values) {
    if (cwd === undefined && isObj(event) && typeof event.cwd === 'string' && event.cwd) cwd = event.cwd;
    if (isObj(event) && event.type === 'summary' && typeof event.summary === 'string') summaries.set(String(event.leafUuid), event.summary);
    if (isObj(event) && typeof event.uuid === 'string') uuids.add(event.uuid);
    const turn = isObj(event) ? turnOf(event) : undefined;
    if (!turn) {
      skipped++;
      continue;
    }
    const e = event as Obj;
    episodes.push({
      text: turn.text,
      speaker: turn.role,
      role: turn.role,
      authority: turn.role === 'assistant' ? 'agent' : 'user',
      session: typeof e.sessionId === 'string' && e.sessionId ? e.sessionId : fallbackSession,
      ref: typeof e.uuid === 'string' && e.uuid ? e.uuid : `line ${line}`,
      time: validTime(e.timestamp),
      source,
    });
  }
  return { format: 'claude-code', episodes: withSessionTitle(episodes, summaryOf(summaries, uuids)), skipped, ...(cwd ? { cwd } : {}) };
}

/**
 * Claude Code names a session by a summary line; a resumed session's file also carries the summaries
 * of the sessions it continues. The one whose leaf is a turn of this file is this session's; else the last.
 */
function summaryOf(summaries: Map<string, string>, uuids: Set<string>): string | undefined {
  for (const [leaf, summary] of summaries) if (uuids.has(leaf)) return summary;
  return [...summaries.values()].pop();
}

function turnOf(e: Obj): { role: 'user' | 'assistant'; text: string } | undefined {
  const type = e.type;
  // A prompt typed while the agent was busy exists only as this attachment: the person's words.
  if (type === 'attachment' && isObj(e.attachment) && e.attachment.type === 'queued_command') {
    const prompt = e.attachment.prompt;
    const text = typeof prompt === 'string' ? cleanUserText(prompt) : '';
    return text ? { role: 'user', text } : undefined;
  }
  if (type !== 'user' && type !== 'assistant') return undefined;
  if (e.isSidechain === true || e.isMeta === true || e.isCompactSummary === true || e.isApiErrorMessage === true) return undefined;
  if (e.isVisibleInTranscriptOnly === true) return undefined;
  if (isObj(e.origin) && e.origin.kind === 'task-notification') return undefined;
  const message = e.message;
  if (!isObj(message)) return undefined;
  const role = message.role ?? type;
  if (role !== type) return undefined;
  if (type === 'assistant' && message.model === '<synthetic>') return undefined;
  if (type === 'user') {
    // Approving a plan made in plan mode sends the agent's plan in the person's name ("Implement the following plan:"):
    // the words are the agent's, and so is the turn.
    if (typeof e.planContent === 'string' && e.planContent.trim()) return { role: 'assistant', text: cleanAssistantText(e.planContent) };
    const answer = questionAnswer(message.content);
    if (answer) return { role: 'user', text: answer };
  }
  const raw = textParts(message.content);
  const text = type === 'user' ? cleanUserText(raw) : cleanAssistantText(raw);
  return text ? { role: type, text } : undefined;
}

/** The person's answers to the agent's AskUserQuestion tool come back as that tool's result. */
function questionAnswer(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    if (!isObj(part) || part.type !== 'tool_result') continue;
    const text = typeof part.content === 'string' ? part.content : textParts(part.content);
    if (text.startsWith('User has answered your questions:')) return text.trim();
  }
  return undefined;
}

/** The text of a content that is a string or a list of parts; tool_use, tool_result, thinking and images are dropped. */
function textParts(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'string' ? p : isObj(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .filter((t) => t.trim())
    .join('\n\n');
}

const NOISE_TAGS = [
  'local-command-stdout',
  'local-command-stderr',
  'bash-input',
  'bash-stdout',
  'bash-stderr',
  'user-prompt-submit-hook',
  'system-reminder',
  'local-command-caveat',
];
const INTERRUPTED = /^\[Request interrupted by user[^\]]*\]$/;
/** Typed `user` by Claude Code but written by it: command caveats (and task reports: HOST_NOTICE). */
const CAVEAT = /^Caveat: The messages below were generated/;

/** The person's words in a user message's text: Claude Code's wrappers removed, its own messages and bare commands dropped (''). */
export function cleanUserText(raw: string): string {
  let text = raw;
  for (const tag of NOISE_TAGS) text = text.replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, 'g'), '');
  // A slash command: `<command-name>/review</command-name><command-message>…</command-message><command-args>…</command-args>`.
  const name = text.match(/<command-name>([\s\S]*?)<\/command-name>/)?.[1]?.trim();
  if (name !== undefined) {
    const args = text.match(/<command-args>([\s\S]*?)<\/command-args>/)?.[1]?.trim() ?? '';
    const rest = text.replace(/<(command-name|command-message|command-args|command-contents)>[\s\S]*?<\/\1>/g, '').trim();
    // A command without arguments (/clear, /compact) is an action, not words to remember.
    text = args ? `${name.startsWith('/') ? name : `/${name}`} ${args}${rest ? `\n${rest}` : ''}` : rest;
  }
  text = text.trim();
  if (INTERRUPTED.test(text) || HOST_NOTICE.test(text) || CAVEAT.test(text)) return '';
  return text;
}

function cleanAssistantText(raw: string): string {
  const text = raw.trim();
  if (text === '(no content)' || text === 'No response requested.') return '';
  return text;
}

function validTime(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.trim()) return undefined;
  return Number.isNaN(Date.parse(v)) ? undefined : v;
}
