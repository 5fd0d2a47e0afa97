/**
 * Knowledge read from one turn without a model: from the person's own prose, the decisions, rules
 * and preferences stated in imperative and modal forms ("use X", "let's go with X", "never log the
 * token", "from now on ...", and their like in other languages: knowledge-languages.ts), and the
 * stack a request to an agent names ("write it in Python"); from an agent's, lessons (a failure and
 * its cause, or its fix) and durable facts about the project ("the app uses X": knowledge-agent.ts).
 * A rule in the negative is still a rule.
 *
 * Precision over recall: a sentence is read only when one of these forms opens or carries it, and
 * never when it is a question, a doubt, a one-off ("for now"), quoted, fenced or a tool's output
 * (knowledge-text.ts). A task ("add a pause menu") is not a rule: only markers that outlast the
 * task ("always", "never", "from now on") make one. The subject and the choice are entities the
 * extractor recognises, so an item never names a new kind of thing.
 */
import { LIMITS } from '../model/limits.js';
import type { ExtractInput } from './extract-types.js';
import { agentItem, consequence, lessonGoesOn, steps } from './knowledge-agent.js';
import {
  answeredChoices,
  chosenAfter,
  firstEntity,
  personForm,
  pointsBack,
  technologyIn,
  topicChoice,
  type KnowledgeReading,
} from './knowledge-forms.js';
import { choiceOtherCjk, choiceOtherLatin, statesRuleOther } from './knowledge-languages.js';
import { candidateSentences, isHedged, isQuestion, isTemporary, listedItems } from './knowledge-text.js';
import { listedItem } from './memory-file-items.js';
import { opensWithInstruction } from './memory-file-kinds.js';
import { HOST_NOTICE } from './transcripts.js';
import { AGENT_ROLES } from './vocabulary.js';

export type { KnowledgeReading } from './knowledge-forms.js';

const VERBS = 'use|go with|switch to|stick with|keep using|continue using|move to|migrate to|adopt|rely on';
/** A choice, imperative or stated: "use X", "let's go with X", "we use X", "we're switching to X". */
const CHOICE = new RegExp(
  `(?:^(?:please\\s+|only\\s+|so\\s+|ok(?:ay)?,?\\s+|then\\s+|and\\s+)?(?:${VERBS})` +
    `|\\b(?:let'?s|lets|we(?:'ll| will| should| shall)?|i'?ve|we'?ve|i)\\s+(?:(?:decided|chosen|agreed)\\s+(?:to\\s+)?|(?:always|now|only)\\s+)?(?:${VERBS})` +
    `|\\b(?:we're|we are|i'm|i am)\\s+(?:now\\s+)?(?:using|going with|switching to|sticking with|moving to)` +
    `|\\b(?:we|i)\\s+(?:have\\s+)?decided on)\\s+`,
  'i',
);
/** A change of choice: "switch from Y to X", "replace Y with X". */
const CHANGE =
  /\b(?:(?:switch|switching|move|moving|migrate|migrating)\s+from\s+(.{1,60}?)\s+to\s+|replac(?:e|ing)\s+(.{1,60}?)\s+with\s+)(.+)$/i;
/** A change of what something runs on, named by its role: "switch the database (from Postgres) to SQLite"; the choice is a technology. */
const SWITCH_TO =
  /\b(?:switch|switching|switched|migrate|migrating|migrated)\s+(?:the|our|this)\s+([a-z][a-z -]{1,30}?)\s+(?:from\s+.{1,40}?\s+)?(?:over\s+)?to\s+(.+)$/i;
/** Words after "always", "never", "don't" that describe or console rather than instruct ("never been", "don't worry"). */
const NOT_INSTRUCTED =
  'cool|awesome|amazing|special|wonderful|lovely|beautiful|exciting|interesting|inspiring|rewarding|hard|tough|best|worth|welcome|ever|saw|was|were|did|said|up|down|good|great|happy|glad|nice|ready|on|in|at|with|for|to|my|your|our|this|that|it|be|been|here|there|so|a|an|the|fun|hesitate|worry|mind|know|get|gets|feel|felt|forget|seem|seems|fail|thought|knew|had|has|have|loved|wanted|one';
