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
 * - a paragraph's stack line ("Electron + React 19 + Redux-Saga") or sentence saying what the project
 *   is ("X is a Python library for …") is a fact, and so are a shell block under a heading of
 *   commands, naming them, and a block drawing the layout (memory-file-code.ts);
 * - other code, block quotes, tables, HTML comments, front matter and `@import` lines are never
 *   read: a statement quoted or in code is not the person's.
 *
 * The kind, in this order: under a heading of lessons (lessons, gotchas, pitfalls, troubleshooting)
 * a lesson; worded as a decision ("we decided", "chosen for", a "Decisions" heading) a decision; in
 * the first person ("I prefer…") or under a "Preferences" heading a preference; imperative or modal
 * (and, in an instructions file, "No …") a rule; anything else a fact (stack, layout, commands).
 * The statement is the item's own words (emphasis and link targets dropped), cut at a sentence
 * within LIMITS.statementChars; the subject is the item's label ("**Testing**: …"), else its
 * nearest heading below the title (a generic one such as "General" does not count), else the file.
 */
import { invalid } from '../model/errors.js';
import type { KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import {
  DECISION_HEADING_OTHER,
  instructsOther,
  LESSON_HEADING_OTHER,
  PREFERENCE_HEADING_OTHER,
  underHeading,
} from './instruction-markers.js';
import {
  codeDoes,
  commandsFact,
  conventionFor,
  conventionSaid,
  describesProject,
  isStackLine,
  layoutFact,
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

const LESSON_HEADING = /lesson|learn(?:ed|ings)\b|gotcha|pitfall|mistake|troubleshoot|known (?:issue|problem)/i;
const DECISION_HEADING = /decision/i;
const PREFERENCE_HEADING = /preference/i;
const DECISION =
  /\b(?:we|i)\s+(?:have\s+)?(?:decided|chose|picked|went with|settled on|opted for|switched to|migrated to)\b|\bdecided to\b|\b(?:was|were)\s+chosen\b|\bchosen (?:for|because|over)\b|\bdecision\b/i;
const PREFERENCE = /^(?:i|we)\s+(?:prefer|like|love|want|'d rather|would rather)\b/i;
const MODAL =
  /\b(?:must|should|shall|never|always|do not|don't|avoid|make sure|needs? to|ha(?:ve|s) to|required to|mandatory|forbidden|prohibited|not allowed|(?:is|are) not (?:needed|necessary|required))\b|\b(?:needs?|requires?)\s*:/i;
/** A modal inside a relative clause describes someone ("developers who need to test"), it instructs nobody. */
const RELATIVE_MODAL = /\b(?:who|which|that)\s+(?:must|should|needs? to|ha(?:ve|s) to)\s+\w+/gi;
const VERBS = new Set(
  (
    'use avoid prefer keep write add run follow make ensure put pass define update remove replace check test do never always only ' +
    'commit pin audit format organize organise access raise log ask create call store read return handle import export name place ' +
    'document include implement validate stop state decide locate preserve reject apply build install consider split limit wrap ' +
    'mock favor favour exclude set configure require treat reuse respect maintain review verify look remember leave let start stay ' +
    'try think focus group sort separate move extract declare annotate comment delete clean lint bump tag release deploy push merge ' +
    'rebase squash open close explain describe mention list show print emit throw catch guard cache retry default refer consult ' +
    'iterate fix prefix suffix wait reply respond answer communicate target support enable disable ignore skip drop ' +
    'break refactor rename structure generate load save send sanitize escape encode decode parse serialize append prepend insert ' +
    'choose pick link cite reference give convert provide note get see tell mark prioritize prioritise minimize minimise ' +
    'maximize maximise reduce protect secure measure optimize optimise simplify clarify adhere stick conform match align ' +
    'mirror copy flag warn notify inform confirm request invoke trigger schedule batch type assert cover summarize ' +
    'summarise translate localize localise indent capitalize quote normalize normalise trim truncate round filter map ' +
    'combine join nest flatten inline upgrade downgrade migrate uninstall lock publish ship host serve expose hide restrict ' +
    'allow deny block permit grant revoke rotate encrypt hash sign authenticate authorize authorise persist fetch query ' +
    'speak talk address double-check recheck rerun re-run strip redact scrub mask purge swap investigate understand'
  ).split(' '),
);
const SUBORDINATE = /^(?:for|when|if|in|before|after|once|unless|while|on|during|where|whenever)$/;
/** A verb after the first two words: they were the subject ("Test command runs with …"), not an instruction. */
const SUBJECT_THEN =
  /^(?:is|are|was|were|live|lives|go|goes|runs|uses|has|needs|requires|contains|works|does|takes|returns|holds|calls|reads|writes|handles|loads|depends|supports|provides|stores|shows|tracks|lets)$/i;
/** A lead-in pointing to what follows it: "ALWAYS follow this approach:", "Use these:". */
const POINTS_AHEAD = /\b(?:this|these|the following|as follows|below)(?:\s+[\w-]+)?\s*[:：]\s*$/i;
/** Verbs whose object is a clause ("ensure countries are Title Case"): a copula after them is the clause's. */
const CLAUSE_VERB = /^(?:ensure|verify|check|confirm|assert|note|remember|require|make)$/;
const NOT_VERB_AFTER = /^(?:is|are|was|were|has|have|had|will|can|could|would|of|and|or|for|in|on|to)$/i;
/** Headings whose lists show, not state: their items are examples. */
const EXAMPLES_HEADING = /^(?:examples?|samples?|usage examples?)$/i;
const MIN_WORDS = 3;
/** Words an item under an instruction's "…:" may have and still complete it ("non-Latin scripts"), not say more. */
const MAX_PART_WORDS = 6;

function imperative(body: string): boolean {
  // A code span opening it is a name ("`make build` for production builds"), not a verb.
  if (/^`[^`]*`/.test(body)) return false;
  const [first = '', second = '', third = ''] = body
    .replace(/^[`'"]+/, '')
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}'`]/gu, ''));
  const f = first.toLowerCase();
  if (f === "don't" || f === 'dont') return true;
  // "Target users are …", "Test files live in …": the verb-like word opens a noun phrase, the subject.
  if (VERBS.has(f) && !NOT_VERB_AFTER.test(second) && (CLAUSE_VERB.test(f) || !SUBJECT_THEN.test(third))) return true;
  // "Add or update GoogleTest cases …": two instructions joined.
  if (VERBS.has(f) && /^(?:or|and)$/i.test(second) && VERBS.has(third.toLowerCase())) return true;
  // "For breaking changes, append …", "When in doubt, ask …": the instruction after the opening clause.
  const comma = body.indexOf(',');
  return SUBORDINATE.test(f) && comma > 0 && imperative(body.slice(comma + 1).trim());
}

/** The kind of an item by its words and headings (see above); undefined: a paragraph's prose, not an item. */
export function kindOf(body: string, headings: string[], type: MemoryFileType, bullet: boolean): KnowledgeKind | undefined {
  const under = (re: RegExp, other: RegExp): boolean => headings.some((h) => re.test(h) || other.test(h));
  if (under(LESSON_HEADING, LESSON_HEADING_OTHER)) return 'lesson';
  if (DECISION.test(body) || under(DECISION_HEADING, DECISION_HEADING_OTHER)) return 'decision';
  if (PREFERENCE.test(body) || under(PREFERENCE_HEADING, PREFERENCE_HEADING_OTHER)) return 'preference';
  if (
    imperative(body) ||
    MODAL.test(body.replace(RELATIVE_MODAL, '')) ||
    instructsOther(body) ||
    (type.instructions && (/^no\s/i.test(body) ? !NO_STATEMENT.test(body) : /^[❌🚫⛔]/u.test(body)))
  )
    return 'rule';
  if (bullet && conventionFor(body, headings)) return 'rule';
  return bullet ? 'fact' : undefined;
}

/** "No scripts are defined yet": a "No …" with its verb states, it does not forbid (as "No `any`" does). */
const NO_STATEMENT = /^no\s[^.;:]*?\b(?:is|are|was|were|has|have|had|exists?|yet)\b/i;
/** An instruction opens the text: an imperative verb ("Run …"), or one after an opening clause ("If X, return Y"). */
export const opensWithInstruction = (s: string): boolean => imperative(plain(s));

/** A list item of a person's turn that sets out rules ("Rules:", then items), read as an instructions file's item, or nothing. */
export function listedItem(raw: string): { kind: KnowledgeKind; statement: string } | undefined {
  const body = plain(labelled(raw).body);
  const kind = wordCount(body) >= MIN_WORDS ? kindOf(body, [], { label: 'chat', instructions: true }, false) : undefined;
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
    [...leads].reverse().find((l) => l.indent < indent && namesSubject(l.name))?.name ||
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
  const settle = (subItem: boolean): void => {
    const open = lead;
    lead = undefined;
    if (open && !subItem) emitItem(open.b, open.raw);
  };
  // A paragraph's instruction ending in ":" ("All shared logic must assume:") is completed by the short items under it.
  let folded: { kind: KnowledgeKind; said: string; subject: string; start: number; end: number; parts: string[] } | undefined;
  const unfold = (): void => {
    const f = folded;
    folded = undefined;
    if (!f) return;
    // "ALWAYS follow this approach:" says nothing without what it points to.
    if (!f.parts.length && POINTS_AHEAD.test(f.said)) return;
    const said = f.parts.length ? `${f.said.replace(/[:：]\s*$/, '')}: ${f.parts.join('; ')}` : f.said;
    push(f.kind, said, f.subject, f.start, f.end, said);
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
      const part = plain(raw);
      if (wordCount(part) <= MAX_PART_WORDS && kindOf(part, headings.filter(Boolean), type, true) === 'fact') {
        folded.parts.push(part);
        folded.end = b.end;
        return;
      }
      unfold();
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
    const kind = label && saysAlwaysOrNever(label) ? 'rule' : kindOf(clean, headings.filter(Boolean), type, true)!;
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
      if (kind && i === all.length - 1 && /[:：]\s*$/.test(clean) && kind !== 'fact')
        folded = { kind, said: clean, subject: subjectOf(), start: s.start, end: s.end, parts: [] };
      else if (kind) push(kind, clean, subjectOf(), s.start, s.end, s.text);
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
        const said = commandsFact(under, fence.lang, fence.body) ?? layoutFact(under, fence.body, LIMITS.statementChars);
        if (said) push('fact', said, subjectOf(), fence.start, n, fence.body.join('\n'));
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
      settle(lead !== undefined && indent >= (lead.b.indent ?? 0));
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
