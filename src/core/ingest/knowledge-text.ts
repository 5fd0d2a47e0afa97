/**
 * The parts of a turn knowledge is read from, and the sentences in them. What the speaker did not
 * state themselves is left out: fenced code, `> ` quotes, tool output and terminal frames, stack
 * traces and logs, tables and headings, and anything pasted after "X said:". Lines a terminal
 * wrapped are joined again; list bullets are dropped; each sentence is one candidate statement.
 */
import { Fences } from './fences.js';
import { underHeading } from './instruction-markers.js';

/** A line of a tool's output or a terminal's frame: box drawing, tool markers, prompts, diff and log lines. */
const TOOL_LINE =
  /^\s*(?:[│┃╭╮╰╯├└┌┐┘─━═║⎿⏺✓✔✗✘✦●❯»]|[$#]\s|>>>|\+{3}|-{3}\s|-{3,}\s*$|@@|<{7}|={7}|>{7}|\w+>\s|\[\w[\w ]*\]\s*(?:Result|Output|Error)\b)/;
/** A line of a stack trace or a log: "  at f (file.ts:3:4)", 'File "x.py", line 3', "Traceback", "npm ERR!", "error[E0382]:", "DEPRECATION: …". */
const TRACE_LINE =
  /^\s*(?:at\s+\S+.*[:(]\d+|File\s+".*",\s+line\s+\d+|Traceback\b|npm\s+(?:ERR!|WARN)|(?:error|warning|fatal|panic|deprecation)(?:\[\w+\])?:|Caused by:|\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[(?:INFO|WARN|ERROR|DEBUG)\])/i;
/** Someone else's words pasted by the person: "GEMINI SAID:", "the agent replied:". The rest of the turn is theirs. */
const PASTED = /^\s*(?:[\p{L}\w][\p{L}\w .-]{0,40}\s+)?(?:said|says|wrote|replied|answered|responded|output|printed|returned)\s*:/iu;
/**
 * Sentence ends: Latin punctuation before a space (before a lower-case word too: people type so, but
 * not after "no." or "vs."), dots run into the next word ("long..if it can", "no emdashes..let's"), or CJK full stops.
 */
const SENTENCE_END =
  /(?<=[.!?])\s+(?=[^\s\p{Ll}])|(?<=\p{L}\.{2,})(?=\p{L})|(?<=[\p{L}\p{N})`'"][.!?])(?<!\b(?:[Nn]o|[Vv]s|approx|[Ff]ig|[Ee]x|[Ss]t|[Mm]rs?|[Dd]r|[JjSs]r|[Ii]nc|[Ll]td|[Cc]o|al|op|ca|resp)\.)\s+(?=\p{Ll})|(?<=[。！？])|(?<=[.!?])\s*$/u;
const BULLET = /^\s*(?:[-*+•]|\d{1,3}[.)]|[a-z][.)]|\(\d{1,3}\))\s+/;

/** Words a passage in quotes opening a turn has when it is someone's words pasted, not a phrase quoted. */
const QUOTED_WORDS = 12;

/**
 * A turn that opens with a passage in double quotes ('"ARCH-01 notes …" - add this as a note'): the
 * rest, the passage being pasted. Pasted when its first quoted run is long; it ends at the last
 * quote a dash, a colon, a line's end or the turn's end follows (a quoted word further on is not it).
 */
function unquoted(text: string): string {
  const t = text.trimStart();
  if (!/^["“]/.test(t)) return text;
  const first = t.slice(1).search(/["”]/);
  if (first < 0 || t.slice(1, first + 1).split(/\s+/).length < QUOTED_WORDS) return text;
  let end = -1;
  for (const m of t.matchAll(/["”](?=[ \t]*(?:[-—–:]|\n|$))/g)) end = m.index;
  return end > 0 ? t.slice(end + 1) : text;
}

/**
 * The lines of a turn as written, each undefined where it is not the speaker's own text: fenced
 * code, `> ` quotes, tool output and terminal frames, stack traces and logs, tables, blank lines.
 * Nothing after "X said:" is the speaker's. Headings are kept (readers treat them their own way).
 */
function ownLines(text: string): (string | undefined)[] {
  const fences = new Fences();
  const out: (string | undefined)[] = [];
  text = unquoted(text);
  // The line a list's items come under (a heading, "DO NOT:", an item ending in ":"), and its indent.
  let over: { line: string; indent: number } | undefined;
  for (const line of text.replace(/\r/g, '').split('\n')) {
    if (fences.step(line)) out.push(undefined);
    else if (PASTED.test(line)) break;
    else if (!line.trim() || /^\s*>/.test(line) || TOOL_LINE.test(line) || TRACE_LINE.test(line) || /^\s*\|/.test(line))
      out.push(undefined);
    else {
      const bullet = BULLET.exec(line)?.[0];
      const indent = line.length - line.trimStart().length;
      if (bullet && over && indent > over.indent) out.push(bullet + underHeading(line.slice(bullet.length), over.line));
      else out.push(line);
      if (/^#{1,6}\s/.test(line.trim()) || /[:：]\s*$/.test(line))
        // A line's last sentence is what leads its list ("DO NOT invent models. Use these:" leads with "Use these:").
        over = {
          line: line
            .trim()
            .replace(BULLET, '')
            .split(/(?<=[.!?])\s+/)
            .pop()!,
          indent: bullet ? indent : -1,
        };
      else if (!bullet) over = undefined;
    }
  }
  return out;
}

/** A line shorter than this is not prose wrapped at a width (which runs 70 to 100 characters). */
const SHORT_LINE = 60;

/**
 * Paragraphs of the speaker's own prose: each a list of lines, with the lines that are not prose
 * left out. A paragraph ends at a blank line, a bullet or a line that was left out.
 */
export function proseParagraphs(text: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const end = (): void => {
    if (current.length > 0) paragraphs.push(current.join(' '));
    current = [];
  };
  // A list item ending in a colon ("ALL hooks must return:") is completed by the indented line under it.
  let open = false;
  for (const line of ownLines(text)) {
    if (line === undefined || /^#{1,6}\s/.test(line.trim())) {
      end();
      open = false;
      continue;
    }
    if (open && !(/^\s/.test(line) && !BULLET.test(line))) end();
    open = false;
    // Indented four spaces or a tab after a blank line: a code block.
    if (/^(?: {4}|\t)/.test(line) && current.length === 0 && !BULLET.test(line)) continue;
    const t = line.trim();
    const last = current.at(-1);
    // A short line without a full stop, then a capital: people end a sentence with the line in chat ("Tenant id is …⏎We will connect …").
    if (BULLET.test(line) || (last !== undefined && last.length < SHORT_LINE && /^\p{Lu}/u.test(t) && !/[,;:(&+/-]$/.test(last))) end();
    current.push(t.replace(BULLET, ''));
    if (BULLET.test(line) && /[:：]$/.test(t)) open = true;
    // A line ending a sentence ends the paragraph's run; a wrapped line goes on into the next.
    else if (/[.!?:。！？]$/.test(t) && !/[,;]$/.test(t)) end();
  }
  end();
  return paragraphs;
}

/** The sentences of a paragraph, each trimmed; bold and italic marks are left out, code spans kept. */
export function sentences(paragraph: string): string[] {
  const plain = paragraph.replace(/\*\*|__/g, '').replace(/\s+/g, ' ');
  const out: string[] = [];
  // A full stop inside a code span or a file name ("README.md", "e.g.", "ie.") does not end a sentence.
  const spans: string[] = [];
  const masked = plain
    .replace(/`[^`]*`/g, (m) => `\u0000${spans.push(m) - 1}\u0000`)
    .replace(/\b(?:e\.g|i\.e|ie|eg|etc|vs|cf)\./gi, (m) => m.replace(/\./g, '\u0001'));
  for (const part of masked.split(SENTENCE_END)) {
    const s = part
      .replace(/\u0000(\d+)\u0000/g, (_m, i: string) => spans[Number(i)]!)
      .replace(/\u0001/g, '.')
      .trim()
      // The dots that ran into the next sentence ("no emdashes..let's") end this one with no full stop of their own.
      .replace(/(?<=\p{L})\.{2}$/u, '');
    if (s) out.push(s);
  }
  return out;
}

/** A line that names what the list under it sets: "Create principles for X:", "2) TECH STACK RULES", "## Conventions". */
const RULES_NAMED =
  /\b(?:rules?|guidelines?|principles?|conventions?|requirements?|guardrails?|constraints?|standards?|policies|constitution|decisions)\b/i;

/** A line that names the list just above it: "add these rules", "follow the above conventions" (not "these rules:", which opens one). */
const NAMES_LIST_ABOVE =
  /\b(?:these|those|the above|above)\s+(?:\w+\s+)?(?:rules?|guidelines?|principles?|conventions?|requirements?|constraints?|standards?)\b(?![^\n]*[:：]\s*$)/i;

/** An item of a turn's rules list, with the line that names its list when that line is just above it. */
export interface ListedItem {
  text: string;
  under?: string;
}

/**
 * The list items of a turn that sets out rules as a list, as a memory file does: a line that is not
 * an item names them (RULES_NAMED), then at least three items; or the items come first and a line
 * after them, or their last item, names them ("add these rules", NAMES_LIST_ABOVE). Undefined for
 * any other turn. Only the speaker's own lines are read (ownLines). An item keeps the naming line
 * it sits under ("Architecture decisions (locked, do not change):") as a memory file's item keeps its heading.
 */
export function listedItems(text: string): ListedItem[] | undefined {
  let named = false;
  let under: string | undefined;
  const items: ListedItem[] = [];
  let above: ListedItem[] = [];
  for (const line of ownLines(text)) {
    if (line === undefined) continue;
    const t = line.trim();
    if (BULLET.test(line) && /[\p{Ll}]/u.test(t)) {
      const item = { text: t.replace(BULLET, ''), ...(under ? { under } : {}) };
      if (named) items.push(item);
      else above.push(item);
    } else if (RULES_NAMED.test(t) && t.length <= 120) {
      named = true;
      under = t;
    } else if (t && !BULLET.test(line)) under = undefined;
    if (above.length === 0 || !NAMES_LIST_ABOVE.test(t)) continue;
    items.push(...above.map((a) => ({ ...a, under: t })));
    above = [];
    named = true;
  }
  return items.length >= 3 ? items : undefined;
}

/** Every candidate sentence of a turn, in order. */
export function candidateSentences(text: string): string[] {
  return proseParagraphs(text).flatMap(sentences);
}

/** An auxiliary after "when" or "where" that makes it ask ("when is it due") rather than set a case ("When writing tests, use …"). */
const ASKS_AFTER = /^(?:when|where)\s+(?:is|are|was|were|do|does|did|will|would|can|could|should|shall|may|might|have|has|had|am)\b/i;

/** Words that open a sentence before what it says: "and also", "so", "as far as Codex,". */
const LEAD_IN = /^(?:(?:and|also|so|but|then|ok(?:ay)?|now|well)\b[,\s]*)+|^as (?:far as|for) [^,]{1,40},\s*/i;

/** A question: asked with a question mark, or opening as questions do ("should we use X", "do we need", "when is it"). */
export function isQuestion(s: string): boolean {
  // Asked after a lead-in, often with no question mark: "And also should I create this on …", "As far as Codex, should I …".
  const t = s.trim().replace(LEAD_IN, '');
  if (/[?？]\s*[)"'”]?\s*$/.test(t) || /[吗呢]\s*[。.]?$/.test(t) || /(?:ですか|ますか|でしょうか)[。.]?$/.test(t)) return true;
  return (
    ASKS_AFTER.test(t) ||
    /^(?:what|why|how|who|whom|which|whose|shall|should|can|could|would|will|is|are|was|were|am|may|might|isn'?t|aren'?t|wouldn'?t|shouldn'?t|couldn'?t|won't)\b/i.test(
      t,
    ) ||
    // Typed fast, the apostrophe goes: "dont we have these fields already".
    /^(?:do|does|did|have|has|had|don'?t|doesn'?t|didn'?t)\s+(?:we|you|i|they|he|she|it|this|that|these|those|the|our|your|anyone)\b/i.test(
      t,
    )
  );
}

/** The speaker's own suggestion ("I suggest …", "my recommendation is …"), not one the work makes ("… and suggest improvements"). */
const SUGGESTED =
  /\b(?:i|we|i'd|we'd)\s+(?:also\s+|strongly\s+|really\s+)?(?:suggest|recommend)|\b(?:my|our)\s+(?:suggestion|recommendation)|\b(?:suggested|recommended)\b/i;

/** A doubt, a plan or a hypothetical: "if we used X", "maybe", "I think we could". Nothing is read from it. */
export function isHedged(s: string): boolean {
  return (
    /^(?:if|unless|suppose|supposing|assuming|in case|what if|whether)\b/i.test(s.trim()) ||
    /\b(?:would|could|might|maybe|perhaps|probably|possibly|i think|i guess|i suppose|not sure|wonder|wondering|considering|thinking about|thinking of|hoping|hope|wish|for example|e\.g\.)\b/i.test(
      s,
    ) ||
    SUGGESTED.test(s) ||
    /(?:かもしれ|でしょう|と思い|如果|也许|可能|或许|talvez|acho que|se (?:a gente|nós)|quizás|tal vez|creo que|peut-être|je pense|je crois|on pourrait|vielleicht|ich denke|ich glaube|könnten|forse|penso che|potremmo|아마|것 같)/i.test(
      s,
    ) ||
    /^(?:si|wenn|falls|se)\s/i.test(s.trim())
  );
}

/** One-off and temporary instructions: "don't write any code yet", "for now, skip the tests" (not "next time": every time after). */
export function isTemporary(s: string): boolean {
  return /\b(?:yet|for now|right now|for the moment|at the moment|this time|today|tonight|temporarily|for the time being|until|(?<!\w+est\s)first|next(?!\s+(?:steps?|time)\b))\b(?![.-]\w)/i.test(
    s,
  );
}
