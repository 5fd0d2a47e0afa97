/**
 * A turn's identity, so the same conversation read from two copies (a pretty-printed copy, the
 * same file in another folder) is stored once: its session, its speaker, its words, and how many
 * times before in the file that speaker said those words in that session. Where the file sits and
 * how it is laid out (line numbers) are not part of it; a file that grows keeps its turns' keys.
 */
import { createHash } from 'node:crypto';
import type { EpisodeInput } from '../model/events.js';

/**
 * Counts the turns of one file as they are read, in order (across the parts of a file read in
 * parts). It holds a digest per distinct turn, not its words, so a long file's count stays small.
 */
export class TurnKeys {
  private readonly seen = new Map<string, number>();

  /** The episodes with their key: the occurrence of these words by this speaker in this session, from 1. */
  keyed(episodes: EpisodeInput[]): EpisodeInput[] {
    return episodes.map((e) => {
      const what = createHash('sha1')
        .update(`${e.session ?? ''}\0${e.speaker ?? ''}\0`)
        .update(e.text.trim())
        .digest('base64');
      const n = (this.seen.get(what) ?? 0) + 1;
      this.seen.set(what, n);
      return { ...e, key: String(n) };
    });
  }
}
