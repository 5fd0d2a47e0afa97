/**
 * Cline and Roo Code task histories: `tasks/<taskId>/api_conversation_history.json` (a JSON array of
 * Anthropic-style `{role, content: string | [{type: "text", text} | tool_use | tool_result]}`, or
 * Roo's `{version: 2, messages}` with role `tool`) and `ui_messages.json` (`{ts, type: "say"|"ask",
 * say?, ask?, text}`). User messages are mostly the agent's own plumbing (tool results written as
 * text, `<environment_details>`); the person's words are only inside `<task>`, `<feedback>`,
 * `<user_message>` and `<answer>`. The task folder's name is the session.
 */
import type { EpisodeInput } from '../model/events.js';
import { type ParsedFile, roleTurn, sessionFromSource, toIsoTime } from './transcripts.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const HUMAN_TAGS = /<(task|feedback|user_message|answer)>([\s\S]*?)<\/\1>/g;

/** The messages of an api_conversation_history document, or undefined when it is not one. */
export function clineApiMessages(json: unknown): Obj[] | undefined {
  const messages = isObj(json) && json.version === 2 && Array.isArray(json.messages) ? json.messages : json;
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isObj)) return undefined;
  const tagged = messages.some((m) => m.role === 'user' && /<(task|feedback|user_message|answer)>|\] Result:/.test(partsText(m.content)));
  return tagged && messages.every((m) => typeof m.role === 'string') ? messages : undefined;
}

export function isClineUiMessages(json: unknown): boolean {
  return (
    Array.isArray(json) &&
    json.length > 0 &&
    json.every((m) => isObj(m) && (m.type === 'say' || m.type === 'ask') && typeof m.ts === 'number')
  );
}

export function parseClineApi(messages: Obj[], source: string, session = sessionFromSource(source)): ParsedFile {
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  messages.forEach((m, index) => {
    const raw = partsText(m.content);
    const user = m.role === 'user';
    const text = user
      ? [...raw.matchAll(HUMAN_TAGS)]
          .map((t) => t[2]!.trim())
          .filter(Boolean)
          .join('\n\n')
      : m.role === 'assistant'
        ? raw.replace(/<thinking>[\s\S]*?<\/thinking>/g, '').trim()
        : '';
    if (!text) return void skipped++;
    episodes.push(roleTurn(user ? 'user' : 'assistant', text, { session, source, time: toIsoTime(m.ts), ref: `message ${index + 1}` }));
  });
  return { format: 'cline', episodes, skipped };
}

export function parseClineUi(messages: Obj[], source: string, session = sessionFromSource(source)): ParsedFile {
  const episodes: EpisodeInput[] = [];
  let skipped = 0;
  messages.forEach((m, index) => {
    const text = typeof m.text === 'string' ? m.text.trim() : '';
    // The task opens the history (before any API request); feedback is what the person typed later.
    const user = m.say === 'task' || m.say === 'user_feedback' || (m.say === 'text' && m.conversationHistoryIndex === -1);
    const agent = !user && m.say === 'text';
    if (!text || (!user && !agent)) return void skipped++;
    episodes.push(roleTurn(user ? 'user' : 'assistant', text, { session, source, time: toIsoTime(m.ts), ref: `ui ${index + 1}` }));
  });
  return { format: 'cline-ui', episodes, skipped };
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (isObj(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .filter((t) => t.trim())
    .join('\n\n');
}
