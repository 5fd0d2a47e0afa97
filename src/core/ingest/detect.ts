/**
 * Choosing a transcript's parser by its content, and saying plainly when none fits: a file that is
 * not a known format, or that yields no turn, is an error naming the formats tried and what was
 * missing, never an empty success.
 */
import * as path from 'node:path';
import { invalid } from '../model/errors.js';
import { isAider, parseAider } from './aider.js';
import { isClaudeCodeStream, parseClaudeCode } from './claude.js';
import {
  isClaudeExportMarkdown,
  isClaudeTerminalExport,
  parseClaudeExportMarkdown,
  parseClaudeTerminalExport,
  TERMINAL_MARKERS,
} from './claude-export.js';
import { clineApiMessages, isClineUiMessages, parseClineApi, parseClineUi } from './cline.js';
import { isCodexRollout, parseCodexRollout } from './codex.js';
import { isCopilotChatSession, parseCopilotChat } from './copilot.js';
import { isCursorExport, parseCursorExport } from './cursor.js';
import { isGeminiQuoted, isGeminiShare, parseGeminiQuoted, parseGeminiShare } from './gemini.js';
import { jsonValues, type JsonStream } from './json-stream.js';
import { isLocomo, parseLocomo } from './locomo.js';
import { parseMarkdown } from './markdown.js';
import { isSpecStory, parseSpecStory } from './specstory.js';
import { LIMITS } from '../model/limits.js';
import { messageArray, parseJsonl, parseMessageArray, type ParsedFile } from './transcripts.js';

export const JSON_FORMATS = [
  'Claude Code JSONL',
  'Codex CLI rollout',
  'Copilot Chat session or export',
  'Cline/Roo task history',
  'LoCoMo',
  'JSON array of {role, content}',
  'JSONL of {role|speaker, text|content}',
];
/** Each text format with the markers that make it: an unrecognised file's error lists them. */
export const TEXT_FORMATS = [
  'SpecStory ("_**User**_", "_**Assistant**_", "_**Agent (…)**_")',
  'Cursor "Export Chat" markdown ("_Exported on … from Cursor …_", "**User**" / "**Cursor**" after "---")',
  'aider chat history ("# aider chat started at …", "#### " prompts)',
  'Gemini CLI chat ("## USER" / "## MODEL" headings, or "**User:**" / "**Model:**" with "> " quoted bodies)',
  'Claude conversation-extractor markdown ("## 👤 User" / "## 🤖 Claude")',
  `Claude Code terminal text (${TERMINAL_MARKERS})`,
  'markdown with speaker markers ("**User:**", "User: …", "## Assistant", "### User (date)")',
];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ParseOptions {
  /**
   * A session being watched may have no turn yet (a chat just opened, a file just created): with
   * this set, an empty file or one of a known format without turns is no error.
   */
  allowEmpty?: boolean;
}

