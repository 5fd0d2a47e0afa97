/**
 * When a transcript's turns happened, when the turns themselves do not say: the file's name if it
 * starts with a date (SpecStory's `2025-04-28_18-34-…`), else the file's modification time. Never
 * the import time, and the caller is told which turns got which.
 */
import * as path from 'node:path';
import type { EpisodeInput } from '../model/events.js';

/** How a file's turns were dated. */
export interface Dating {
  /** Turns whose time the content states (a per-turn stamp, a header, an export line). */
  content: number;
  /** Turns dated by the date the file's name starts with. */
  name: number;
  /** Turns dated by the file's modification time: nothing in or on the file says when. */
  modified: number;
}

// `2025-04-28`, `2025-04-28_18-34` (SpecStory names its files in UTC; newer names end the time in `Z`).
const NAME_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[_T ](\d{2})[-:](\d{2})(?:[-:](\d{2}))?Z?)?(?![\d])/;

/** The instant a file's name starts with, or undefined. A name's time is UTC; a bare date is its midnight UTC. */
export function nameTime(file: string): string | undefined {
  const m = path.basename(file).match(NAME_DATE);
  if (!m) return undefined;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1) as (string | undefined)[];
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(t);
  const valid =
    back.getUTCFullYear() === Number(y) &&
    back.getUTCMonth() === Number(mo) - 1 &&
    back.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60;
  return valid ? back.toISOString() : undefined;
}

/** Gives every turn without a time one from the file's name, else its modification time; says how many of each. */
export function dateTurns(episodes: EpisodeInput[], file: string, modifiedMs: number | undefined): Dating {
  const dating: Dating = { content: 0, name: 0, modified: 0 };
  const named = nameTime(file);
  const modified = modifiedMs === undefined ? undefined : new Date(modifiedMs).toISOString();
  for (const e of episodes) {
    if (e.time) dating.content++;
    else if (named) {
      e.time = named;
      dating.name++;
    } else if (modified) {
      e.time = modified;
      dating.modified++;
    }
  }
  return dating;
}

export function addDating(into: Dating, more: Dating): void {
  into.content += more.content;
  into.name += more.name;
  into.modified += more.modified;
}
