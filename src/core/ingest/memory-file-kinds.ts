/**
 * The kind of a memory file's item, by its words and headings (no model).
 *
 * In this order: under a heading of lessons (lessons, gotchas, pitfalls, troubleshooting)
 * a lesson, or the rule avoiding one when it instructs; worded as a decision ("we decided", "chosen
 * for", a "Decisions" heading) a decision; in the first person ("I prefer…") or under a
 * "Preferences" heading a preference; imperative or modal (and, in an instructions file, "No …") a
 * rule; anything else a fact (stack, layout, commands). Beside `kindOf`, for a list item: a command
 * listed with what it does is a fact (`commandDoes`), and in an instructions file a fact under a
 * heading of rules, requirements or standards is a rule unless it says what something is
 * (`ruleByHeading`).
 */
import type { KnowledgeKind } from '../model/knowledge.js';
import {
  DECISION_HEADING_OTHER,
  instructsOther,
  LESSON_HEADING_OTHER,
  PREFERENCE_HEADING_OTHER,
  RULES_HEADING_OTHER,
} from './instruction-markers.js';
import { conventionFor, describesProject, isStackLine, namesTechnology, opensWithCommand } from './memory-file-code.js';
import { plain, wordCount } from './memory-file-text.js';
import type { MemoryFileType } from './memory-files.js';

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
/** Verbs whose object is a clause ("ensure countries are Title Case"): a copula after them is the clause's. */
const CLAUSE_VERB = /^(?:ensure|verify|check|confirm|assert|note|remember|require|make)$/;
const NOT_VERB_AFTER = /^(?:is|are|was|were|has|have|had|will|can|could|would|of|and|or|for|in|on|to)$/i;

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
  // Under pitfalls, an instruction ("Never assume permissions are granted") is the rule that avoids one; the rest tell what went wrong.
  if (under(LESSON_HEADING, LESSON_HEADING_OTHER)) return imperative(body) ? 'rule' : 'lesson';
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

/** What a listed command does ("`pnpm run dev` - Start dev server") is a fact; words that bind or choose keep it a rule ("`npm install` - use pnpm instead"). */
const CHOOSES = /^(?:use|prefer|avoid|keep|stick|only|instead|replace|switch)\b/i;
export const commandDoes = (raw: string, body: string): boolean =>
  opensWithCommand(raw) && !MODAL.test(body) && !instructsOther(body) && !CHOOSES.test(body);

/** Headings that set out what must be done: "Coding Standards", "Performance Requirements", "Mobile-First Development (CRITICAL)". */
const RULES_HEADING =
  /\b(?:rules?|requirements?|standards?|guidelines?|principles?|constraints?|conventions?|best practices|guardrails?|polic(?:y|ies)|mandatory|required|critical|invariants?)\b/i;
const SHORT_WORDS = 6;
/**
 * An instructions file's item under such a heading states what must hold ("Touch targets ≥ 48×48px"),
 * unless it says what something is: an entry ("`const.py` – constants"), the stack ("Swift 6.1+ with
 * modern concurrency"), the project, or what is not there yet.
 */
export function ruleByHeading(raw: string, body: string, headings: string[], type: MemoryFileType): boolean {
  const nearest = headings.filter(Boolean).at(-1) ?? '';
  if (!type.instructions || !(RULES_HEADING.test(nearest) || RULES_HEADING_OTHER.test(nearest))) return false;
  if (/^`[^`]*`|\s[-–—]\s/.test(raw) || NO_STATEMENT.test(body) || isStackLine(body) || describesProject(body)) return false;
  return !(wordCount(body) <= SHORT_WORDS && namesTechnology(body));
}

/** "No scripts are defined yet": a "No …" with its verb states, it does not forbid (as "No `any`" does). */
const NO_STATEMENT = /^no\s[^.;:]*?\b(?:is|are|was|were|has|have|had|exists?|yet)\b/i;
/** An instruction opens the text: an imperative verb ("Run …"), or one after an opening clause ("If X, return Y"). */
export const opensWithInstruction = (s: string): boolean => imperative(plain(s));
