/**
 * SpecStory histories (`.specstory/history/*.md`), every marker generation:
 * `_**User**_` / `_**Assistant**_`, `_**User (2025-10-14 22:25Z)**_`, `_**Assistant (default)**_`,
 * `_**Agent (model gpt-5, mode Agent)**_`. A turn runs from a top-level marker to the next; a marker
 * inside a code fence (fences.ts: a diff's `  ```bash` context line is not one) or a `<tool-use>` /
 * `<details>` block is quoted text, not a turn. SpecStory writes `---` before every marker, so a
 * fence still open there is one the model left unbalanced in its reply: it ends with the turn.
 * Thinking, tool-use and details blocks are removed from the text; `---` separators are dropped; a
 * user turn that is a host's notice of a finished background task (HOST_NOTICE) is skipped.
 * The title's `(2025-04-28 18:34:38)` dates turns whose marker carries no time.
 */
import type { EpisodeInput } from '../model/events.js';
import { Fences } from './fences.js';
import { HOST_NOTICE, type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

const MARKER = /^_\*\*(User|Assistant|Agent)(?:\s*\(([^)]*)\))?\*\*_\s*$/;
/** A `<tool-use …>` or `<details>` tag opening, not a tag that only starts with the name (`<tool-use-id>`). */
const OPENS_BLOCK = /<(?:tool-use|details)(?=[\s>])/g;
/** Such a block, up to its closing tag. */
const BLOCK = /<(tool-use|details)(?=[\s>])[\s\S]*?<\/\1>/g;

export function isSpecStory(content: string): boolean {
  return content.split(/\r?\n/).some((line) => MARKER.test(line));
}

export function parseSpecStory(content: string, source: string): ParsedFile {
  const session = sessionFromSource(source);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  let current: { role: 'user' | 'assistant'; lines: string[]; line: number; time?: string } | undefined;
  let lastUserTime: string | undefined;
  const titled = titleTime(content);
  const flush = (): void => {
    if (!current) return;
    const text = cleanText(current.lines.join('\n'));
    if (!text || (current.role === 'user' && HOST_NOTICE.test(text))) skipped++;
    else {
      episodes.push(roleTurn(current.role, text, { session, source, time: current.time ?? titled, ref: `line ${current.line}` }));
    }
    current = undefined;
  };
  const fences = new Fences();
  let blockDepth = 0;
  let previous = '';
  content.split(/\r?\n/).forEach((line, index) => {
    if (fences.inside && blockDepth === 0 && MARKER.test(line) && /^---\s*$/.test(previous)) fences.reset();
    if (line.trim()) previous = line;
    const fence = fences.step(line);
    if (!fence) {
      blockDepth += (line.match(OPENS_BLOCK) ?? []).length;
      blockDepth -= (line.match(/<\/(tool-use|details)>/g) ?? []).length;
      if (blockDepth < 0) blockDepth = 0;
    }
    const m = !fence && blockDepth === 0 ? line.match(MARKER) : null;
    if (m) {
      flush();
      const role = m[1] === 'User' ? 'user' : 'assistant';
      // "(2025-10-14 22:25Z)" on a user marker dates it; an agent turn follows the last dated prompt.
      const time = role === 'user' ? (markerTime(m[2]) ?? lastUserTime) : lastUserTime;
      if (role === 'user') lastUserTime = time;
      current = { role, lines: [], line: index + 1, time };
      return;
    }
    current?.lines.push(line);
  });
  flush();
  return { format: 'specstory', episodes, skipped };
}

/** The title's `# Name (2025-04-28 18:34:38)` (the writer's local time) or `(2026-01-03 14:51Z)`. */
function titleTime(content: string): string | undefined {
  const m = content
    .split(/\r?\n/, 20)
    .map((l) => l.match(/^# .*\((\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}(?::\d{2})?)(Z?)\)\s*$/))
    .find(Boolean);
  return m ? toIsoTime(`${m[1]}T${m[2]}${m[3]}`) : undefined;
}

function markerTime(inside: string | undefined): string | undefined {
  const m = inside?.match(/^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(?::(\d{2}))?Z?$/);
  return m ? toIsoTime(`${m[1]}T${m[2]}:${m[3] ?? '00'}Z`) : undefined;
}

function cleanText(raw: string): string {
  return raw
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .replace(BLOCK, '')
    .replace(/^Tool use: \*\*[^*]+\*\*.*$/gm, '')
    .replace(/^---\s*$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
