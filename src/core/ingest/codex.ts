/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`). Current format: a
 * `session_meta` line (payload.id = session), `response_item` lines whose payload `{type: "message",
 * role, content: [{type: "input_text"|"output_text", text}]}` are the conversation, `event_msg` lines
 * repeating them (ignored), `turn_context` and tool-call lines. Older rollouts open with
 * `{id, timestamp, instructions}` and hold bare `{type: "message", role, content}` lines.
 * User messages that are injected context (`<environment_context>`, `<user_instructions>`, AGENTS.md)
 * are not the person's; from an IDE context message only "## My request for Codex:" is kept.
 */
import type { EpisodeInput } from '../model/events.js';
import { jsonValues, type JsonStream } from './json-stream.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const INJECTED = /^\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions|<permissions instructions>)/;
const IDE_REQUEST = /## My request for Codex:\s*([\s\S]*)$/;

export function isCodexRollout(values: unknown[]): boolean {
  const first = values.find(isObj);
  if (!first) return false;
  if (first.type === 'session_meta' && isObj(first.payload)) return true;
  return typeof first.id === 'string' && 'instructions' in first && values.some((v) => isObj(v) && v.type === 'message');
}

export function parseCodexRollout(content: string, source: string, stream: JsonStream = jsonValues(content)): ParsedFile {
  const { values, bad } = stream;
  let skipped = bad;
  let session = sessionFromSource(source);
  let time: string | undefined;
  let cwd: string | undefined;
  const episodes: EpisodeInput[] = [];
  for (const { value, line } of values) {
    if (!isObj(value)) {
      skipped++;
      continue;
    }
    if (value.type === 'session_meta' && isObj(value.payload)) {
      if (typeof value.payload.id === 'string') session = value.payload.id;
      time = toIsoTime(value.payload.timestamp) ?? time;
      if (typeof value.payload.cwd === 'string' && value.payload.cwd) cwd = value.payload.cwd;
      continue;
    }
    if (line === 1 && typeof value.id === 'string' && 'instructions' in value) {
      session = value.id;
      time = toIsoTime(value.timestamp) ?? time;
      continue;
    }
    const message = value.type === 'response_item' && isObj(value.payload) ? value.payload : value;
    if (message.type !== 'message' || (message.role !== 'user' && message.role !== 'assistant')) {
      skipped++;
      continue;
    }
    const lineTime = toIsoTime(value.timestamp) ?? time;
    const text = userText(message.role, partsText(message.content));
    if (!text) {
      skipped++;
      continue;
    }
    episodes.push(roleTurn(message.role, text, { session, source, time: lineTime, ref: `line ${line}` }));
  }
  return { format: 'codex', episodes, skipped, ...(cwd ? { cwd } : {}) };
}

function userText(role: string, text: string): string {
  if (role !== 'user') return text.trim();
  if (INJECTED.test(text)) return '';
  const request = text.match(IDE_REQUEST);
  return (request ? request[1]! : text).trim();
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) =>
      isObj(p) && (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string' ? p.text : '',
    )
    .filter((t) => t.trim())
    .join('\n\n');
}
