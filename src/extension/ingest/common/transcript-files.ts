/**
 * What changed in a folder of transcripts since it was last stored, without `vscode` (so node tests
 * cover it). Two levels of "already done":
 * - SeenFiles: per file, the size and mtime it had when it was last stored in full, kept in the
 *   extension's state (it survives restarts), so an unchanged file is never read again;
 * - SentTurns: per file, the turns stored during this session, so a transcript that grows by one
 *   turn sends one turn, not all of them again. The service would skip them anyway (content hash),
 *   but resending costs service time, and a Claude Code session grows every few seconds while it
 *   is in use.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EpisodeInput } from '../../../core/model/events.js';

export interface FileStamp {
  mtimeMs: number;
  size: number;
}

export interface TranscriptFile {
  file: string;
  stamp: FileStamp;
}

/** The part of vscode.Memento used here. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** Which files of a source are transcripts: `depth` folders below its base, by extension or by exact name. */
export interface TranscriptPattern {
  /** 0: the base's own files; 1: its subfolders' (Claude Code projects, Cline tasks); 3: Codex's YYYY/MM/DD. */
  depth: 0 | 1 | 2 | 3;
  /** Lower-case extensions with the dot, e.g. `.jsonl`. */
  extensions: readonly string[];
  /** When set, only files with one of these names (a Cline task folder holds other JSON files). */
  names?: readonly string[];
}

/** Each source's transcripts below its folder (chat-sources.ts says where the folders are). */
export const TRANSCRIPT_PATTERNS = {
  copilotChat: { depth: 0, extensions: ['.json', '.jsonl'] },
  claudeCode: { depth: 1, extensions: ['.jsonl'] },
  // tasks/<task>/: ui_messages.json and task_metadata.json sit beside the conversation.
  cline: { depth: 1, extensions: ['.json'], names: ['api_conversation_history.json'] },
  rooCode: { depth: 1, extensions: ['.json'], names: ['api_conversation_history.json'] },
  codex: { depth: 3, extensions: ['.jsonl'] },
  specstory: { depth: 0, extensions: ['.md'] },
} as const satisfies Record<string, TranscriptPattern>;

/**
 * Regular files exactly `depth` folders below `base` that match the pattern, with their stamps.
 * A missing base is an empty list; an unreadable entry is left out.
 */
export async function listTranscripts(base: string, opts: TranscriptPattern): Promise<TranscriptFile[]> {
  let folders = [base];
  for (let level = 0; level < opts.depth; level++) {
    const next: string[] = [];
    for (const folder of folders) for (const e of await entries(folder)) if (e.isDirectory()) next.push(path.join(folder, e.name));
    folders = next;
  }
  const out: TranscriptFile[] = [];
  for (const folder of folders) {
    for (const e of await entries(folder)) {
      if (!e.isFile() || !matches(e.name, opts)) continue;
      const file = path.join(folder, e.name);
      try {
        const st = await fs.promises.stat(file);
        out.push({ file, stamp: { mtimeMs: st.mtimeMs, size: st.size } });
      } catch {
        // Deleted between listing and stat: nothing to store.
      }
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

function matches(name: string, opts: TranscriptPattern): boolean {
  if (opts.names && !opts.names.includes(name)) return false;
  return opts.extensions.includes(path.extname(name).toLowerCase());
}

async function entries(folder: string): Promise<fs.Dirent[]> {
  try {
    return await fs.promises.readdir(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

type Stamps = Record<string, [mtimeMs: number, size: number]>;

/** Stamps of files stored in full, under one state key (the caller puts the memory folder in it). */
export class SeenFiles {
  private readonly stamps: Stamps;

  constructor(
    private readonly store: StateStore,
    private readonly key: string,
  ) {
    this.stamps = { ...(store.get<Stamps>(key) ?? {}) };
  }

  /** The files whose size or mtime differ from when they were last stored (new files included). */
  changed(files: readonly TranscriptFile[]): TranscriptFile[] {
    return files.filter(({ file, stamp }) => {
      const seen = this.stamps[file];
      return !seen || seen[0] !== stamp.mtimeMs || seen[1] !== stamp.size;
    });
  }

  /** Records a file as stored with the stamp it had before it was read (a write during the read shows as a change next time). */
  record(file: string, stamp: FileStamp): PromiseLike<void> {
    this.stamps[file] = [stamp.mtimeMs, stamp.size];
    return this.store.update(this.key, this.stamps);
  }

  /** Drops the stamps of files that are gone, so the state does not grow with deleted sessions. */
  prune(present: readonly TranscriptFile[]): PromiseLike<void> {
    const keep = new Set(present.map((f) => f.file));
    const gone = Object.keys(this.stamps).filter((f) => !keep.has(f));
    for (const f of gone) delete this.stamps[f];
    return gone.length ? this.store.update(this.key, this.stamps) : Promise.resolve();
  }
}

/** Turns already stored from each file during this session (in memory only). */
export class SentTurns {
  private readonly byFile = new Map<string, Set<string>>();

  /** The turns of `file` not stored yet this session. */
  unsent(file: string, episodes: readonly EpisodeInput[]): EpisodeInput[] {
    const sent = this.byFile.get(file);
    return sent ? episodes.filter((e) => !sent.has(turnKey(e))) : [...episodes];
  }

  /** Notes turns as stored (call once the service has acknowledged them). */
  remember(file: string, episodes: readonly EpisodeInput[]): void {
    let sent = this.byFile.get(file);
    if (!sent) this.byFile.set(file, (sent = new Set()));
    for (const e of episodes) sent.add(turnKey(e));
  }

  clear(): void {
    this.byFile.clear();
  }
}

const turnKey = (e: EpisodeInput): string => crypto.createHash('sha1').update(JSON.stringify(e)).digest('base64');
