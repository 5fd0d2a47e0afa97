/**
 * Claude conversations exported as text: the claude-conversation-extractor markdown (`## 👤 User` /
 * `## 🤖 Claude` sections, `🔧 Using tool:` blocks) and Claude Code's `/export` terminal text
 * (`❯ ` prompts, `● ` assistant blocks, `⎿` tool output). Tool calls and collapsed tool summaries
 * are not turns.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

const MD_HEADING = /^## (?:👤 User|🤖 Claude)\s*$/u;
const TERMINAL_PROMPT = /^❯ /;
const TERMINAL_REPLY = /^● /;

export function isClaudeExportMarkdown(content: string): boolean {
  return /^## 👤 User\s*$/mu.test(content) && /^## 🤖 Claude\s*$/mu.test(content);
}

export function isClaudeTerminalExport(content: string): boolean {
  const lines = content.split(/\r?\n/);
  return lines.some((l) => TERMINAL_PROMPT.test(l)) && lines.some((l) => TERMINAL_REPLY.test(l));
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

/** `● Bash(…)`, `● Update(file)`: a tool call; `● Read 1 file (ctrl+o to expand)`: a collapsed summary. */
const TOOL_BLOCK = /^● (?:[A-Z][\w-]*\(.*$|.*\(ctrl\+\w to expand\)\s*$)/;

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
  content.split(/\r?\n/).forEach((line, index) => {
    const user = TERMINAL_PROMPT.test(line);
    if (user || TERMINAL_REPLY.test(line)) {
      flush();
      current = { role: user ? 'user' : 'assistant', lines: [line.slice(2)], line: index + 1, tool: !user && TOOL_BLOCK.test(line) };
    } else if (/^\s+⎿/u.test(line)) return;
    else if (current && (line.startsWith('  ') || !line.trim())) current.lines.push(line.replace(/^ {2}/, ''));
    else flush();
  });
  flush();
  return { format: 'claude-export', episodes, skipped };
}
