/**
 * The keys this memory trusts for the team's members, pinned the first time each is seen (as SSH
 * pins a host's key): an origin keeps the key and author it first showed, and an author the keys
 * it first wrote with. A key the server shows later for a known origin, or a second key for a known
 * author, is not taken on the server's word: the person accepts it with `recall sync trust ORIGIN`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileDurably } from '../core/store/durable.js';
import type { MemberRow } from './server-log.js';
import { fingerprint } from './signing.js';

export const PINS_FILE = 'sync-keys.json';

interface PinFile {
  origins: Record<string, { author: string; key: string }>;
  authors: Record<string, string[]>;
}

export interface MemberView {
  origin: string;
  author: string;
  fingerprint: string;
  /** trusted: pinned here; conflict: the server shows a key this memory does not take without the person. */
  state: 'trusted' | 'conflict';
  why?: string;
}

export class Pins {
  private pins: PinFile;
  /** The latest members the server listed, by origin. */
  private seen = new Map<string, MemberRow>();

  constructor(private readonly folder: string) {
    this.pins = readPins(path.join(folder, PINS_FILE));
  }

  /** Takes in what the server lists; new origins of new (or known, same-key) authors are pinned. */
  learn(members: MemberRow[]): void {
    let changed = false;
    for (const m of members) {
      this.seen.set(m.origin, m);
      if (this.pins.origins[m.origin]) continue;
      const keys = this.pins.authors[m.author];
      if (keys && !keys.includes(m.publicKey)) continue;
      this.pins.origins[m.origin] = { author: m.author, key: m.publicKey };
      this.pins.authors[m.author] = [...(keys ?? []), m.publicKey].filter((k, i, a) => a.indexOf(k) === i);
      changed = true;
    }
    if (changed) this.save();
  }

  /** Origins not pinned yet, to ask the server about. */
  unknown(origins: string[]): string[] {
    return [...new Set(origins)].filter((o) => !this.pins.origins[o]);
  }

  /** The key a row of `origin` by `author` must be signed with, or why none is trusted. */
  keyOf(origin: string, author: string): { key: string } | { reason: string } {
    const pinned = this.pins.origins[origin];
    if (pinned) {
      if (pinned.author !== author) return { reason: `memory ${origin} writes as ${pinned.author}, not ${author}` };
      return { key: pinned.key };
    }
    const listed = this.seen.get(origin);
    if (!listed)
      return { reason: `memory ${origin} has no registered key (unsigned: not written by a member, or by a Recall before signing)` };
    if (listed.author !== author) return { reason: `memory ${origin} is registered as ${listed.author}, not ${author}` };
    return {
      reason:
        `${author} already writes with another key here; memory ${origin} shows key ${fingerprint(listed.publicKey)}. ` +
        `If it is theirs, run \`recall sync trust ${origin}\``,
    };
  }

  /** The person's word: the key the server lists for `origin` is trusted, as its author's. */
  trust(origin: string): MemberRow {
    const m = this.seen.get(origin);
    if (!m) throw new Error(`The server lists no member with memory id ${origin}; \`recall sync members\` shows them.`);
    this.pins.origins[origin] = { author: m.author, key: m.publicKey };
    this.pins.authors[m.author] = [...new Set([...(this.pins.authors[m.author] ?? []), m.publicKey])];
    this.save();
    return m;
  }

  list(): MemberView[] {
    const out: MemberView[] = [];
    const origins = new Set([...Object.keys(this.pins.origins), ...this.seen.keys()]);
    for (const origin of [...origins].sort()) {
      const pinned = this.pins.origins[origin];
      const listed = this.seen.get(origin);
      if (pinned && (!listed || listed.publicKey === pinned.key)) {
        out.push({ origin, author: pinned.author, fingerprint: fingerprint(pinned.key), state: 'trusted' });
      } else if (listed) {
        const why = pinned
          ? `the server now lists key ${fingerprint(listed.publicKey)}; rows are checked against the one first seen`
          : `${listed.author} already writes with another key`;
        out.push({ origin, author: listed.author, fingerprint: fingerprint(listed.publicKey), state: 'conflict', why });
      }
    }
    return out;
  }

  private save(): void {
    writeFileDurably(path.join(this.folder, PINS_FILE), Buffer.from(JSON.stringify(this.pins, null, 1) + '\n'));
  }
}

function readPins(file: string): PinFile {
  try {
    const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PinFile>;
    return { origins: p.origins ?? {}, authors: p.authors ?? {} };
  } catch {
    return { origins: {}, authors: {} };
  }
}
