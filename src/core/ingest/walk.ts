/**
 * The transcripts in a folder tree, for `recall ingest DIR`: `~/.claude/projects`, `~/.codex/sessions`,
 * a `.specstory/history`, a repository. A file is taken when its name is one a tool gives its
 * transcripts, or when its first bytes carry a known format's markers; the memory files people keep
 * (memory-files.ts: AGENTS.md, Cursor rules, …) are taken by where they sit; everything else (code,
 * READMEs, data) is left alone and counted. Links are not followed, `.git` and `node_modules` not
 * entered.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAider } from './aider.js';
import { isClaudeExportMarkdown, isClaudeTerminalExport } from './claude-export.js';
import { isCursorExport } from './cursor.js';
import { isGeminiQuoted, isGeminiShare } from './gemini.js';
import { memoryFileType } from './memory-files.js';
import { isSpecStory } from './specstory.js';

export interface Walked {
  /** Transcript files, in a stable order. */
  files: string[];
  /** Memory files (AGENTS.md, CLAUDE.md, Cursor rules, …), in a stable order. */
  memoryFiles: string[];
  /** Files looked at and left alone. */
  others: number;
  /** Whether the walk stopped at the bound before the whole tree was seen. */
  truncated: boolean;
}

const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** Names tools give their transcripts: taken whatever their first bytes say (a bad one is reported, not skipped). */
const KNOWN_NAMES = [
  /\.aider\.chat\.history\.md$/,
  /^aider\.chat\.history\.md$/,
  /^api_conversation_history\.json$/,
  /^rollout-.*\.jsonl$/,
];
const SNIFFED = /\.(jsonl|json|md|markdown|txt)$/i;
/** Bytes of a file's start read to tell its format. */
const HEAD_BYTES = 64 * 1024;
/** The first JSON value of a transcript in JSON: a Claude Code or Codex event, a `{role}` message, a Copilot session. */
const JSON_HEAD =
  /"(?:sessionId|requests|speaker|session_meta|parentUuid)"\s*:|"role"\s*:\s*"(?:user|assistant|system|model)"|"type"\s*:\s*"(?:user|assistant|summary|session_meta|response_item)"/;
const SESSION_EXPORT = /^#{2,3} (?:User|USER|Assistant|ASSISTANT)\b/m;
const CONTENT_BLOCKS = /^\[\s*\{\s*["'](?:type|tool_use_id)["']/m;

export function walkTranscripts(root: string, limit: number, home?: string): Walked {
  const files: string[] = [];
  const memoryFiles: string[] = [];
  let others = 0;
  let seen = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      others++;
      continue;
    }
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) pending.push(full);
        continue;
      }
      if (!entry.isFile()) continue;
      if (++seen > limit) return { files: files.sort(), memoryFiles: memoryFiles.sort(), others, truncated: true };
      if (memoryFileType(full, home)) memoryFiles.push(full);
      // Cline's UI log repeats the conversation of the history beside it.
      else if (entry.name === 'ui_messages.json' && names.has('api_conversation_history.json')) others++;
      else if (isTranscript(full, entry.name, dir)) files.push(full);
      else others++;
    }
  }
  return { files: files.sort(), memoryFiles: memoryFiles.sort(), others, truncated: false };
}

function isTranscript(file: string, name: string, dir: string): boolean {
  if (KNOWN_NAMES.some((re) => re.test(name))) return true;
  if (path.basename(dir) === 'history' && path.basename(path.dirname(dir)) === '.specstory' && name.endsWith('.md')) return true;
  if (!SNIFFED.test(name) || name === 'task_metadata.json') return false;
  const head = readHead(file);
  if (head === undefined || !head.trim()) return false;
  if (/^\s*[[{]/.test(head)) return JSON_HEAD.test(head.slice(0, 4096));
  return (
    isSpecStory(head) ||
    isCursorExport(head) ||
    isAider(head) ||
    isGeminiShare(head) ||
    isGeminiQuoted(head) ||
    isClaudeExportMarkdown(head) ||
    isClaudeTerminalExport(head) ||
    (SESSION_EXPORT.test(head) && CONTENT_BLOCKS.test(head))
  );
}

function readHead(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
