/**
 * Gemini CLI `/chat share` markdown: sections headed `🧑‍💻 ## USER` / `✨ ## MODEL` (older) or
 * `## USER 🧑‍💻` / `## MODEL ✨` (newer). USER sections that carry a `**Tool Response**`, the CLI's
 * setup context or the `/init` prompt are not the person's words; a MODEL section keeps the prose
 * before its `**Tool Command**` blocks.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource } from './transcripts.js';

const HEADING = /^(?:\S+\s+)?## (USER|MODEL)(?:\s+\S+)?\s*$/u;
const NOT_TYPED = [
  /^\*\*Tool Response\*\*/,
  /^This is the Gemini CLI\. We are setting up the context/,
  /^You are an AI agent that brings the power of Gemini/,
];

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
    if (!user) text = text.replace(/\*\*Tool Command\*\*:[\s\S]*$/, '').trim();
    if (!text) skipped++;
    else episodes.push(roleTurn(current.role, text, { session, source, ref: `line ${current.line}` }));
    current = undefined;
  };
  let fence = false;
  content.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = fence ? null : line.match(HEADING);
    if (m) {
      flush();
      current = { role: m[1] === 'USER' ? 'user' : 'assistant', lines: [], line: index + 1 };
    } else current?.lines.push(line);
  });
  flush();
  return { format: 'gemini', episodes, skipped };
}
