/**
 * Rows of the shared log this memory refused: listed (which row, whose, why) so one bad row never
 * stalls a pull and a person can see what was kept out. Only the listing is kept here; the row
 * itself stays on the server for whoever inspects it, so nothing refused (and nothing a later
 * forget erases) is copied onto this disk.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SYNC_LIMITS } from '../core/model/limits.js';
import { writeFileDurably } from '../core/store/durable.js';
import type { RawRow } from './pulled.js';

export const QUARANTINE_FILE = 'sync-quarantine.jsonl';

export interface QuarantineEntry {
  /** The row's id in the shared log. */
  row: number;
  origin: string;
  origin_seq: number;
  author: string | null;
  type: string;
  reason: string;
  /** When it was refused here. */
  at: string;
}

export class Quarantine {
  private entries: QuarantineEntry[];
  private dirty = false;

  constructor(private readonly folder: string) {
    this.entries = read(path.join(folder, QUARANTINE_FILE));
  }

  get count(): number {
    return this.entries.length;
  }

  latest(): QuarantineEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  list(): QuarantineEntry[] {
    return [...this.entries];
  }

  /** The earliest refused row of an origin (where a pull starts again once its key is trusted). */
  firstOf(origin: string): number | undefined {
    const rows = this.entries.filter((e) => e.origin === origin).map((e) => e.row);
    return rows.length ? Math.min(...rows) : undefined;
  }

  add(row: RawRow, reason: string): QuarantineEntry {
    const entry: QuarantineEntry = {
      row: row.id,
      origin: row.origin.slice(0, 64),
      origin_seq: row.originSeq,
      author: row.author?.slice(0, 200) ?? null,
      type: row.type.slice(0, 64),
      reason: reason.slice(0, 500),
      at: new Date().toISOString(),
    };
    this.entries = [...this.entries.filter((e) => e.row !== row.id), entry].slice(-SYNC_LIMITS.quarantineEntries);
    this.dirty = true;
    return entry;
  }

  /** A row applied after all (its member's key trusted since): no longer listed. */
  release(rows: number[]): void {
    const gone = new Set(rows);
    const kept = this.entries.filter((e) => !gone.has(e.row));
    if (kept.length === this.entries.length) return;
    this.entries = kept;
    this.dirty = true;
  }

  /** Writes the listing once per pulled batch, before the cursor moves past it. */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    writeFileDurably(path.join(this.folder, QUARANTINE_FILE), Buffer.from(this.entries.map((e) => JSON.stringify(e) + '\n').join('')));
  }
}

function read(file: string): QuarantineEntry[] {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          return line.trim() ? [JSON.parse(line) as QuarantineEntry] : [];
        } catch {
          return [];
        }
      });
  } catch {
    return [];
  }
}
