/**
 * A memory file's knowledge items, read from its markdown structure alone (no model):
 *
 * - each list item (bullet or numbered; its continuation lines with it) is one item, or each of
 *   its sentences when it is too long to be one statement; a lead-in ending in ":" followed by the
 *   items it leads (deeper ones, or a flat list's next) is not (one followed by code, a table or
 *   nothing is), nor a task ("[ ]", "[x]") or a fragment of fewer than three words (a word per two
 *   Chinese or Japanese characters);
 * - each sentence of a paragraph that instructs (imperative or modal: "Use…", "Never…",
 *   "…must…", or the markers of instruction-markers.ts in other languages) or states a decision
 *   is one item; other prose (introductions) is not. A line break before a capital, a digit or a
 *   letter of a caseless script ends a sentence: rule files put a statement on each line;
 * - a paragraph's instruction ending in ":" takes the short items under it into one item ("All shared
 *   logic must assume: multiple languages; non-Latin scripts"), when they do not instruct themselves;
 *   a paragraph's other lead ("Report includes:") only when all of them are short, as a list item's lead;
 * - a paragraph's stack line ("Electron + React 19 + Redux-Saga") or sentence saying what the project
 *   is ("X is a Python library for …") is a fact, and so are a shell block under a heading of
 *   commands, naming them, and a block drawing the layout (memory-file-code.ts);
 * - other code, block quotes, tables, HTML comments, front matter and `@import` lines are never
 *   read: a statement quoted or in code is not the person's.
 *
 * The kind: memory-file-kinds.ts.
 * The statement is the item's own words (emphasis and link targets dropped), cut at a sentence
 * within LIMITS.statementChars; the subject is the item's label ("**Testing**: …"), else its
 * nearest heading below the title (a generic one such as "General" does not count), else the file.
 */
