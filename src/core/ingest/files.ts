/** Reading a transcript file from disk; the parser is chosen by content (see detect.ts). */
import * as fs from 'node:fs';
import { parseTranscript, type ParseOptions } from './detect.js';
import type { ParsedFile } from './transcripts.js';

export function readTranscriptFile(file: string, opts: ParseOptions = {}): ParsedFile {
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}.`);
  }
  return parseTranscript(content, file, opts);
}
