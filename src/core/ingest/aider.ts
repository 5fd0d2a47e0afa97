/**
 * aider chat histories (`.aider.chat.history.md`). A session starts at `# aider chat started at
 * YYYY-MM-DD HH:MM:SS`; a prompt is a run of `#### ` lines, each ending in two spaces as aider writes
 * them (a `#### heading` of the model's own reply has none); `#### /add`, `/drop`… are commands, and
 * `#### /ask X` is re-logged as `#### X`, so only the plain copy is a turn; an answer to aider's own
 * yes/no question ("Run shell commands? … [Yes]: skip") is none either. `> ` lines are aider's own
 * output (token counts, confirmations); the rest is the assistant's reply, without its thinking.
 *
 * In architect mode the architect model's reply is sent on to the editor model as a prompt, and
 * logged as one: `#### ` lines after "Edit the files? … y", or (auto-accepted) lines repeating the
 * reply just before. Those are the model's words, not the person's, and are no turn.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

const SESSION = /^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$/;
const PROMPT = /^####(?: (.*)|\s*)$/;
/** aider's question before the editor model gets the architect's plan, answered yes. */
const EDIT_CONFIRMED = /^> Edit the files\?.*:\s*y(es)?\s*$/i;
/** The cost line aider writes when a model response ends. */
const TOKENS = /^> Tokens: /;
/** What aider logs for an empty input. */
const BLANK = '<blank>';
/** aider's own yes/no question, answered at its prompt and logged as one ("Run shell commands? (Y)es/(N)o/(S)kip all [Yes]: skip"). */
const ANSWERED = /^[^\n]{1,200}\? \(Y\)es\/\(N\)o\b[^\n]*\]:\s*\S*\s*$/;

export function isAider(content: string): boolean {
  return content.split(/\r?\n/, 200).some((line) => SESSION.test(line));
}

/** A reply's text without the model's thinking (aider's `<thinking-content-…>` tags, or `<think>` left in the content). */
export function withoutThinking(text: string): string {
  return text
    .replace(/<thinking-content-[\w-]*>[\s\S]*?<\/thinking-content-[\w-]*>/g, '')
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .trim();
}

/** Words only: what a reply and its echo as a prompt have in common whatever aider did to the lines. */
const words = (text: string): string => withoutThinking(text).replace(/^>.*$/gm, '').replace(/\s+/g, ' ').trim();

export function parseAider(content: string, source: string): ParsedFile {
  const base = sessionFromSource(source);
  const lines = content.split(/\r?\n/);
  // aider ends every prompt line with two spaces; when most `#### ` lines of a file have them, one without them is a
  // reply's heading (a reply that writes many headings lowers the share, so most, not nearly all).
  const prompts = lines.filter((l) => PROMPT.test(l));
  const strict = prompts.length > 0 && prompts.filter((l) => l.endsWith('  ')).length > prompts.length / 2;
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let session = base;
  let time: string | undefined;
  let block: { role: 'user' | 'assistant'; lines: string[]; line: number } | undefined;
  let lastReply = '';
  let editConfirmed = false;
  const flush = (): void => {
    if (!block) return;
    const raw = block.lines.join('\n').trim();
    const text = block.role === 'assistant' ? withoutThinking(raw) : raw;
    const echo = block.role === 'user' && (editConfirmed || (lastReply !== '' && words(text) === lastReply));
    if (!text || text === BLANK || echo || (block.role === 'user' && (text.startsWith('/') || ANSWERED.test(text)))) skipped++;
    else episodes.push(roleTurn(block.role, text, { session, source, time, ref: `line ${block.line}` }));
    if (block.role === 'assistant') lastReply = words(raw);
    else editConfirmed = false;
    block = undefined;
  };
  let inOutput = false;
  lines.forEach((line, index) => {
    const started = line.match(SESSION);
    if (started) {
      flush();
      time = toIsoTime(`${started[1]}T${started[2]}`);
      session = `${base} ${started[1]} ${started[2]}`;
      lastReply = '';
      editConfirmed = false;
      return;
    }
    const prompt = line.match(PROMPT);
    if (prompt && (!strict || line.endsWith('  ') || block?.role === 'user')) {
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
    if (output) {
      // aider logs each model response's cost as it ends: text after it is another response.
      if (TOKENS.test(line) && block?.role === 'assistant') flush();
      if (EDIT_CONFIRMED.test(line.trimEnd())) editConfirmed = true;
      return;
    }
    if (block?.role === 'user') flush();
    if (!block && !line.trim()) return;
    block ??= { role: 'assistant', lines: [], line: index + 1 };
    block.lines.push(line);
  });
  flush();
  return { format: 'aider', episodes, skipped };
}
