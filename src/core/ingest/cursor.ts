/**
 * Cursor's "Export Chat" markdown: `# <chat name>`, `_Exported on <date> at <time> <zone> from
 * Cursor (<version>)_`, then turns headed `**User**` or `**Cursor**`, each after a `---` line. A
 * marker inside a code fence, or not after a `---`, is the reply's own text; a user turn that is
 * Cursor's notice of a finished task (HOST_NOTICE) is skipped. The export line is
 * written in the exporter's locale; it dates every turn (they carry no time of their own) only
 * when day and month can be told apart.
 */
import type { EpisodeInput } from '../model/events.js';
import { withSessionTitle } from './session-title.js';
import { Fences } from './fences.js';
import { HOST_NOTICE, type ParsedFile, roleTurn, sessionFromSource } from './transcripts.js';

const EXPORT_LINE = /^_Exported on (.+?) from Cursor \([^)]*\)_\s*$/;
const MARKER = /^\*\*(User|Cursor)\*\*\s*$/;
const SEPARATOR = /^\s*---\s*$/;

export function isCursorExport(content: string): boolean {
  const lines = content.split(/\r?\n/);
  return exportStamp(lines) !== undefined || turnStarts(lines).some((i) => lines[i]!.includes('Cursor'));
}

/** The date and time of the export line, near the top (a blank line may come before it). */
function exportStamp(lines: string[]): string | undefined {
  return lines
    .slice(0, 10)
    .map((l) => l.match(EXPORT_LINE)?.[1])
    .find(Boolean);
}

export function parseCursorExport(content: string, source: string): ParsedFile {
  const lines = content.split(/\r?\n/);
  const session = sessionFromSource(source);
  const stamp = exportStamp(lines);
  const time = stamp ? exportTime(stamp) : undefined;
  const starts = turnStarts(lines);
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  starts.forEach((start, n) => {
    const body = lines.slice(start + 1, starts[n + 1] ?? lines.length);
    // The `---` before the next marker belongs to the export, not the reply.
    while (body.length > 0 && (!body[body.length - 1]!.trim() || SEPARATOR.test(body[body.length - 1]!))) body.pop();
    const text = body.join('\n').trim();
    const role = lines[start]!.match(MARKER)![1] === 'User' ? 'user' : 'assistant';
    // Cursor reports a finished background task in a user turn: its words, not the person's.
    if (!text || (role === 'user' && HOST_NOTICE.test(text))) return void skipped++;
    episodes.push(roleTurn(role, text, { session, source, time, ref: `line ${start + 1}` }));
  });
  const title = lines
    .slice(0, starts[0] ?? lines.length)
    .find((l) => l.startsWith('# '))
    ?.slice(2);
  return { format: 'cursor', episodes: withSessionTitle(episodes, title), skipped };
}

/** Line indexes of the turn markers: outside code fences, after a `---` line. */
function turnStarts(lines: string[]): number[] {
  const starts: number[] = [];
  const fences = new Fences();
  let previous = '';
  lines.forEach((line, index) => {
    const fence = fences.step(line);
    if (!fence && MARKER.test(line) && SEPARATOR.test(previous)) starts.push(index);
    if (line.trim()) previous = line;
  });
  return starts;
}

/** Offsets of the zone names Cursor writes besides `GMT±h` (en-US and a few common others). */
const ZONES: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  AKST: -9,
  AKDT: -8,
  HST: -10,
  WET: 0,
  WEST: 1,
  BST: 1,
  CET: 1,
  CEST: 2,
  EET: 2,
  EEST: 3,
  MEZ: 1,
  MESZ: 2,
  JST: 9,
  KST: 9,
  AEST: 10,
  AEDT: 11,
};
const US_ZONES = new Set(['EST', 'EDT', 'CST', 'CDT', 'MST', 'MDT', 'PST', 'PDT', 'AKST', 'AKDT', 'HST']);

/**
 * The instant of `8/21/2025 at 18:13:28 GMT+2`, `21.8.2025 at 18:13:28 GMT+2`, `2025. 6. 27. at
 * 14시 17분 35초 GMT+9` or `7/8/2025 at 11:55:38 AM PDT`; undefined when the zone is unknown or the
 * day and month could be either (a slash date with both under 13, outside a US zone).
 */
export function exportTime(stamp: string): string | undefined {
  const at = stamp.lastIndexOf(' at ');
  if (at < 0) return undefined;
  const datePart = stamp.slice(0, at);
  const timePart = stamp.slice(at + 4);
  const zone = timePart.match(/\b(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?\b/);
  const named = timePart.match(/\b([A-Z]{3,4})\s*$/)?.[1];
  let offsetMinutes: number | undefined;
  if (zone) offsetMinutes = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3] ?? 0));
  else if (named && named in ZONES) offsetMinutes = ZONES[named]! * 60;
  if (offsetMinutes === undefined) return undefined;
  const ymd = dayOf(datePart, named !== undefined && US_ZONES.has(named));
  const clock = timePart.match(/(\d{1,2})\s*(?::|시)\s*(\d{1,2})\s*(?::|분)?\s*(\d{1,2})?/);
  if (!ymd || !clock) return undefined;
  let hour = Number(clock[1]);
  const pm = /\b(PM|pm)\b|오후|午後|下午/.test(timePart);
  const am = /\b(AM|am)\b|오전|午前|上午/.test(timePart);
  if (pm && hour < 12) hour += 12;
  if (am && hour === 12) hour = 0;
  const [y, m, d] = ymd;
  const [minute, second] = [Number(clock[2]), Number(clock[3] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return new Date(Date.UTC(y, m - 1, d, hour, minute, second) - offsetMinutes * 60_000).toISOString();
}

/** Year, month, day of a locale's short date; undefined when it cannot be read without guessing. */
function dayOf(text: string, usLocale: boolean): [number, number, number] | undefined {
  const yearFirst = text.match(/(\d{4})\s*[./년年-]\s*(\d{1,2})\s*[./월月-]\s*(\d{1,2})/);
  if (yearFirst) return valid(Number(yearFirst[1]), Number(yearFirst[2]), Number(yearFirst[3]));
  const yearLast = text.match(/(\d{1,2})\s*([./-])\s*(\d{1,2})\s*[./-]\s*(\d{4})/);
  if (!yearLast) return undefined;
  const [a, b, year] = [Number(yearLast[1]), Number(yearLast[3]), Number(yearLast[4])];
  // Dots and dashes are written day first; slashes are month first in en-US and day first elsewhere.
  if (yearLast[2] !== '/') return valid(year, b, a);
  if (a > 12) return valid(year, b, a);
  if (b > 12 || usLocale) return valid(year, a, b);
  return a === b ? valid(year, a, b) : undefined;
}

function valid(year: number, month: number, day: number): [number, number, number] | undefined {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? [year, month, day] : undefined;
}
