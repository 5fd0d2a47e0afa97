/**
 * Reading a transcript file from disk; the parser is chosen by content (see detect.ts). A file is
 * read whole up to a bound; a larger one in a line-based format (JSONL: Claude Code, Codex, plain
 * turns) is read a block of lines at a time, so memory stays flat however long the file is. The
 * turns come keyed (identity.ts: a copy of the file stores nothing new) and dated (dates.ts: a turn
 * the file does not date gets the date of its name, else its modification time).
 */
import * as fs from 'node:fs';
import { invalid } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { dateTurns } from './dates.js';
import { parseTranscript, type ParseOptions } from './detect.js';
import { TurnKeys } from './identity.js';
import type { ParsedFile } from './transcripts.js';

/** Formats whose turns each sit on their own line, so a block of whole lines parses like the file would. */
const LINE_FORMATS = new Set(['jsonl', 'claude-code', 'codex']);

export function readTranscriptFile(file: string, opts: ParseOptions = {}): ParsedFile {
  const { size, mtimeMs } = fileStat(file);
  if (size > LIMITS.wholeTranscriptBytes) throw tooBig(file, size);
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw cannotRead(file, e);
  }
  return finished(parseTranscript(content, file, opts), file, new TurnKeys(), mtimeMs);
}

/** The parsed turns keyed in file order and dated. */
function finished(parsed: ParsedFile, file: string, keys: TurnKeys, mtimeMs: number): ParsedFile {
  const episodes = keys.keyed(parsed.episodes);
  return { ...parsed, episodes, dating: dateTurns(episodes, file, mtimeMs) };
}

/** One part of a file read in parts: its turns, and how far into the file it reaches. */
export interface TranscriptPart extends ParsedFile {
  bytesRead: number;
  totalBytes: number;
}

/**
 * The file's turns in order, a part at a time: one part for a file up to `ingestChunkBytes` (read
 * exactly as readTranscriptFile reads it), else blocks of whole lines. Each block after the first
 * is parsed behind the file's first line, so a format's header (Codex's session_meta) still names
 * the session, and refs (`line N`) are those of the whole file, so importing again is recognised.
 */
export async function* readTranscriptParts(file: string, opts: ParseOptions = {}): AsyncGenerator<TranscriptPart> {
  const { size: totalBytes, mtimeMs } = fileStat(file);
  const keys = new TurnKeys();
  if (totalBytes <= LIMITS.ingestChunkBytes) {
    yield { ...readTranscriptFile(file, opts), bytesRead: totalBytes, totalBytes };
    return;
  }
  let header: string | undefined;
  // What the header line reads as by itself: left out of every later block's count.
  let headerRead: ParsedFile = { format: '', episodes: [], skipped: 0 };
  let format: string | undefined;
  let turns = 0;
  let firstLine = 1;
  let bytesRead = 0;
  for await (const block of lineBlocks(file)) {
    bytesRead += Buffer.byteLength(block);
    const lines = countLines(block);
    if (header === undefined) {
      header = block.slice(0, block.indexOf('\n') + 1 || block.length);
      const first = firstLineIsJson(block) ? lineBased(block, file) : undefined;
      if (!first) {
        // Not line-based: only a whole read parses it right, within the bound.
        if (totalBytes > LIMITS.wholeTranscriptBytes) throw tooBig(file, totalBytes);
        yield { ...readTranscriptFile(file, opts), bytesRead: totalBytes, totalBytes };
        return;
      }
      headerRead = parseTranscript(header, file, { allowEmpty: true });
      format = first.format;
      turns += first.episodes.length;
      yield { ...finished(first, file, keys, mtimeMs), bytesRead, totalBytes };
    } else {
      const part = parseTranscript(header + block, file, { allowEmpty: true });
      // Line 1 of this text is the header, already read with the first block; line L >= 2 is line firstLine + L - 2 of the file.
      const headerRefs = new Set(['line 1', ...headerRead.episodes.map((e) => e.ref)]);
      const episodes = part.episodes
        .filter((e) => !headerRefs.has(e.ref))
        .map((e) => (e.ref?.startsWith('line ') ? { ...e, ref: `line ${Number(e.ref.slice(5)) + firstLine - 2}` } : e));
      turns += episodes.length;
      const read = finished({ format: format!, episodes, skipped: Math.max(0, part.skipped - headerRead.skipped) }, file, keys, mtimeMs);
      yield { ...read, bytesRead, totalBytes, ...(part.cwd ? { cwd: part.cwd } : {}) };
    }
    firstLine += lines;
  }
  if (turns === 0 && !opts.allowEmpty) {
    throw invalid(`${file}: read as ${format}, but no turn was found in it.`, 'Nothing was stored.');
  }
}

/** Whole lines of the file, about `ingestChunkBytes` at a time; a line longer than the whole-read bound is refused. */
async function* lineBlocks(file: string): AsyncGenerator<string> {
  // Chunks gathered until a block's worth, then joined once: joining at every chunk would copy the block over and over.
  let chunks: Buffer[] = [];
  let size = 0;
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size < LIMITS.ingestChunkBytes) continue;
      const joined = Buffer.concat(chunks, size);
      const cut = joined.lastIndexOf(0x0a);
      if (cut < 0) {
        if (size > LIMITS.wholeTranscriptBytes) throw tooBig(file, size, 'one line of it is');
        chunks = [joined];
        continue;
      }
      yield joined.toString('utf8', 0, cut + 1);
      chunks = [Buffer.from(joined.subarray(cut + 1))];
      size = chunks[0]!.length;
    }
  } catch (e) {
    if (e instanceof Error && e.name === 'MemoryError') throw e;
    throw cannotRead(file, e);
  } finally {
    stream.destroy();
  }
  if (size) yield Buffer.concat(chunks, size).toString('utf8');
}

/** JSONL's first line is a whole value by itself; a pretty-printed document's is not. */
function firstLineIsJson(block: string): boolean {
  const first = block.match(/^\s*(.+)$/m)?.[1];
  try {
    return first !== undefined && typeof JSON.parse(first) === 'object';
  } catch {
    return false;
  }
}

/** The first block's reading when its format is one whose turns sit a line each; else undefined (read it whole). */
function lineBased(block: string, file: string): ParsedFile | undefined {
  try {
    const parsed = parseTranscript(block, file, { allowEmpty: true });
    return LINE_FORMATS.has(parsed.format) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function countLines(block: string): number {
  let n = 0;
  for (let i = block.indexOf('\n'); i >= 0; i = block.indexOf('\n', i + 1)) n++;
  return n;
}

function fileStat(file: string): fs.Stats {
  try {
    return fs.statSync(file);
  } catch (e) {
    throw cannotRead(file, e);
  }
}

function cannotRead(file: string, e: unknown): Error {
  return new Error(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}.`);
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

function tooBig(file: string, bytes: number, what = 'it is'): Error {
  return invalid(
    `${file}: ${what} ${mib(bytes)} MiB, over the ${mib(LIMITS.wholeTranscriptBytes)} MiB that is read at once for this format.`,
    'Split it into smaller files, or convert it to JSONL (one {"role", "content"} turn a line), which is read a block of lines at a time.',
  );
}