/**
 * What outlasts the task, said as an instruction: "always X", "never X", "don't X", "do NOT X",
 * "make sure to X" opening a sentence or a clause; "we never X", "you should always X", "you must
 * X"; "from now on", "as a rule", "X is deprecated". "It always brings laughs", "you must have been
 * thrilled" and "I'm always on the lookout" describe, they do not instruct.
 */
const RULE = new RegExp(
  [
    `(?:^|[,;:]\\s+|\\band\\s+|\\bso\\s+)(?:please\\s+)?(?:always|never|don't|dont|do not|make sure (?:to|that|you)|be sure to)(?:\\s+ever)?\\s+(?!(?:${NOT_INSTRUCTED})\\b)[a-z]+\\b(?<!ing|ed)`,
    `\\b(?:we|you)\\s+(?:should\\s+|must\\s+|will\\s+|'ll\\s+|shall\\s+)?(?:always|never|no longer)\\s+(?!(?:${NOT_INSTRUCTED})\\b)[a-z]+\\b(?<!ing|ed)`,
    `\\b(?:we|you)\\s+(?:must|should|shall)(?:\\s+not|n't)\\s+(?!(?:${NOT_INSTRUCTED})\\b)[a-z]+`,
    // A standing duty to keep something current: "Keep this spec updated as decisions are made".
    `(?:^|[,;:]\\s+)(?:please\\s+)?(?:always\\s+)?keep\\s+[^.,;]{1,60}?\\s+(?:updated|up[ -]to[ -]date|in sync)\\b`,
    `\\b(?:we|you|everything|all \\w+|each \\w+|every \\w+)\\s+must\\s+(?!(?:${NOT_INSTRUCTED}|feel|know|think|love|like|miss)\\b)[a-z]+`,
    `\\b(?:is|are|should be|must be)\\s+(?:always|never)\\s+(?!(?:${NOT_INSTRUCTED})\\b)[a-z]+`,
    `\\b(?:should|must|shall)\\s+(?:always|never)\\s+be\\s+(?!(?:${NOT_INSTRUCTED})\\b)[a-z]+`,
    // Asked to be written where the agent's standing instructions live: "update CLAUDE.md to say that …".
    `\\b(?:add|update|put|write|note|record|document)\\b[^.]{0,40}?(?:\\b(?:claude|agents|gemini)\\.md|copilot-instructions|\\.cursorrules|\\.clinerules|\\.windsurfrules|\\brules file)\\b[^.]{0,30}?\\b(?:that|to (?:say|indicate|state|note|mention))\\s+\\S`,
    `\\b(?:from now on|going forward|as a rule|is deprecated|are deprecated|is no longer (?:used|supported|needed))\\b`,
    // A rule labelled as one: "Rule: …", "#RULE: …", "Golden rule: …".
    `^#?\\s*(?:[a-z]+\\s+)?rule\\s*:\\s*\\S`,
    // "It is very important that you …": an instruction weighed as one (not "important to note").
    `\\bit(?:'s| is)\\s+(?:very\\s+|really\\s+|extremely\\s+)?(?:important|essential|crucial|critical|vital)\\s+(?:that\\s+(?:you|we)\\s+|to\\s+(?!note|remember|understand|mention)\\b)[a-z]+`,
    // What the person does not want done: "I do not want you to put all the helpers in config.ts".
    `\\bi\\s+(?:don'?t|do not)\\s+want\\s+you\\s+to\\s+[a-z]+`,
    // A standing reminder, and a requirement named as one: "remember to …", "tests are non-negotiable".
    `(?:^|[,;:]\\s+)(?:please\\s+)?(?:always\\s+)?remember\\s+to\\s+[a-z]+`,
    `^(?!(?:it|this|that|which|there)\\b)[\\w\\s'-]{2,60}?\\s+(?:is|are)\\s+(?:non-negotiable|mandatory|required)\\b(?!\\s+(?:for|by|to|in|when|if)\\b)`,
  ].join('|'),
  'i',
);
/** Someone described before the marker ("he never gives up", "they always cheer me on"): a habit, not an instruction. */
const DESCRIBED = /\b(?:i|i'm|i'll|i've|i'd|me|my|he|she|they|it|it's|he's|she's|they're|they'll|us|his|her|their|its)\b/i;
/** Advice offered ("you can use X"), not a rule set. */
const OFFERED = /^(?:\w+,\s*)?you can(?!'t|not)\b/i;
const RULE_SHOUTED = /\b(?:MUST|NEVER|ALWAYS|DO NOT|DON'T)\b|\b[Ll]et'?s NOT\b/;
/** A preference: "I prefer X", "prefer X over Y", "I'd rather X". */
const PREFERENCE =
  /\b(?:i|we)\s+(?:really\s+)?(?:prefer|'d rather|would rather)\b|^prefer\s+|\bmy preference is\b|\bprefiro\b|好きです|更喜欢|我喜欢用/i;

/**
 * A request to an agent to build something with a named means ("create the API in Node.js with
 * Express"): the stack is chosen. Only a technology the extractor knows counts as the means.
 */
const BUILT_WITH =
  /^(?:please\s+|now\s+|ok(?:ay)?,?\s+)?(?:write|create|build|make|implement|develop|code|set up|scaffold|generate|rewrite|port)\b.{0,160}?\b(?:in|using|with|on top of|via)\s+/i;
/** Where the work runs, asked for: "host on vercel", "deploy it to Fly.io" (the technology right after). */
const HOSTED = /^(?:please\s+|ok(?:ay)?,?\s+)?(?:let'?s\s+)?(?:host|deploy)\s+(?:[\w-]+\s+){0,3}?(?:on|to|with|via)\s+/i;

/** What a choice replaces: "X instead of Y", "X rather than Y", "X over Y". */
const REPLACED = /\b(?:instead of|rather than|in place of|over)\s+(.{1,80}?)(?=[,.;:)]|\s+(?:for|in|when|because|since)\b|$)/i;

/** A sentence opening with the case an instruction is for: "If …,", "When …,", "Unless …," (not a wish: "if you want, …"). */
const CONDITION = /^(?:if|when|whenever|unless)\s(?!you\s+(?:want|like|prefer|wish)\b)/i;
/** A choice in the negative is a rule ("we never use Java"), not a decision. */
const NEGATIVE = /\b(?:not|never|no longer|don't|dont|mustn't|won't|stop)\b/i;

/**
 * Turns a tool sends in the person's name, whose words are someone else's:
 * - the slot a command's prompt file leaves for what the person typed: the "## User Input" heading
 *   spec-kit's commands open with, or an unexpanded "$ARGUMENTS" (the rest is the command author's);
 * - Claude Code approving a plan made in plan mode ("Implement the following plan:", then the agent's
 *   plan; a SpecStory export keeps it as the person's turn);
 * - Cursor carrying out a plan ("Implement the plan as specified, it is attached for your reference.
 *   Do NOT edit the plan file itself. …", under the plan's title);
 * - a host's notice of a finished task (HOST_NOTICE), where its parser kept it as a turn.
 */
const SENT_FOR_THE_PERSON = [
  /^#{1,3}\s*User Input\s*$|\$ARGUMENTS\b/m,
  /^Implement the following plan:\s*\n/,
  /^(?:[^\n]*\n+)?Implement the plan as specified, it is attached for your reference\./,
  HOST_NOTICE,
];

/** Files attached by mention at a sentence's start: "@public/venue-web-design.html ", "@src/app.ts @README.md ". */
const ATTACHED = /^(?:@[\w./-]+\s+)+(?=\p{L})/u;

/** A sentence of an aside in brackets, its bracket left on it: "(Note that issues fall into 4 projects …" reads as "Note that …". */
function unbracketed(s: string): string {
  const open = (s.match(/\(/g) ?? []).length;
  const close = (s.match(/\)/g) ?? []).length;
  if (open > close && s.startsWith('(')) return s.slice(1).trim();
  if (close > open && s.endsWith(')')) return s.slice(0, -1).trim();
  return s;
}

/** A sentence giving the reason for the one before: "This ensures …", "That way …", "Otherwise …". */
const REASON =
  /^(?:this|that)\s+(?:ensures|guarantees|keeps|prevents|avoids|makes sure|way)\b|^(?:that way|otherwise|so that|because|since)\b[, ]/i;

/** Items stated in one turn, in the order they were said. */
export function readKnowledge(input: ExtractInput): KnowledgeReading[] {
  const text = typeof input?.text === 'string' ? input.text : '';
  if (!text.trim()) return [];
  const role = (input.role ?? '').toLowerCase();
  const agent = AGENT_ROLES.has(role) || AGENT_ROLES.has((input.speaker ?? '').trim().toLowerCase());
  // A person's turn in a conversation with an agent: what it asks of the agent specifies the work.
  const toAgent = !agent && (role === 'user' || role === 'human');
  // Words a tool sent in the person's name (a command's prompt file, an approved plan, a notice): someone else's.
  if (toAgent && SENT_FOR_THE_PERSON.some((re) => re.test(text))) return [];
  const out: KnowledgeReading[] = [];
  // What the person chose by answering the agent's questions is decided, whatever the sentences around it say.
  if (toAgent)
    for (const a of answeredChoices(text).slice(0, LIMITS.knowledgeItemsPerTurn))
      if (a.statement.length <= LIMITS.statementChars)
        out.push({
          kind: 'decision',
          statement: a.statement,
          subject: firstEntity(a.answer) ?? nameLike(a.answer),
          object: firstEntity(a.answer),
        });
  if (out.length > 0) return out;
  const all = candidateSentences(text)
    // A file attached by mention opening the turn ("@public/venue.html I dont like …") is context, not
    // words; a bracket an aside left on its sentence goes too.
    .map((c) =>
      unbracketed(
        c
          .replace(/[\u2018\u2019]/g, "'")
          .trim()
          .replace(ATTACHED, ''),
      ),
    )
    .flatMap((c) => (agent ? steps(c) : toAgent ? runOn(c) : [c]))
    .flatMap(clauses);
  // A turn that sets out rules as a list (a rules file pasted to the agent) is read as that file would be.
  const listed = toAgent ? listedItems(text) : undefined;
  // The line naming such a list ("Architecture decisions (locked, do not change):") says nothing alone.
  const naming = new Set(listed?.flatMap((l) => (l.under ? [l.under.replace(/\*\*|__/g, '')] : [])));
  // The last sentence an item was read from (joined ones included).
  let said = -1;
  for (let i = 0; i < all.length && out.length < LIMITS.knowledgeItemsPerTurn; i++) {
    const s = all[i]!;
    if (!readable(s) || naming.has(s)) continue;
    const before = all[i - 1];
    const item = agent ? (agentItem(s) ?? ledTo(all, i, said)) : personItem(s, toAgent);
    if (!item) continue;
    // "Do not hardcode it." says what "it" is in the sentence before, when that one was no item itself.
    if (!agent && before && pointsBack(s) && said < i - 1) {
      const joined = `${before} ${s}`;
      if (joined.length <= LIMITS.knowledgeSentenceChars && readable(before)) item.statement = joined;
    }
    // A person's reason goes with the instruction: "Do NOT use a global transaction. This ensures that if one row fails, …".
    const reason = all[i + 1];
    if (!agent && item.kind !== 'lesson' && reason && REASON.test(reason) && readable(reason)) {
      const joined = `${item.statement} ${reason}`;
      if (joined.length <= LIMITS.knowledgeSentenceChars) {
        item.statement = joined;
        i++;
      }
    }
    // A lesson goes on in the next sentence when that one names the failure, its cause or its fix.
    const next = all[i + 1];
    if (item.kind === 'lesson' && next && readable(next) && lessonGoesOn(next)) {
      const joined = `${s} ${next}`;
      if (joined.length <= LIMITS.knowledgeSentenceChars) {
        item.statement = joined;
        i++;
      }
    }
    out.push(item);
    said = i;
  }
  for (const { text: raw, under } of listed?.slice(0, LIMITS.memoryFileItems) ?? []) {
    // An item ending in a colon introduces the list under it ("Auto completion must:"): it says nothing alone.
    const item = isQuestion(raw) || /[:：]$/.test(raw) ? undefined : listedItem(raw, under);
    if (!item || out.some((o) => o.statement.includes(item.statement))) continue;
    // The whole item says more than a sentence of it read before ("No extra features." of "Minimal scope: … No extra features.").
    const part = out.findIndex((o) => item.statement.includes(o.statement));
    const read = { ...item, subject: firstEntity(item.statement) };
    if (part >= 0) out[part] = read;
    else out.push(read);
  }
  return out;
}

/** Where a sentence turns to something else: ", but …", "; …". */
const TURNS = /,\s*but\s+|;\s+/i;

/**
 * A sentence too long to read as one, split at its commas and semicolons: people chain a request and
 * the rules for it in one unpunctuated run ("add tests, they should live in test/, one file each").
 * A run that opens with a hedge ("if …") stays whole, and so unread; one whose hedge comes after it
 * turns ("We don't need a mapping table for Customers …, but an overview would be nice") is read up to there.
 */
function clauses(s: string): string[] {
  // "I would like" is wanting, said politely, not a guess (as personItem reads it).
  const hedged = (t: string): boolean => isHedged(t.replace(POLITE_WANT, 'I want'));
  if (hedged(s)) {
    const turn = s.search(TURNS);
    const before = turn > 0 ? s.slice(0, turn).trim() : '';
    return before.split(/\s+/).length >= 3 && !hedged(before) ? [before] : [s];
  }
  if (s.replace(/\([^()]*\)/g, '').length <= LIMITS.knowledgeSentenceChars) return [s];
  return s
    .split(/(?<=[,;])\s+/)
    .map((c) => c.replace(/[,;]$/, '').trim())
    .filter((c) => c.split(/\s+/).length >= 3);
}

/** A request run on, unpunctuated, after what it is about: "I want to use langgraph can you show me how …". */
const RUNS_ON = /(?<=[\p{L}\p{N}`'")])\s+(?=(?:can|could)\s+(?:you|u)\b)/iu;
/** Words before a run-on request that make a statement of their own ("After that can you …" has none). */
const RUN_ON_WORDS = 3;

/** A sentence with a request run on after it, as two: what it says, and the request (a question, so unread). */
function runOn(s: string): string[] {
  const at = s.search(RUNS_ON);
  if (at < 0 || s.slice(0, at).split(/\s+/).length < RUN_ON_WORDS) return [s];
  return [s.slice(0, at).trim(), s.slice(at).trim()];
}

/** What an agent's sentence says the one before it led to, when that one was no item itself (knowledge-agent.ts). */
function ledTo(all: readonly string[], i: number, said: number): KnowledgeReading | undefined {
  const before = all[i - 1];
  return before !== undefined && said < i - 1 && readable(before) ? consequence(before, all[i]!) : undefined;
}

/** A sentence that can state something: within bounds, more than a word, not a question. */
function readable(s: string): boolean {
  // An aside in brackets is not counted: the sentence around it is what is read.
  if (s.length > LIMITS.statementChars || s.replace(/\([^()]*\)/g, '').length > LIMITS.knowledgeSentenceChars) return false;
  if (s.split(/\s+/).length < 2 && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(s)) return false;
  return !isQuestion(s);
}

/** Wanting said politely: "I would like inline code comments", "I'd prefer …". */
const POLITE_WANT = /\bi(?: would|'d)(?: also| really| still)? (?:like|prefer|love)\b/gi;

/** A console's lines pasted into a turn, each opened by its source ("DatabaseContext.tsx:62 ✅ … dbCache.ts:52 ⚠️ …"): a tool's words. */
const LOGGED = /\b[\w-]+\.[a-z]{1,4}:\d+\b.*\b[\w-]+\.[a-z]{1,4}:\d+\b/;

/** A decision, a preference or a rule stated by the person, or nothing. */
function personItem(s: string, toAgent: boolean): KnowledgeReading | undefined {
  // An aside in brackets ("(e.g., if a player discards ...)") does not change the mood of the sentence around it,
  // and "I would like" is wanting, said politely, not a guess.
  const main = s.replace(/\([^()]*\)/g, ' ').replace(POLITE_WANT, 'I want');
  // "If the API is down, return an empty list": a standing instruction for a case, not a hypothetical.
  const forCase = toAgent && CONDITION.test(main) && !isHedged(main.replace(CONDITION, '')) && opensWithInstruction(main);
  // Between people a case opened with "when" is advice ("When motivating others, it's important to …").
  if (isTemporary(main) || (!forCase && isHedged(main)) || (!toAgent && CONDITION.test(main)) || LOGGED.test(s)) return undefined;
  if (forCase) return { kind: 'rule', statement: s, subject: firstEntity(s) };
  if (PREFERENCE.test(s)) {
    const choice = chosenAfter(s, PREFERENCE);
    if (choice) return { kind: 'preference', statement: s, subject: replaced(s) ?? choice, object: choice };
  }
  const change = s.match(CHANGE);
  if (change && !NEGATIVE.test(s.slice(0, change.index))) {
    const choice = firstEntity(change[3]!);
    const from = firstEntity(change[1] ?? change[2]!);
    if (choice && from) return { kind: 'decision', statement: s, subject: from, object: choice };
  }
  const switched = switchedTo(s);
  if (switched) return { kind: 'decision', statement: s, subject: switched.role, object: switched.choice };
  const choiceAt = s.match(CHOICE);
  if (choiceAt && !NEGATIVE.test(s.slice(0, (choiceAt.index ?? 0) + choiceAt[0].length))) {
    const choice = chosenAfter(s, CHOICE);
    if (choice) return { kind: 'decision', statement: s, subject: replaced(s) ?? choice, object: choice };
  }
  const cjk = choiceOtherCjk(s);
  if (cjk) {
    const choice = firstEntity(cjk.choice) ?? nameLike(cjk.choice);
    if (choice) return { kind: 'decision', statement: s, subject: topic(cjk.topic) ?? choice, object: choice };
  }
  const latin = choiceOtherLatin(s);
  if (latin !== undefined) {
    const choice = firstEntity(latin);
    if (choice) return { kind: 'decision', statement: s, subject: choice, object: choice };
  }
  if (RULE_SHOUTED.test(s) || statesRuleOther(s) || instructed(s, toAgent)) {
    return { kind: 'rule', statement: s, subject: firstEntity(s) };
  }
  const set = toAgent ? topicChoice(s) : undefined;
  if (set) return { kind: 'decision', statement: s, subject: set.topic, object: set.choice };
  const stack = toAgent ? builtWith(s) : undefined;
  if (stack) return { kind: 'decision', statement: s, subject: stack, object: stack };
  const form = toAgent ? personForm(s) : undefined;
  return form && { kind: form.kind, statement: s, subject: form.subject ?? firstEntity(s) };
}

/** The role and the technology of "switch the database to SQLite", when the sentence is not a prohibition. */
function switchedTo(s: string): { role: string; choice: string } | undefined {
  const m = s.match(SWITCH_TO);
  if (!m || NEGATIVE.test(s.slice(0, m.index))) return undefined;
  const choice = technologyIn(m[2]!);
  return choice ? { role: m[1]!.trim(), choice } : undefined;
}

/** The technology a request to build something names as its means ("write the game in Python using Pygame"), or to host it on. */
function builtWith(s: string): string | undefined {
  const m = s.match(BUILT_WITH);
  if (m && m.index !== undefined) return technologyIn(s.slice(m.index + m[0].length));
  // Where it is hosted names its technology at once ("host on vercel"), not further on ("… a website (not ngrok)").
  const hosted = HOSTED.exec(s);
  return hosted ? technologyIn(s.slice(hosted[0].length).split(/\s+/).slice(0, 2).join(' ')) : undefined;
}

/**
 * An instruction that outlasts the task, said in lower case: not exclaimed (encouragement), not about someone
 * described; "from now on" said to an agent holds even after "I'll …" ("I'll manage X, you can stop Y from now on").
 */
function instructed(s: string, toAgent: boolean): boolean {
  const m = s.match(RULE);
  if (m === null || /!\s*$/.test(s) || OFFERED.test(s)) return false;
  return !DESCRIBED.test(s.slice(0, m.index)) || (toAgent && /^(?:from now on|going forward)$/i.test(m[0].trim()));
}

/** What a choice replaces, when the sentence says ("X instead of Y"): the subject both are choices for. */
function replaced(s: string): string | undefined {
  const m = s.match(REPLACED);
  return m ? firstEntity(m[1]!) : undefined;
}

/** The topic a Japanese or Chinese sentence opens with ("データベースは"): a short run of letters. */
function topic(t: string | undefined): string | undefined {
  // The words after an opening aside ("やっぱり、データベースは": after all, the database).
  const v = t
    ?.split(/[、，,]/)
    .pop()
    ?.trim();
  // A noun, not a clause: a clause carries kana endings ("使用する技術", the technology used).
  return v && v.length <= 12 && /^[\p{L}\p{N} ]+$/u.test(v) && !/\p{Script=Hiragana}/u.test(v) ? v : undefined;
}

/** A name written in Latin letters inside CJK text ("Better Auth", "Cloudflare R2"): the choice as written. */
function nameLike(t: string): string | undefined {
  const m = t.match(/[A-Za-z][\w.+#-]*(?:\s[A-Z0-9][\w.+#-]*){0,3}\s*$/);
  return m ? m[0].trim() : undefined;
}
