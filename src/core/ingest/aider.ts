/**
 * aider chat histories (`.aider.chat.history.md`). A session starts at `# aider chat started at
 * YYYY-MM-DD HH:MM:SS`; a prompt is a run of `#### ` lines; `#### /add`, `/drop`… are commands, and
 * `#### /ask X` is re-logged as `#### X`, so only the plain copy is a turn. `> ` lines are aider's own
 * output (token counts, confirmations); the rest is the assistant's reply.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

const SESSION = /^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$/;
const PROMPT = /^####(?: (.*)|\s*)$/;

export function isAider(content: string): boolean {
  return content.split(/\r?\n/, 200).some((line) => SESSION.test(line));
}

export function parseAider(content: string, source: string): ParsedFile {
  const base = sessionFromSource(source);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let session = base;
  let time: string | undefined;
  let block: { role: 'user' | 'assistant'; lines: string[]; line: number } | undefined;
  const flush = (): void => {
    if (!block) return;
    let text = block.lines.join('\n').trim();
    if (block.role === 'assistant') text = text.replace(/<thinking-content-[\w-]*>[\s\S]*?<\/thinking-content-[\w-]*>/g, '').trim();
    if (block.role === 'user' && text.startsWith('/')) skipped++;
    else if (!text) skipped++;
    else {
      episodes.push(roleTurn(block.role, text, { session, source, time, ref: `line ${block.line}` }));
    }
    block = undefined;
  };
  let inOutput = false;
  content.split(/\r?\n/).forEach((line, index) => {
    const started = line.match(SESSION);
    if (started) {
      flush();
      time = toIsoTime(`${started[1]}T${started[2]}`);
      session = `${base} ${started[1]} ${started[2]}`;
      return;
    }
    const prompt = line.match(PROMPT);
    if (prompt) {
      if (block?.role !== 'user') {
        flush();
        block = { role: 'user', lines: [], line: index + 1 };
      }
      block.lines.push((prompt[1] ?? '').trimEnd());
      return;
    }
    const output = line.startsWith('> ') || line === '>';
    // A run of `> ` lines is one piece of aider's own output.
    if (output && !inOutput) skipped++;
    inOutput = output;
    if (output) return;
    if (block?.role === 'user') flush();
    if (!block && !line.trim()) return;
    block ??= { role: 'assistant', lines: [], line: index + 1 };
    block.lines.push(line);
  });
  flush();
  return { format: 'aider', episodes, skipped };
}