import { invalid } from '../model/errors.js';
import type { KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import { underHeading } from './instruction-markers.js';
import {
  codeDoes,
  commandsFacts,
  conventionSaid,
  describesProject,
  isStackLine,
  layoutFacts,
  namesTechnology,
} from './memory-file-code.js';
import {
  aboutTheFile,
  type Block,
  boundStatement,
  headingName,
  labelled,
  namesSubject,
  plain,
  saysAlwaysOrNever,
  sentences,
  wordCount,
} from './memory-file-text.js';
import { commandDoes, kindOf, opensWithInstruction, ruleByHeading } from './memory-file-kinds.js';
import type { MemoryFileType } from './memory-files.js';
import { foundWhereKept } from './places.js';

export interface MemoryFileItem {
  kind: KnowledgeKind;
  statement: string;
  subject: string;
  /** The lines it was read from, 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The item's words as the file has them (the evidence stored for it). */
  text: string;
}

/** A lead-in pointing to what follows it: "ALWAYS follow this approach:", "Use these:". */
const POINTS_AHEAD = /\b(?:this|these|the following|as follows|below)(?:\s+[\w-]+)?\s*[:：]\s*$/i;
/** Headings whose lists show, not state: their items are examples. */
const EXAMPLES_HEADING = /^(?:examples?|samples?|usage examples?)$/i;
const MIN_WORDS = 3;
/** An entry with what it is after a dash ("`docs/api/` - API endpoints"): it says its own, it does not complete a lead. */
const DESCRIBED = /\S\s+[-–—]\s+\S/;
/** Words an item under an instruction's "…:" may have and still complete it ("non-Latin scripts"), not say more. */
const MAX_PART_WORDS = 6;

/** A list item of a person's turn that sets out rules ("Rules:", then items), read as an instructions file's item under the line naming its list, or nothing. */
export function listedItem(raw: string, under?: string): { kind: KnowledgeKind; statement: string } | undefined {
  const body = plain(labelled(raw).body);
  const kind = wordCount(body) >= MIN_WORDS ? kindOf(body, under ? [under] : [], { label: 'chat', instructions: true }, false) : undefined;
  return kind && { kind, statement: boundStatement(plain(raw)) };
}

/** The items of a memory file's text (see above). A file yielding more than LIMITS.memoryFileItems is refused. */
export function memoryFileItems(text: string, type: MemoryFileType, file = type.label): MemoryFileItem[] {
  const json = copilotEntry(text, type);
  if (json) return json;
  const lines = text.split(/\r?\n/);
  const items: MemoryFileItem[] = [];
  const headings: string[] = [];
  // The file's first heading, when it is a level-1 one before any content, is its title: never a subject.
  let title = false;
  let begun = false;
  let para: Block | undefined;
  let item: Block | undefined;
  // Lead-ins ("1. **Multi-Chain Support**:") by indent: their sub-items are about what they name.
  let leads: { indent: number; name: string }[] = [];
  // A paragraph ending in ":" just before a list ("Never do the following:"): what its items come under.
  let paraLead: string | undefined;
  const subjectOf = (label?: string, indent = -1): string =>
    (label && namesSubject(label) ? label : undefined) ||
    // "Define interfaces/types for:" instructs: what it leads is not about it.
    [...leads].reverse().find((l) => l.indent < indent && namesSubject(l.name) && !opensWithInstruction(l.name))?.name ||
    [...headings.slice(title ? 1 : 0)].reverse().find(namesSubject) ||
    type.label;
  const push = (kind: KnowledgeKind, statement: string, subject: string, start: number, end: number, words: string): void => {
    if (aboutTheFile(statement)) return;
    const said = boundStatement(statement.replace(/[:：]\s*$/, ''));
    items.push({ kind, statement: said, subject, startLine: start, endLine: end, text: words });
    if (items.length > LIMITS.memoryFileItems)
      throw invalid(
        `${file} holds more than ${LIMITS.memoryFileItems} items; memory files are read up to ${LIMITS.memoryFileItems}.`,
        'Split it into smaller files and point Recall at them.',
      );
  };
  // A lead-in waiting for the items it leads (deeper, or a flat list's next ones): when code, a table or nothing follows, it says something itself.
  let lead: { b: Block; raw: string } | undefined;
  const settle = (subItem: boolean, deeper = false): void => {
    const open = lead;
    lead = undefined;
    if (open && !subItem) emitItem(open.b, open.raw);
    // "- Errors:" over "  - user-friendly UI messages": when every item under it is that short, they complete it.
    if (open && deeper) {
      unfold();
      const { b, raw } = open;
      const subject = subjectOf(labelled(raw).label, (b.indent ?? 0) + 1); // its items' subject: its own name
      folded = { said: plain(raw), subject, start: b.start, end: b.end, parts: [], over: b.indent, held: [] };
    }
  };
  // A paragraph's instruction ending in ":" ("All shared logic must assume:") is completed by the short items under it.
  // A list item's lead ("over": its indent) has no kind of its own; its items are held until all of them prove short.
  let folded:
    | { kind?: KnowledgeKind; said: string; subject: string; start: number; end: number; parts: string[]; over?: number; held?: Block[] }
    | undefined;
  const folding = (said: string, parts: string[]): string => `${said.replace(/[:：]\s*$/, '')}: ${parts.join('; ')}`;
  const unfold = (): void => {
    const f = folded;
    folded = undefined;
    if (!f) return;
    // "ALWAYS follow this approach:" says nothing without what it points to.
    if (!f.parts.length && (POINTS_AHEAD.test(f.said) || !f.kind)) return;
    const said = f.parts.length ? folding(f.said, f.parts) : f.said;
    push(f.kind ?? kindOf(said, headings.filter(Boolean), type, true)!, said, f.subject, f.start, f.end, said);
  };
  // A list lead's items, one of which is more than a completing word or two: each says its own.
  const release = (): void => {
    const held = folded?.held ?? [];
    folded = undefined;
    for (const h of held) emitItem(h, h.lines.join(' ').trim());
  };
  const flushItem = (): void => {
    if (!item) return;
    const raw = item.lines.join(' ').trim();
    const b = item;
    const indent = b.indent ?? 0;
    item = undefined;
    leads = leads.filter((l) => l.indent < indent);
    if (/:\s*$/.test(raw)) {
      const name = headingName(labelled(raw).label ?? raw);
      if (name && wordCount(name) <= 6) leads.push({ indent, name });
      lead = { b, raw };
      return;
    }
    emitItem(b, raw);
  };
  function emitItem(b: Block, raw: string): void {
    if (folded) {
      const f = folded;
      const part = plain(raw);
      const under = f.over === undefined || (b.indent ?? 0) > f.over;
      const short =
        wordCount(part) <= MAX_PART_WORDS && !DESCRIBED.test(part) && kindOf(part, headings.filter(Boolean), type, true) === 'fact';
      const fits = folding(f.said, [...f.parts, part]).length <= LIMITS.statementChars;
      if (under && short && (fits || !f.held)) {
        if (!fits) {
          unfold();
          folded = { ...f, start: b.start, parts: [] };
        }
        folded!.parts.push(part);
        folded!.end = b.end;
        folded!.held?.push(b);
        return;
      }
      if (under && f.held) release();
      else unfold();
    }
    const indent = b.indent ?? 0;
    // A task, an example, a bare code span or a bare link (an index of other files) says nothing by itself.
    if (/^\[[ xX]\]\s|^`[^`]*`$|^\[[^\]]+\]\([^)]*\)$/.test(raw) || headings.some((h) => h && EXAMPLES_HEADING.test(h))) return;
    const { label, body } = labelled(raw);
    const clean = plain(body);
    // Under "DO NOT:" an item names what is forbidden, however short: its statement says so, in the file's words ("DO NOT: Commit secrets").
    const context = [...leads].reverse().find((l) => l.indent < indent)?.name ?? paraLead ?? headings.filter(Boolean).at(-1);
    const forbidden = clean ? underHeading(plain(raw), context) : '';
    if (forbidden !== plain(raw) && wordCount(forbidden) >= MIN_WORDS) {
      push('rule', forbidden, subjectOf(label, indent), b.start, b.end, raw);
      return;
    }
    if (wordCount(plain(raw)) < MIN_WORDS || !clean) {
      // A short labelled item naming what the project is built with ("**Language:** TypeScript") is the stack.
      if (label && clean && namesTechnology(clean)) push('fact', plain(raw), subjectOf(label, indent), b.start, b.end, raw);
      return;
    }
    const subject = subjectOf(label, indent);
    // An item too long to be one statement holds several: each of its sentences is one.
    if (plain(raw).length > LIMITS.statementChars) {
      for (const x of sentences(b)) {
        const said = plain(x.text);
        if (wordCount(said) >= MIN_WORDS) push(kindOf(said, headings.filter(Boolean), type, true)!, said, subject, x.start, x.end, x.text);
      }
      return;
    }
    const read = commandDoes(raw, clean) ? 'fact' : kindOf(clean, headings.filter(Boolean), type, true)!;
    const kind = (label && saysAlwaysOrNever(label)) || (read === 'fact' && ruleByHeading(raw, clean, headings, type)) ? 'rule' : read;
    push(kind, plain(raw), subject, b.start, b.end, raw);
  }
  const flushPara = (): void => {
    if (!para) return;
    const b = para;
    para = undefined;
    unfold();
    const all = sentences(b);
    paraLead = all.length && /[:：]\s*$/.test(all.at(-1)!.text) ? plain(all.at(-1)!.text) : undefined;
    for (const [i, s] of all.entries()) {
      const clean = plain(s.text);
      if (wordCount(clean) < MIN_WORDS) continue;
      const kind =
        kindOf(clean, headings.filter(Boolean), type, false) ??
        (conventionSaid(clean, headings)
          ? 'rule'
          : isStackLine(clean) || describesProject(clean) || foundWhereKept(clean, true) || codeDoes(clean)
            ? 'fact'
            : undefined);
      const leads = i === all.length - 1 && /[:：]\s*$/.test(clean);
      if (kind && leads && kind !== 'fact') folded = { kind, said: clean, subject: subjectOf(), start: s.start, end: s.end, parts: [] };
      else if (kind) push(kind, clean, subjectOf(), s.start, s.end, s.text);
      // "**GATE A:** Diagnosis note exists and lists:" says what only with its short items: held as a list item's lead is.
      else if (leads) folded = { said: clean, subject: subjectOf(), start: s.start, end: s.end, parts: [], over: -1, held: [] };
    }
  };
  const flush = (): void => {
    flushItem();
    flushPara();
  };
  let i = frontMatterEnd(lines);
  let fence: { mark: string; lang: string; start: number; body: string[] } | undefined;
  let comment = false;
  for (; i < lines.length; i++) {
    const n = i + 1;
    let line = lines[i]!;
    if (fence) {
      if (!line.trim().startsWith(fence.mark)) fence.body.push(line);
      else {
        const under = headings.filter(Boolean).at(-1);
        const commands = commandsFacts(under, fence.lang, fence.body, LIMITS.statementChars);
        const said = commands.length ? commands : layoutFacts(under, fence.body, LIMITS.statementChars);
        // One fact rests on the whole block, fences included; a block that goes on in more, each on its own lines.
        if (said.length === 1) push('fact', said[0]!.said, subjectOf(), fence.start, n, fence.body.join('\n'));
        else
          for (const f of said) {
            const from = fence.start + 1 + f.from;
            push('fact', f.said, subjectOf(), from, fence.start + 1 + f.to, fence.body.slice(f.from, f.to + 1).join('\n'));
          }
        fence = undefined;
      }
      continue;
    }
    const opens = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
    if (opens) {
      flush();
      settle(false);
      unfold();
      fence = { mark: opens[1]!, lang: opens[2]!, start: n, body: [] };
      continue;
    }
    if (comment) {
      if (!line.includes('-->')) continue;
      comment = false;
      line = line.slice(line.indexOf('-->') + 3);
    }
    line = line.replace(/<!--.*?-->/g, '');
    if (line.includes('<!--')) {
      comment = true;
      line = line.slice(0, line.indexOf('<!--'));
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      settle(false);
      unfold();
      leads = [];
      paraLead = undefined;
      const level = heading[1]!.length;
      if (level === 1) title = !begun;
      begun = true;
      headings.length = level;
      headings[level - 1] = headingName(heading[2]!);
      continue;
    }
    if (!line.trim() || /^\s*(?:>|\||@\S+\s*$|[-*_=]{3,}\s*$)/.test(line)) {
      flush();
      if (/^\s*[>|]/.test(line)) settle(false);
      continue;
    }
    begun = true;
    const bullet = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$/.exec(line);
    if (bullet) {
      flush();
      const indent = bullet[1]!.replace(/\t/g, '    ').length;
      settle(lead !== undefined && indent >= (lead.b.indent ?? 0), lead !== undefined && indent > (lead.b.indent ?? 0));
      item = { start: n, end: n, lines: [bullet[2]!], indent };
    } else if (item) {
      item.lines.push(line.trim());
      item.end = n;
    } else if (para) {
      para.lines.push(line);
      para.end = n;
    } else {
      settle(false);
      unfold();
      para = { start: n, end: n, lines: [line] };
    }
  }
  flush();
  settle(false);
  unfold();
  return items;
}

/** The line after the front matter (`---` … `---` at the top: a rule's metadata, not its words), else 0. */
function frontMatterEnd(lines: string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  return close > 0 ? close + 1 : 0;
}

/** A file of VS Code's memory tool that holds one JSON entry ({subject, fact, citations, reason}): one item. */
function copilotEntry(text: string, type: MemoryFileType): MemoryFileItem[] | undefined {
  if (type.label !== 'VS Code memory' || !/^\s*\{/.test(text)) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  const e = o as { subject?: unknown; fact?: unknown };
  if (typeof e?.fact !== 'string' || !e.fact.trim()) return [];
  const fact = plain(e.fact);
  const subject = typeof e.subject === 'string' && e.subject.trim() ? headingName(e.subject) : type.label;
  const lines = text.split(/\r?\n/).length;
  return [{ kind: kindOf(fact, [], type, true)!, statement: boundStatement(fact), subject, startLine: 1, endLine: lines, text: e.fact }];
}
