/**
 * A session's title as its tool shows it, carried on each of its episodes (`sessionTitle`) so the
 * Episodes view can name the session by it: whichever of its turns is stored first or last, the
 * memory keeps the title the file had then.
 */
import type { EpisodeInput } from '../model/events.js';
import { LIMITS } from '../model/limits.js';

/** One line, cut to the bound; undefined when there is no text. */
export function cleanTitle(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const flat = v.replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  const max = LIMITS.sessionTitleChars;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The episodes with the session's title on each (unchanged when there is none). */
export function withSessionTitle(episodes: EpisodeInput[], title: unknown): EpisodeInput[] {
  const clean = cleanTitle(title);
  return clean ? episodes.map((e) => ({ ...e, sessionTitle: clean })) : episodes;
}
