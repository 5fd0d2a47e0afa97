/**
 * Whose words a file's turns are. A transcript (or an instruction file) in a repository may have
 * been written by anyone who can commit there; its person-side turns are the person's only when the
 * person wrote the file. Who wrote it is told from git by service/authorship.ts; here is what that
 * means for the turns, without I/O.
 */
import type { EpisodeInput } from '../model/events.js';
import { GENERIC_SPEAKERS } from './vocabulary.js';

export interface Authorship {
  /** `user`: the person wrote it, their words; `external`: others did, the repository's authors' words. */
  authority: 'user' | 'external';
  /** Its authors other than the person (git author emails, oldest first); empty when it is the person's or git could not tell. */
  authors: string[];
  /** Why, in a sentence for the person. */
  reason: string;
}

/** Who a turn of others is said by when git could not name anyone. */
export const UNKNOWN_AUTHOR = 'unknown author';

/**
 * The turns as their writers' words. From a file others wrote, the person-side turns become
 * `external` and are said by its first other author instead of a generic "user", so neither the
 * extractor ("user decided …") nor the brief takes them for the person's; a named speaker keeps
 * its name, and the agent's turns stay the agent's. Authority is only ever lowered here.
 */
export function turnsAsWritten(episodes: EpisodeInput[], written: Authorship): EpisodeInput[] {
  if (written.authority === 'user') return episodes;
  const author = written.authors[0] ?? UNKNOWN_AUTHOR;
  return episodes.map((e) =>
    e.authority === 'agent'
      ? e
      : {
          ...e,
          authority: 'external',
          speaker: !e.speaker?.trim() || GENERIC_SPEAKERS.has(e.speaker.trim().toLowerCase()) ? author : e.speaker,
        },
  );
}
