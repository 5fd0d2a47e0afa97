/**
 * Claude conversations exported as text: the claude-conversation-extractor markdown (`## 👤 User` /
 * `## 🤖 Claude` sections, `🔧 Using tool:` blocks) and Claude Code's terminal text, as `/export`
 * writes it or as copied from the terminal (`❯ ` or, in older versions, `> ` prompts; `● ` or `⏺ `
 * assistant blocks; `⎿` tool output). Tool calls, collapsed tool summaries and slash commands
 * without arguments are not turns.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

const MD_HEADING = /^## (?:👤 User|🤖 Claude)\s*$/u;
/** The markers of the terminal text: named in the error when a file has none (detect.ts). */
export const TERMINAL_MARKERS = '"❯ " or "> " prompts with "● " or "⏺ " replies';
const TERMINAL_PROMPT = /^[❯>] /u;
const TERMINAL_REPLY = /^[●⏺] /u;

export function isClaudeExportMarkdown(content: string): boolean {
  return /^## 👤 User\s*$/mu.test(content) && /^## 🤖 Claude\s*$/mu.test(content);
}

export function isClaudeTerminalExport(content: string): boolean {
  const lines = content.split(/\r?\n/);
  // `>` starts a markdown quote and `●` a bullet: only the pairs Claude Code writes count.
  const has = (re: RegExp): boolean => lines.some((l) => re.test(l));
  return (has(/^❯ /u) && has(/^[●⏺] /u)) || (has(/^> /) && has(/^⏺ /u));
}

export function parseClaudeExportMarkdown(content: string, source: string): ParsedFile {
  const session = content.match(/^Session ID: (\S+)/m)?.[1] ?? sessionFromSource(source);
  const time = toIsoTime(
    content
      .match(/^Date: (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/m)
      ?.slice(1, 3)
      .join('T'),
  );
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let current: { role: 'user' | 'assistant'; lines: string[]; line: number } | undefined;
  const flush = (): void => {
    if (!current) return;
    const text = current.lines
      .join('\n')
      .replace(/🔧 Using tool:[\s\S]*$/u, '')
      .replace(/^---\s*$/gm, '')
      .trim();
    if (!text) skipped++;
    else episodes.push(roleTurn(current.role, text, { session, source, time, ref: `line ${current.line}` }));
    current = undefined;
  };
  content.split(/\r?\n/).forEach((line, index) => {
    if (MD_HEADING.test(line)) {
      flush();
      current = { role: line.includes('User') ? 'user' : 'assistant', lines: [], line: index + 1 };
    } else current?.lines.push(line);
  });
  flush();
  return { format: 'claude-export', episodes, skipped };
}

/** `● Bash(…)`, `⏺ Update(file)`: a tool call; `● Read 1 file (ctrl+o to expand)`: a collapsed summary. */
const TOOL_BLOCK = /^[●⏺] (?:[A-Z][\w-]*\(.*$|.*\(ctrl\+\w to expand\)\s*$)/u;
/** The output under a tool call (`⏺ Update Todos` / `  ⎿  ☐ …`): prose replies have none. */
const TOOL_OUTPUT = /^\s+⎿/u;

export function parseClaudeTerminalExport(content: string, source: string): ParsedFile {
  const session = sessionFromSource(source);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let current: { role: 'user' | 'assistant'; lines: string[]; line: number; tool: boolean } | undefined;
  const flush = (): void => {
    if (!current) return;
    const text = current.lines.join('\n').trim();
    if (!text || current.tool) skipped++;
    else episodes.push(roleTurn(current.role, text, { session, source, ref: `line ${current.line}` }));
    current = undefined;
  };
  let output = false;
  content.split(/\r?\n/).forEach((line, index) => {
    const user = TERMINAL_PROMPT.test(line);
    if (user || TERMINAL_REPLY.test(line)) {
      flush();
      output = false;
      const first = [...line].slice(2).join('');
      // A slash command alone (`> /cost`) is an action; with arguments, they are the request.
      const bare = user && /^\/[\w:-]+\s*$/.test(first);
      current = { role: user ? 'user' : 'assistant', lines: [first], line: index + 1, tool: bare || (!user && TOOL_BLOCK.test(line)) };
    } else if (TOOL_OUTPUT.test(line)) {
      // Output right under a block's first line: the block was a tool call; its continuation lines are output too.
      if (current?.role === 'assistant' && !current.lines.slice(1).some((l) => l.trim())) current.tool = true;
      output = true;
    } else if (current && (line.startsWith('  ') || !line.trim())) {
      if (output && line.trim()) return;
      output = false;
      current.lines.push(line.replace(/^ {2}/, ''));
    } else flush();
  });
  flush();
  return { format: 'claude-export', episodes, skipped };
}
