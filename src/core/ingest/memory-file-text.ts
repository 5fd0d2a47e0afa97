/**
 * The text of a memory file's lines as the reader (memory-file-items.ts) takes it: markdown marks
 * out, words counted (a word per two Chinese or Japanese characters), headings as names, sentences,
 * and statements bounded to LIMITS.statementChars.
 */
import { LIMITS } from '../model/limits.js';

/** Chinese and Japanese characters: written without spaces, a word is about two of them. */
const CJK_CHARS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

/** How many words a text holds: space-separated ones, and a word per two Chinese or Japanese characters. */
export function wordCount(s: string): number {
  let n = 0;
  for (const w of s.split(/\s+/)) {
    const cjk = w.match(CJK_CHARS)?.length ?? 0;
    const rest = w.replace(CJK_CHARS, ' ');
    n += Math.ceil(cjk / 2) + rest.split(' ').filter((x) => /[\p{L}\p{N}]/u.test(x)).length;
  }
  return n;
}

/** Markdown emphasis, inline HTML and link targets out of a text; code spans kept as written. */
export function plain(s: string): string {
  // Code spans are kept as written, set aside so emphasis around one ("**Never run `x`**") is still emphasis.
  const spans: string[] = [];
  return (
    s
      .replace(/`[^`]*`/g, (m) => `\u0000${spans.push(m) - 1}\u0000`)
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/<\/?[A-Za-z][^>]*>/g, '')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      // Bold a sentence's end cut from its start ("**All commands MUST run through Docker. NPM runs locally:**").
      .replace(/^\*\*(?=\S)|(?<=\S)\*\*$/g, '')
      .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
      .replace(/\u0000(\d+)\u0000/g, (_m, i: string) => spans[Number(i)]!)
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A heading as a subject: no numbering, emoji, emphasis or trailing colon. */
export function headingName(s: string): string {
  return plain(s)
    .replace(/^[^\p{L}\p{N}`]+/u, '')
    .replace(/^(?:\d+(?:\.\d+)*[.)]?|step \d+[:.]?)\s+/i, '')
    .replace(/[`]/g, '')
    .replace(/[:：.\s]+$/, '')
    .slice(0, LIMITS.nameChars)
    .trim();
}

const GENERIC_HEADING =
  /^(?:general|overview|rules?|guidelines?|instructions?|notes?|misc(?:ellaneous)?|others?|summary|introduction|about|context)$/i;
/** A heading that asks or directs ("What NOT to Do", "DO NOT:", "Never"), or quotes ("\"fixture not found\""): it names nothing. */
const NOT_A_NAME = /^(?:what|how|why|when|where|which|who|do|don'?t|dos|do's|never|always|avoid|must|should)(?![\p{L}'])|"|^[“‘]/iu;

/** Whether a heading (headingName) names what its items are about: not a generic one ("General") nor one that asks or directs. */
export const namesSubject = (h: string): boolean =>
  h !== '' && !GENERIC_HEADING.test(h) && !NOT_A_NAME.test(h.replace(/[\u2018\u2019]/g, "'"));

/** A statement within LIMITS.statementChars: whole sentences while they fit, else the first cut at a word. */
export function boundStatement(s: string): string {
  if (s.length <= LIMITS.statementChars) return s;
  let out = '';
  for (const x of splitSentences(s)) {
    const next = out ? `${out} ${x}` : x;
    if (next.length > LIMITS.statementChars) break;
    out = next;
  }
  if (out.trim()) return out.trim();
  const cut = s.slice(0, LIMITS.statementChars - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).trimEnd()}…`;
}

/** A sentence ends at . ! ? (and any closing emphasis, bracket or quote) before a space, so `a.b` and 1.5 go on; at a CJK full stop, space or none. */
export const SENTENCE_BREAK =
  /(?<=[.!?][*_)"'”」』）]*)(?<!\b(?:[Ee]\.[Gg]|[Ii]\.[Ee]|[Vv]s|[Cc]f)\.)\s+|(?<=[。！？][*_)"'”」』）]*)(?![*_)"'”」』）])\s*/u;
export const ENDS_SENTENCE = /[.!?。！？][*_)"'”」』）]*$/;

/** The sentences of a text on one line. */
export function splitSentences(s: string): string[] {
  return s
    .split(SENTENCE_BREAK)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** A label the item opens with: "**Testing**: …", "`main` — …", "Formatting: …" (a few words, then a colon). */
export function labelled(text: string): { label?: string; body: string } {
  const bold = /^(?:\*\*|__)(.+?)(?:\*\*|__)(\s*[:：—–-]?)\s*(.*)$/.exec(text);
  // An item wholly in bold ("**NEVER commit without asking the user first**") is its own statement, not a label;
  // nor is a bold opening the sentence goes on from ("**Use appropriate serializers** (List for listings)").
  const goesOn = bold && !bold[2]!.trim() && /^[\p{Ll}(]/u.test(bold[3]!);
  if (bold && bold[1]!.length <= 80 && bold[3] && !goesOn) return { label: headingName(bold[1]!), body: bold[3] };
  const code = /^`([^`]{1,80})`\s*[:：—–-]\s+(.+)$/.exec(text);
  if (code) return { label: code[1]!, body: code[2]! };
  const plainLabel = /^([\p{Lu}][^:.!?`]{0,50}):\s+(.+)$/u.exec(text);
  if (plainLabel && wordCount(plainLabel[1]!) <= 4) return { label: headingName(plainLabel[1]!), body: plainLabel[2]! };
  return { body: text };
}

/** A label that says always or never ("**NEVER run `x`**"): its item is a rule, whatever follows it. */
export const saysAlwaysOrNever = (label: string): boolean => /^(?:never|always|do not|don'?t|must|avoid)\b/i.test(label);

/** A sentence about the file itself ("This file provides guidance to …", "These rules apply to …"): what it is, not what it says. */
export const aboutTheFile = (s: string): boolean =>
  /^(?:these|this|the following) (?:instructions?|rules?|guidelines?|file|document|guide)\b/i.test(s);

export interface Block {
  start: number;
  end: number;
  lines: string[];
  indent?: number;
}

/**
 * The sentences of a block with the lines each spans. A sentence ends at its punctuation (above),
 * and at a line break before a capital, a digit or a letter of a script without case (Chinese,
 * Japanese, Korean…): a plain-text rule file puts one statement on each line, while wrapped prose
 * goes on in lower case or after a comma.
 */
export function sentences(b: Block): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  let cur = '';
  let start = b.start;
  b.lines.forEach((raw, k) => {
    const line = raw.trim();
    const n = b.start + k;
    if (cur && /^[\p{Lu}\p{N}\p{Lo}]/u.test(line) && !/[,;(，、；（]$/.test(cur)) {
      out.push({ text: cur.trim(), start, end: n - 1 });
      cur = '';
    }
    if (!cur) start = n;
    const parts = splitSentences(line);
    parts.forEach((part, j) => {
      cur += (cur ? ' ' : '') + part;
      if (j < parts.length - 1 || ENDS_SENTENCE.test(part)) {
        out.push({ text: cur.trim(), start, end: n });
        cur = '';
        start = n;
      }
    });
  });
  if (cur.trim()) out.push({ text: cur.trim(), start, end: b.end });
  return out;
}
