/**
 * Gemini CLI chats saved as markdown: `/chat share` sections headed `🧑‍💻 ## USER` / `✨ ## MODEL`
 * (older) or `## USER 🧑‍💻` / `## MODEL ✨` (newer), and exports written `**User:**` / `**Model:**`
 * with `> `-quoted bodies. USER parts that carry a `**Tool Response**`, the CLI's setup context, the
 * `/init` prompt or the "Please continue." the CLI sends by itself are not the person's words, nor
 * is the model's fixed "Got it. Thanks for the context!" its reply; a MODEL part keeps the prose
 * before its tool calls.
 */
import type { EpisodeInput } from '../model/events.js';
import { Fences } from './fences.js';
import { parseMarkdown } from './markdown.js';
import { type ParsedFile, roleTurn, sessionFromSource } from './transcripts.js';

const HEADING = /^(?:\S+\s+)?## (USER|MODEL)(?:\s+\S+)?\s*$/u;
const NOT_TYPED = [
  /^\*\*Tool Response\*\*/,
  /^This is the Gemini CLI\. We are setting up the context/,
  /^You are an AI agent that brings the power of Gemini/,
  // The CLI's own nudge when its check says the model should speak next.
  /^Please continue\.$/,
];
/** The model's part of the CLI's setup history: written by the CLI, not said by the model. */
const SETUP_REPLY = /^Got it\. Thanks for the context!$/;
const TOOL_CALL = /\*\*Tool (?:Command|Call):?\*\*:?[\s\S]*$/;

/** The date the CLI's setup context states ("Today's date is Monday, August 11, 2025."): the chat's day. */
function setupDate(content: string): string | undefined {
  const m = content.match(/Today's date is (?:\w+, )?(\w+ \d{1,2}, \d{4})/);
  const day = m ? new Date(`${m[1]} 12:00 UTC`) : undefined;
  return day && !Number.isNaN(day.getTime()) ? day.toISOString().slice(0, 10) : undefined;
}

/** `**User:**` / `**Model:**` parts whose bodies are quoted. */
export function isGeminiQuoted(content: string): boolean {
  const m = content.match(/^\*\*User:\*\*\s*\n+(.*)$/m);
  return m !== null && m[1]!.startsWith('>') && /^\*\*Model:\*\*\s*$/m.test(content);
}

export function parseGeminiQuoted(content: string, source: string): ParsedFile {
  const read = parseMarkdown(content, source);
  const day = setupDate(content);
  let skipped = read.skipped;
  const episodes = read.episodes.flatMap((e) => {
    const text = e.authority === 'user' ? e.text : e.text.replace(TOOL_CALL, '').trim();
    if (!text || NOT_TYPED.some((p) => p.test(text)) || (e.authority !== 'user' && SETUP_REPLY.test(text))) {
      skipped++;
      return [];
    }
    return [{ ...e, text, time: e.time ?? day }];
  });
  return { format: 'gemini', episodes, skipped };
}

export function isGeminiShare(content: string): boolean {
  const lines = content.split(/\r?\n/);
  return lines.some((l) => /USER/.test(l) && HEADING.test(l)) && lines.some((l) => /MODEL/.test(l) && HEADING.test(l));
}

export function parseGeminiShare(content: string, source: string): ParsedFile {
  const session = sessionFromSource(source);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let current: { role: 'user' | 'assistant'; lines: string[]; line: number } | undefined;
  const flush = (): void => {
    if (!current) return;
    const user = current.role === 'user';
    let text = current.lines
      .join('\n')
      .replace(/^---\s*$/gm, '')
      .trim();
    if (user && NOT_TYPED.some((p) => p.test(text))) text = '';
    if (!user) text = text.replace(TOOL_CALL, '').trim();
    if (!user && SETUP_REPLY.test(text)) text = '';
    if (!text) skipped++;
    else episodes.push(roleTurn(current.role, text, { session, source, time: day, ref: `line ${current.line}` }));
    current = undefined;
  };
  const day = setupDate(content);
  const fences = new Fences();
  content.split(/\r?\n/).forEach((line, index) => {
    const m = fences.step(line) ? null : line.match(HEADING);
    if (m) {
      flush();
      current = { role: m[1] === 'USER' ? 'user' : 'assistant', lines: [], line: index + 1 };
    } else current?.lines.push(line);
  });
  flush();
  return { format: 'gemini', episodes, skipped };
}
