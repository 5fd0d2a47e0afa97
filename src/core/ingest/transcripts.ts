/**
 * Parsers for conversation transcripts a person has on disk: generic JSONL (one turn a line)
 * and markdown. Pure functions from file content to episodes; the caller stores them.
 */
import type { Authority } from '../model/config.js';
import type { EpisodeInput } from '../model/events.js';

export interface ParsedFile {
  format: string;
  episodes: EpisodeInput[];
  /** Lines or blocks that were not turns (tool noise, blank roles), counted so nothing vanishes silently. */
  skipped: number;
}

const AGENT_ROLES = new Set(['assistant', 'model', 'agent', 'ai', 'bot', 'copilot', 'claude']);
const IGNORED_ROLES = new Set(['system', 'tool', 'function', 'developer']);

/** A turn spoken by the assistant is the model's word; anything a person said is `user`. */
export function authorityForRole(role: string | undefined): Authority {
  return role && AGENT_ROLES.has(role.toLowerCase()) ? 'agent' : 'user';
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

// "**User:** text", "User: text", "## Assistant", "### User (10:32)"
const MD_SPEAKER = [
  /^\*\*([A-Za-z][\w .'-]{0,40}?)\s*:?\*\*\s*:?\s*(.*)$/,
  /^#{1,4}\s+([A-Za-z][\w .'-]{0,40}?)\s*(?:\([^)]*\))?\s*:?\s*$/,
  /^([A-Z][\w'-]{0,30}(?: [A-Z][\w'-]{0,30})?):\s+(.*)$/,
];

/** Markdown transcripts: a turn starts at a speaker marker and runs to the next one. */
export function parseMarkdown(content: string, source: string): ParsedFile {
  const episodes: EpisodeInput[] = [];
  const session = sessionFromSource(source);
  let current: { speaker: string; lines: string[]; line: number } | undefined;
  let skipped = 0;
  // A transcript's date, when its preamble gives one ("# Session (2025-04-02)"), dates every turn.
  let time: string | undefined;
  const flush = (): void => {
    if (!current) return;
    const text = current.lines.join('\n').trim();
    if (!text) skipped++;
    else if (IGNORED_ROLES.has(current.speaker.toLowerCase())) skipped++;
    else {
      episodes.push({
        text,
        speaker: current.speaker,
        role: current.speaker.toLowerCase(),
        authority: authorityForRole(current.speaker),
        session,
        source,
        time,
        ref: `line ${current.line}`,
      });
    }
    current = undefined;
  };
  const lines = content.split(/\r?\n/);
  // "Name: text" is also how prose says "Note: ..."; only names that speak at least twice count.
  const plainCounts = new Map<string, number>();
  for (const raw of lines) {
    const m = raw.match(MD_SPEAKER[2]!);
    if (m) plainCounts.set(m[1]!, (plainCounts.get(m[1]!) ?? 0) + 1);
  }
  lines.forEach((raw, index) => {
    for (const [i, pattern] of MD_SPEAKER.entries()) {
      const m = raw.match(pattern);
      if (m && (i < 2 || (plainCounts.get(m[1]!) ?? 0) >= 2)) {
        flush();
        current = { speaker: m[1]!.trim(), lines: m[2] ? [m[2]] : [], line: index + 1 };
        return;
      }
    }
    if (current) current.lines.push(raw);
    else time ??= raw.match(/\b(\d{4}-\d{2}-\d{2})\b/)?.[1];
  });
  flush();
  return { format: 'markdown', episodes, skipped };
}

function sessionFromSource(source: string): string {
  return (source.split(/[\\/]/).pop() ?? source).replace(/\.[^.]+$/, '');
}
