/**
 * Parsers for conversation transcripts a person has on disk: generic JSONL (one turn a line) and
 * JSON message arrays (markdown is markdown.ts), and what every parser shares. Pure functions from
 * file content to episodes; the caller stores them.
 */
import type { Authority } from '../model/config.js';
import type { EpisodeInput } from '../model/events.js';
import type { Dating } from './dates.js';

export interface ParsedFile {
  format: string;
  episodes: EpisodeInput[];
  /** Lines or blocks that were not turns (tool noise, blank roles), counted so nothing vanishes silently. */
  skipped: number;
  /** The folder the conversation was held in, when the file says (Claude Code, Codex): its project is the turns'. */
  cwd?: string;
  /** How the turns were dated (set when read from a file: files.ts). */
  dating?: Dating;
  /** Refs of turns of a text format longer than a turn should be: a marker may have been misread (detect.ts). */
  suspect?: string[];
}

export const USER_ROLES = new Set(['user', 'human', 'me', 'you', 'person']);
export const AGENT_ROLES = new Set(['assistant', 'model', 'agent', 'ai', 'bot', 'copilot', 'claude', 'gemini', 'chatgpt', 'gpt', 'cursor']);
export const IGNORED_ROLES = new Set(['system', 'tool', 'function', 'developer']);

/**
 * A host's notice of a finished background task, sent as a user turn: Claude Code's `<task-notification>`
 * (in its logs and in a SpecStory export of them), Cursor's `<system_notification>`. The host's words, no turn.
 */
export const HOST_NOTICE = /^<(?:task-notification|system_notification)>/;

/** Only a turn known to be the person's is `user`; the assistant's, or a speaker we cannot place, is `agent`. */
export function authorityForRole(role: string | undefined): Authority {
  return role && USER_ROLES.has(role.toLowerCase()) ? 'user' : 'agent';
}

/** A turn whose role the format states: the person's at `user` authority, the assistant's at `agent`. */
export function roleTurn(
  role: 'user' | 'assistant',
  text: string,
  at: { session: string; source: string; ref: string; time?: string },
): EpisodeInput {
  return { text, speaker: role, role, authority: authorityForRole(role), ...at };
}

/** Text of a message content that may be a string or a list of typed parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'string'
          ? part
          : part && typeof part === 'object' && (part as { type?: string }).type === 'text'
            ? String((part as { text?: unknown }).text ?? '')
            : '',
      )
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

/** `{"speaker"|"role", "text"|"content", "time"?, "session"?}` a line. */
export function parseJsonl(content: string, source: string): ParsedFile {
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  const defaultSession = sessionFromSource(source);
  content.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    let turn: Record<string, unknown>;
    try {
      turn = JSON.parse(line);
    } catch {
      throw new Error(`${source}:${index + 1} is not valid JSON; each line must be one turn object.`);
    }
    if (!turn || typeof turn !== 'object') return void skipped++;
    const role = typeof turn.role === 'string' ? turn.role : undefined;
    if (role && IGNORED_ROLES.has(role.toLowerCase())) return void skipped++;
    const text = contentText(turn.text ?? turn.content).trim();
    if (!text) return void skipped++;
    const speaker = typeof turn.speaker === 'string' ? turn.speaker : role;
    episodes.push({
      text,
      speaker,
      role: role ?? undefined,
      authority: authorityForRole(role ?? (typeof turn.speaker === 'string' ? turn.speaker : undefined)),
      session: typeof turn.session === 'string' ? turn.session : defaultSession,
      time: typeof turn.time === 'string' ? turn.time : undefined,
      source,
      ref: `line ${index + 1}`,
    });
  });
  return { format: 'jsonl', episodes, skipped };
}

/** The file's name without its extension: a session name when the content gives none. */
export function sessionFromSource(source: string): string {
  return (source.split(/[\\/]/).pop() ?? source).replace(/\.[^.]+$/, '');
}

/** An ISO time when `v` is a parseable date (string, or epoch seconds/ms), else undefined. */
export function toIsoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) {
    const d = new Date(v < 1e11 ? v * 1000 : v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  if (typeof v !== 'string' || !v.trim()) return undefined;
  const d = new Date(/^\d+$/.test(v) ? Number(v) : v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** A JSON array of `{role, content}` messages (OpenAI/Ollama style), or undefined when it is not one. */
export function messageArray(json: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(json) || json.length === 0) return undefined;
  const isMessage = (m: unknown): m is Record<string, unknown> =>
    !!m && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string' && ('content' in m || 'text' in m);
  return json.every(isMessage) ? json : undefined;
}

export function parseMessageArray(messages: Record<string, unknown>[], source: string): ParsedFile {
  const session = sessionFromSource(source);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  messages.forEach((m, index) => {
    const role = String(m.role);
    const text = contentText(m.content ?? m.text).trim();
    if (!text || IGNORED_ROLES.has(role.toLowerCase())) return void skipped++;
    const time = toIsoTime(m.time ?? m.timestamp ?? m.created_at);
    episodes.push({ text, speaker: role, role, authority: authorityForRole(role), session, source, time, ref: `message ${index + 1}` });
  });
  return { format: 'json-messages', episodes, skipped };
}
