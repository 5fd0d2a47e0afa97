/**
 * Markdown transcripts of any exporter: a turn starts at a speaker marker (`**User:**`, `## Assistant`,
 * `### User (2025-12-01 00:39)`, `User: text`) and runs to the next one outside code fences
 * (fences.ts). Bodies quoted with `> ` are unquoted; a body that is a list of API content blocks
 * (Claude session exporters, content-blocks.ts) keeps only its text blocks; a user turn passes
 * Claude Code's rules for commands and injected text (claude.ts), so a tool result, a slash
 * command's expansion or an interruption notice is never the person's words.
 */
import type { EpisodeInput } from '../model/events.js';
import { cleanUserText } from './claude.js';
import { contentBlocks } from './content-blocks.js';
import { Fences } from './fences.js';
import { AGENT_ROLES, authorityForRole, IGNORED_ROLES, type ParsedFile, sessionFromSource, toIsoTime, USER_ROLES } from './transcripts.js';

// "**User:** text", "User: text", "## Assistant", "### User (10:32)", "## USER (2026-07-20 11:20:47)"
const MD_SPEAKER = [
  /^\*\*([A-Za-z][\w .'-]{0,40}?)\s*:?\*\*\s*:?\s*(.*)$/,
  /^#{1,4}\s+([A-Za-z][\w .'-]{0,40}?)\s*(?:\(([^)]*)\))?\s*:?\s*$/,
  /^([A-Z][\w'-]{0,30}(?: [A-Z][\w'-]{0,30})?):\s+(.*)$/,
];

/** A turn's own date on the line under its marker: `> 12/1/2025, 12:39:01 AM` or `> 2025-12-01T00:39:01Z`. */
const TURN_DATE =
  /^>\s*(\d{1,2}\/\d{1,2}\/\d{4},? \d{1,2}:\d{2}(?::\d{2})?(?: ?[AP]M)?|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?Z?)\s*$/;
/** A date in a heading marker's parentheses: `## USER (2026-07-20 11:20:47)`. */
const MARKER_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?Z?)?$/;
/** The session an exporter names in its preamble: `Session ID: abc`, `- **Session ID**: \`abc\``. */
const SESSION_ID = /\bSession ID\**\s*:\s*\**\s*`?([\w-]{6,})`?/i;
/** Claude Code's note that the person stopped a reply: no words of theirs. */
const INTERRUPTED = /^\[Request interrupted by user/;

interface Turn {
  speaker: string;
  lines: string[];
  line: number;
  time?: string;
}

export function parseMarkdown(content: string, source: string): ParsedFile {
  const episodes: EpisodeInput[] = [];
  let session = sessionFromSource(source);
  let current: Turn | undefined;
  let skipped = 0;
  // A transcript's date, when its preamble gives one ("# Session (2025-04-02)"), dates every turn.
  let time: string | undefined;
  // A slash command's expansion follows it as the next user message: the tool's text, not the person's.
  let afterCommand = false;
  const flush = (): void => {
    if (!current) return;
    const role = current.speaker.toLowerCase();
    const user = USER_ROLES.has(role);
    const { text, command } = turnText(unquoted(withoutSeparator(current.lines)).join('\n').trim(), user, afterCommand);
    afterCommand = user && command;
    if (!text || IGNORED_ROLES.has(role)) skipped++;
    else {
      episodes.push({
        text,
        speaker: current.speaker,
        role,
        authority: authorityForRole(current.speaker),
        session,
        source,
        time: current.time ?? time,
        ref: `line ${current.line}`,
      });
    }
    current = undefined;
  };
  const lines = content.split(/\r?\n/);
  // "Note: ...", "**Summary**" and "## Chunk 1" are how replies are written: a name other than a known
  // role is a speaker only when it speaks at least twice, and never inside a code fence.
  const counts = new Map<string, number>();
  for (const raw of lines) {
    for (const pattern of MD_SPEAKER) {
      const m = raw.match(pattern);
      if (m) counts.set(m[1]!.trim(), (counts.get(m[1]!.trim()) ?? 0) + 1);
    }
  }
  const isSpeaker = (name: string): boolean => {
    const lower = name.toLowerCase();
    return USER_ROLES.has(lower) || AGENT_ROLES.has(lower) || IGNORED_ROLES.has(lower) || (counts.get(name) ?? 0) >= 2;
  };
  const fences = new Fences();
  lines.forEach((raw, index) => {
    const fenced = fences.step(raw);
    for (const [p, pattern] of (fenced ? [] : MD_SPEAKER).entries()) {
      const m = raw.match(pattern);
      if (m && isSpeaker(m[1]!.trim())) {
        flush();
        // Pattern 2 (a heading) may carry the turn's date in parentheses; the others carry text.
        const dated = p === 1 && m[2] && MARKER_DATE.test(m[2].trim()) ? toIsoTime(m[2].trim().replace(' ', 'T')) : undefined;
        current = { speaker: m[1]!.trim(), lines: p !== 1 && m[2] ? [m[2]] : [], line: index + 1, time: dated };
        return;
      }
    }
    const stamp = current && !current.lines.some((l) => l.trim()) ? raw.match(TURN_DATE)?.[1] : undefined;
    if (current && stamp && toIsoTime(stamp)) current.time = toIsoTime(stamp);
    else if (current) current.lines.push(raw);
    else {
      time ??= raw.match(/\b(\d{4}-\d{2}-\d{2})\b/)?.[1];
      session = raw.match(SESSION_ID)?.[1] ?? session;
    }
  });
  flush();
  return { format: 'markdown', episodes, skipped };
}

/** A body without the `---` rule exporters put between turns. */
function withoutSeparator(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && /^\s*(---+)?\s*$/.test(lines[end - 1]!)) end--;
  return lines.slice(0, end);
}

/** A body every non-blank line of which is quoted (`> `) is the quote's text. */
function unquoted(lines: string[]): string[] {
  const written = lines.filter((l) => l.trim());
  if (written.length === 0 || !written.every((l) => /^\s{0,3}>/.test(l))) return lines;
  return lines.map((l) => l.replace(/^\s{0,3}> ?/, ''));
}

/** A turn's words, and whether it was a slash command (whose expansion comes next). */
function turnText(body: string, user: boolean, afterCommand: boolean): { text: string; command: boolean } {
  const blocks = contentBlocks(body);
  if (!user) return { text: blocks ? blocks.text : body, command: false };
  if (blocks) {
    // Tool results are the tools' words; text blocks right after a command are its expansion.
    if (afterCommand || blocks.types.includes('tool_result') || INTERRUPTED.test(blocks.text)) return { text: '', command: false };
    return { text: cleanUserText(blocks.text), command: false };
  }
  return { text: cleanUserText(body), command: /<command-name>/.test(body) };
}
