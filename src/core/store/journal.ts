/**
 * The append-only journal: one JSON event a line, the memory's source of truth.
 * An append returns only after the bytes are fsynced, so an acknowledged write survives a crash.
 * A torn last line (a crash mid-append, never acknowledged) is cut off on open, never fatal.
 */
import * as fs from 'node:fs';
import { writeFileDurably } from './durable.js';
import { MemoryError } from '../model/errors.js';
import type { MemoryEvent } from '../model/events.js';

export interface JournalReadResult {
  events: MemoryEvent[];
  /** Lines that could not be parsed (skipped): damage on disk, never a torn write. */
  corruptLines: number;
}

export class Journal {
  private fd: number;
  private size: number;
  /** Grows with every rewrite: a byte position read before one means nothing after it. */
  generation = 0;

  private constructor(
    readonly path: string,
    fd: number,
    size: number,
  ) {
    this.fd = fd;
    this.size = size;
  }

  /**
   * Opens (creating if needed) and cuts a torn tail so the next append starts on a fresh line.
   * Events are serialised without raw newlines and appended whole with their newline, so a file
   * that does not end in one ends in a write cut short by a crash, never acknowledged. Only the
   * end of the file is read: start-up replays from the snapshot's position, not from the top.
   */
  static open(path: string, log: (msg: string) => void = () => {}): Journal {
    const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND, 0o600);
    const size = fs.fstatSync(fd).size;
    const end = endOfLastLine(fd, size);
    if (end < size) {
      log(`journal: dropped a torn last line (${size - end} bytes: a write cut short by a crash, never acknowledged, or damage)`);
      fs.ftruncateSync(fd, end);
      fs.fsyncSync(fd);
    }
    return new Journal(path, fd, end);
  }

  get position(): number {
    return this.size;
  }

  /**
   * Appends events as one write and fsyncs; returns once they are durable. A failed or short
   * write (disk full, I/O error) is cut back to the last good size before the error is thrown,
   * so no fragment is left for the next acknowledged write to be glued onto.
   */
  append(events: MemoryEvent[]): void {
    if (events.length === 0) return;
    const buf = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    this.restoreSize();
    try {
      let written = 0;
      while (written < buf.length) written += fs.writeSync(this.fd, buf, written, buf.length - written);
      fs.fsyncSync(this.fd);
    } catch (err) {
      this.restoreSize();
      throw writeFailure(err, this.path);
    }
    this.size += buf.length;
  }

  /** Cuts anything past the last acknowledged byte; refuses to go on when even that fails. */
  private restoreSize(): void {
    try {
      if (fs.fstatSync(this.fd).size === this.size) return;
      fs.ftruncateSync(this.fd, this.size);
      fs.fsyncSync(this.fd);
    } catch (err) {
      throw writeFailure(err, this.path);
    }
  }

  /** Events from a byte position to the end (replay on top of a snapshot); reads only those bytes. */
  readFrom(position: number): JournalReadResult {
    const length = Math.max(0, this.size - position);
    const bytes = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = fs.readSync(this.fd, bytes, read, length - read, position + read);
      if (n === 0) break;
      read += n;
    }
    return parseLines(bytes.subarray(0, read));
  }

  /**
   * Replaces the journal with the events `keep` accepts (the one deliberate erasure, forgetting).
   * Written beside and renamed over, so a crash leaves either the old or the new journal whole.
   */
  rewrite(keep: (e: MemoryEvent) => MemoryEvent | null): void {
    const kept = this.readFrom(0)
      .events.map(keep)
      .filter((e): e is MemoryEvent => e !== null);
    const body = Buffer.from(kept.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    fs.closeSync(this.fd);
    writeFileDurably(this.path, body);
    this.fd = fs.openSync(this.path, fs.constants.O_RDWR | fs.constants.O_APPEND, 0o600);
    this.size = body.length;
    this.generation++;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** A disk that is full or failing, said so: nothing of the write was kept. */
export function writeFailure(err: unknown, file: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new MemoryError(
      'unavailable',
      `The disk is full: nothing was stored (${file} could not grow).`,
      'Free some space and try again; everything stored before is safe.',
    );
  }
  if (code === 'EIO' || code === 'EROFS' || code === 'EFBIG') {
    return new MemoryError(
      'unavailable',
      `Writing ${file} failed (${code}): nothing was stored.`,
      'Check the disk; everything stored before is safe.',
    );
  }
  return err as Error;
}

function parseLines(bytes: Buffer): JournalReadResult {
  const events: MemoryEvent[] = [];
  let corruptLines = 0;
  for (let pos = 0; pos < bytes.length;) {
    const nl = bytes.indexOf(0x0a, pos);
    const end = nl < 0 ? bytes.length : nl;
    const line = bytes.subarray(pos, end).toString('utf8').trim();
    if (line) {
      try {
        events.push(JSON.parse(line) as MemoryEvent);
      } catch {
        corruptLines++;
      }
    }
    pos = end + 1;
  }
  return { events, corruptLines };
}

/** Byte length up to and including the file's last newline, found by reading backwards. */
function endOfLastLine(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - chunk.length);
    const n = fs.readSync(fd, chunk, 0, end - start, start);
    const nl = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (nl >= 0) return start + nl + 1;
    end = start;
  }
  return 0;
}
