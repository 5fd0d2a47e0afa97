/**
 * What a forget from the team erased here, held aside for a while so the person can undo it: a
 * teammate's forget (or a forged one) must not be the end of this memory's copy. Each is one file
 * in `forgotten/` (private to the owner) with the events as they were; it goes when restored, when
 * the person forgets the same entity themselves, or after SYNC_LIMITS.heldForgetDays.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { notFound } from '../model/errors.js';
import type { MemoryEvent } from '../model/events.js';
import { SYNC_LIMITS } from '../model/limits.js';
import { writeFileDurably } from '../store/durable.js';
import { entityKey } from '../store/ids.js';

export const HELD_FOLDER = 'forgotten';

export interface HeldForgetSummary {
  /** `f<seq>`: the forget's place in this memory's journal. */
  id: string;
  entity: string;
  /** Who the forget came from. */
  author: string | null;
  origin: string;
  /** When it was applied here, and when its copy goes for good. */
  at: string;
  expires: string;
  episodes: number;
  facts: number;
}

export interface HeldForget extends HeldForgetSummary {
  events: MemoryEvent[];
}

const fileOf = (folder: string, id: string): string => path.join(folder, HELD_FOLDER, `${id}.json`);

export function holdAside(folder: string, held: Omit<HeldForget, 'expires'>): void {
  const dir = path.join(folder, HELD_FOLDER);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const expires = new Date(Date.parse(held.at) + SYNC_LIMITS.heldForgetDays * 86_400_000).toISOString();
  writeFileDurably(fileOf(folder, held.id), Buffer.from(JSON.stringify({ ...held, expires })));
}

/** The forgets held aside, newest first; expired ones are removed on the way. */
export function listHeld(folder: string, now = Date.now()): HeldForgetSummary[] {
  return readAll(folder)
    .filter((h) => {
      if (Date.parse(h.expires) > now) return true;
      fs.rmSync(fileOf(folder, h.id), { force: true });
      return false;
    })
    .map(({ events: _events, ...summary }) => summary)
    .sort((a, b) => b.at.localeCompare(a.at));
}

export function readHeld(folder: string, id: string): HeldForget {
  if (!/^f\d+$/.test(id)) throw notFound(`"${id}" is not a held-aside forget.`, '`recall sync forgotten` lists them (ids look like f123).');
  try {
    return JSON.parse(fs.readFileSync(fileOf(folder, id), 'utf8')) as HeldForget;
  } catch {
    throw notFound(`No held-aside forget "${id}" (restored, expired or never held).`, '`recall sync forgotten` lists them.');
  }
}

export function removeHeld(folder: string, id: string): void {
  fs.rmSync(fileOf(folder, id), { force: true });
}

/** The person forgot this entity themselves: copies held of it go too. */
export function dropHeldAbout(folder: string, name: string): void {
  for (const h of readAll(folder)) if (entityKey(h.entity) === entityKey(name)) removeHeld(folder, h.id);
}

function readAll(folder: string): HeldForget[] {
  const dir = path.join(folder, HELD_FOLDER);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).flatMap((name) => {
    if (!/^f\d+\.json$/.test(name)) return [];
    try {
      return [JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as HeldForget];
    } catch {
      return [];
    }
  });
}