/** Parses a transcript file's content; `file` names it in errors and gives the session when the content has none. */
export function parseTranscript(content: string, file: string, opts: ParseOptions = {}): ParsedFile {
  const source = path.basename(file);
  const text = content.replace(/^\uFEFF/, '');
  if (!text.trim()) {
    if (opts.allowEmpty) return { format: 'empty', episodes: [], skipped: 0 };
    throw invalid(`${file} is empty.`, 'Point ingest at a transcript with at least one turn.');
  }
  const json = /^\s*[[{]/.test(text);
  const parsed = json ? parseJsonLike(text, file, source) : parseText(text, file, source);
  // A text turn far longer than turns are: the parser may have missed the markers around it.
  if (!json) {
    const suspect = parsed.episodes.filter((e) => Buffer.byteLength(e.text) > LIMITS.suspectTurnBytes).map((e) => e.ref ?? '');
    if (suspect.length) parsed.suspect = suspect;
  }
  if (parsed.episodes.length === 0 && !opts.allowEmpty) {
    throw invalid(
      `${file}: read as ${parsed.format}, but no turn was found in it (${parsed.skipped} part${parsed.skipped === 1 ? '' : 's'} skipped as tool output, commands or injected context).`,
      'Nothing was stored. If the file holds a conversation, its turns are in a shape Recall does not read yet.',
    );
  }
  return parsed;
}

function parseJsonLike(text: string, file: string, source: string): ParsedFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json !== undefined) {
    if (isCopilotChatSession(json)) return parseCopilotChat(text, source, json);
    if (isLocomo(json)) {
      const conversations = parseLocomo(json, source);
      return { format: 'locomo', episodes: conversations.flatMap((c) => c.episodes), skipped: 0 };
    }
    const cline = clineApiMessages(json);
    if (cline) return parseClineApi(cline, source, taskFolder(file));
    if (isClineUiMessages(json)) return parseClineUi(json as Obj[], source, taskFolder(file));
    const messages = messageArray(json);
    if (messages) return parseMessageArray(messages, source);
    // A Claude Code session saved as one JSON array of its events (`jq -s .`).
    if (Array.isArray(json)) {
      const events: JsonStream = { values: json.map((value, i) => ({ value, line: i + 1 })), bad: 0 };
      if (isClaudeCodeStream(events)) return parseClaudeCode(text, source, events);
    }
    if (Array.isArray(json) || !isObj(json) || !('type' in json || 'role' in json || 'speaker' in json))
      throw unrecognised(file, JSON_FORMATS, jsonHint(json));
  }
  // Read as a stream of JSON values once; the parser that claims the file reuses it.
  const stream = jsonValues(text);
  if (isClaudeCodeStream(stream)) return parseClaudeCode(text, source, stream);
  const objects = stream.values.map((v) => v.value);
  if (isCodexRollout(objects)) return parseCodexRollout(text, source, stream);
  if (isCopilotChatSession(text)) return parseCopilotChat(text, source);
  const turns = objects.filter((o) => isObj(o) && (typeof o.role === 'string' || typeof o.speaker === 'string'));
  if (turns.length > 0 && turns.length >= objects.length / 2) return parseJsonl(text, source);
  throw unrecognised(file, JSON_FORMATS, jsonHint(objects[0]));
}

function parseText(text: string, file: string, source: string): ParsedFile {
  if (isSpecStory(text)) return parseSpecStory(text, source);
  if (isCursorExport(text)) return parseCursorExport(text, source);
  if (isAider(text)) return parseAider(text, source);
  if (isGeminiShare(text)) return parseGeminiShare(text, source);
  if (isGeminiQuoted(text)) return parseGeminiQuoted(text, source);
  if (isClaudeExportMarkdown(text)) return parseClaudeExportMarkdown(text, source);
  if (isClaudeTerminalExport(text)) return parseClaudeTerminalExport(text, source);
  const markdown = parseMarkdown(text, source);
  if (markdown.episodes.length === 0) {
    throw unrecognised(file, TEXT_FORMATS, 'none of the speaker markers below is in it.');
  }
  return markdown;
}

/** The task id of a Cline/Roo history is the name of the folder it sits in. */
function taskFolder(file: string): string | undefined {
  const folder = path.basename(path.dirname(path.resolve(file)));
  return folder && folder !== '.' ? folder : undefined;
}

function jsonHint(value: unknown): string {
  if (isObj(value) && ('files_in_context' in value || 'model_usage' in value)) {
    return "it is Cline's task_metadata.json, which holds no conversation: ingest api_conversation_history.json from the same task folder.";
  }
  if (isObj(value) && Array.isArray(value.requests))
    return 'it has "requests" but they are neither Copilot requests (message/response) nor prompt/completion pairs.';
  if (Array.isArray(value)) return 'it is a JSON array, but its items are not messages with a "role" and "content".';
  if (isObj(value)) return `it is a JSON object with keys ${Object.keys(value).slice(0, 6).join(', ')}, none of them a conversation.`;
  return 'it is JSON but not an object or array of messages.';
}

function unrecognised(file: string, tried: string[], missing: string): Error {
  return invalid(`${file}: not a transcript format Recall reads; ${missing}`, `Formats tried:\n${tried.map((f) => `  - ${f}`).join('\n')}`);
}
