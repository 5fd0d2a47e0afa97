/**
 * The append-only journal: one JSON event a line, the memory's source of truth.
 * An append returns only after the bytes are fsynced, so an acknowledged write survives a crash.
 * A torn last line (a crash mid-append, never acknowledged) is cut off on open, never fatal.
 */
import * as fs from 'node:fs';
import { writeFileDurably } from './durable.js';
import type { MemoryEvent } from './events.js';

export interface JournalReadResult {
  events: MemoryEvent[];
  /** Byte length of the well-formed prefix. */
  end: number;
  /** Bytes dropped from a torn tail. */
  tornBytes: number;
  /** Lines in the middle that could not be parsed (skipped). */
  corruptLines: number;
}

export class Journal {
  private fd: number;
  private size: number;

  private constructor(readonly path: string, fd: number, size: number) {
    this.fd = fd;
    this.size = size;
  }

  /** Opens (creating if needed) and repairs a torn tail so the next append starts on a fresh line. */
  static open(path: string, log: (msg: string) => void = () => {}): { journal: Journal; read: JournalReadResult } {
    const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND, 0o600);
    const read = readEvents(fs.readFileSync(path), 0);
    if (read.tornBytes > 0) {
      log(`journal: dropped a torn last line (${read.tornBytes} bytes, an unacknowledged write cut short by a crash)`);
      fs.ftruncateSync(fd, read.end);
      fs.fsyncSync(fd);
    }
    if (read.corruptLines > 0) log(`journal: skipped ${read.corruptLines} unreadable line(s) in ${path}`);
    return { journal: new Journal(path, fd, read.end), read };
  }

  get position(): number {
    return this.size;
  }

  /** Appends events as one write and fsyncs; returns once they are durable. */
  append(events: MemoryEvent[]): void {
    if (events.length === 0) return;
    const buf = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    let written = 0;
    while (written < buf.length) written += fs.writeSync(this.fd, buf, written, buf.length - written);
    fs.fsyncSync(this.fd);
    this.size += buf.length;
  }

  /** Events after a byte position (for replay on top of a snapshot). */
  readFrom(position: number): JournalReadResult {
    return readEvents(fs.readFileSync(this.path), position);
  }

  /**
   * Replaces the journal with the events `keep` accepts (the one deliberate erasure, forgetting).
   * Written beside and renamed over, so a crash leaves either the old or the new journal whole.
   */
  rewrite(keep: (e: MemoryEvent) => MemoryEvent | null): void {
    const { events } = readEvents(fs.readFileSync(this.path), 0);
    const kept = events.map(keep).filter((e): e is MemoryEvent => e !== null);
    const body = Buffer.from(kept.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    fs.closeSync(this.fd);
    writeFileDurably(this.path, body);
    this.fd = fs.openSync(this.path, fs.constants.O_RDWR | fs.constants.O_APPEND, 0o600);
    this.size = body.length;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

function readEvents(bytes: Buffer, from: number): JournalReadResult {
  const events: MemoryEvent[] = [];
  let corruptLines = 0;
  let pos = from;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(0x0a, pos);
    if (nl < 0) break; // no newline: a torn tail
    const line = bytes.subarray(pos, nl).toString('utf8').trim();
    if (line) {
      try {
        events.push(JSON.parse(line) as MemoryEvent);
      } catch {
        corruptLines++;
      }
    }
    pos = nl + 1;
  }
  let end = pos;
  let tornBytes = bytes.length - pos;
  // A complete-looking last line that does not parse is a torn write too (the newline came first).
  if (tornBytes === 0 && corruptLines > 0) {
    const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const last = bytes.subarray(lastStart).toString('utf8').trim();
    try {
      JSON.parse(last);
    } catch {
      corruptLines--;
      end = lastStart;
      tornBytes = bytes.length - lastStart;
    }
  }
  return { events, end, tornBytes, corruptLines };
}
