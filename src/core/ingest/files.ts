/** Reading a transcript file from disk and choosing its parser by content. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseJsonl, parseMarkdown, type ParsedFile } from './transcripts.js';
import { isClaudeCodeJsonl, parseClaudeCode } from './claude.js';
import { isCopilotChatSession, parseCopilotChat } from './copilot.js';
import { isLocomo, parseLocomo } from './locomo.js';

export function readTranscriptFile(file: string): ParsedFile {
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}.`);
  }
  const source = path.basename(file);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') {
    let json: unknown;
    try {
      json = JSON.parse(content);
    } catch (e) {
      throw new Error(`${file} is not valid JSON (${(e as Error).message}).`);
    }
    if (isCopilotChatSession(json)) return parseCopilotChat(content, source);
    if (isLocomo(json)) {
      const conversations = parseLocomo(json, source);
      return { format: 'locomo', episodes: conversations.flatMap((c) => c.episodes), skipped: 0 };
    }
    throw new Error(
      `${file}: unrecognised JSON transcript. Supported: Copilot Chat sessions, LoCoMo JSON, Claude Code JSONL, or JSONL with one {"role"|"speaker", "text"|"content"} turn a line.`,
    );
  }
  if (ext === '.jsonl' || ext === '.ndjson') {
    const head = content.split(/\r?\n/, 20);
    if (isClaudeCodeJsonl(head)) return parseClaudeCode(content, source);
    if (isCopilotChatSession(head.find((l) => l.trim()) ?? '')) return parseCopilotChat(content, source);
    return parseJsonl(content, source);
  }
  if (ext === '.md' || ext === '.markdown' || ext === '.txt') return parseMarkdown(content, source);
  throw new Error(`${file}: unknown transcript type "${ext || '(none)'}". Use .jsonl, .md or LoCoMo .json.`);
}
