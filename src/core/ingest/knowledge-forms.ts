/**
 * Forms of knowledge that hold in a conversation with an agent, beside the general ones of
 * knowledge-read.ts. What a person writes to an agent specifies the work ("the handlers should only
 * parse input", "ensure every action can be referenced", "instead of relay, name it Aux"); between
 * two people the same moods are opinion ("everyone should try it"), so these are read only from a
 * turn whose role says it was addressed to an agent. What an agent's own turn teaches is in
 * knowledge-agent.ts.
 */
import type { KnowledgeKind } from '../model/knowledge.js';
import { extract } from './extract.js';
import { wantedOther } from './knowledge-languages.js';
import { opensWithInstruction } from './memory-file-kinds.js';
import { saysWhereKept } from './places.js';

/** Words a sentence ending on "it" or "this" needs before it says enough alone ("run prettier on the README before committing it"). */
const POINTER_WORDS = 8;

/** A short sentence ending on what it points back to ("ensure you follow it", "Do not hardcode it."): it says nothing alone. */
export const pointsBack = (s: string): boolean =>
  /\b(?:it|this|that|them|these|those)\s*[.!]?$/i.test(s) && s.split(/\s+/).length <= POINTER_WORDS;

/** A found form: its kind and, when the form names it, what it is about. */
export interface FormReading {
  kind: KnowledgeKind;
  subject?: string;
}

/** Subjects that describe or guess ("it should work", "your family must be proud", "that should fix it"), not specify. */
const NOT_SPECIFIED_SUBJECT =
  /\b(?:i|i'm|me|my|we|us|our|you|your|he|she|it|it's|its|they|them|their|this|that|there|everyone|everybody|someone|anyone|nobody|which|who|what)\b/i;
/** What follows an expectation or a guess, not a requirement: "should be fine", "must have been", "should work now". */
const EXPECTED =
  /^(?:have|'ve|be (?:fine|ok|okay|good|enough|done|ready|possible|easy|gone|here|there|visible|fixed|resolved|working|noted)|fix|help|do it|do the trick)\b|\bnow\b|\balready\b/i;
/** A requirement with a named subject: "X must be Y", "X should remain in Z", "X needs to be on Z". */
const MODAL =
  /^(.{2,120}?)\s+(?:must|should|shall|needs? to|has to|have to)(?:\s+not|n't)?\s+(?:always\s+|never\s+|only\s+|also\s+)?(.*)$/i;
/**
 * A constraint with a named subject: "The reservations to a specific room cannot overlap", "a room can only be
 * reserved in the future"; not what fails ("the module cannot be found", "the app can't connect"), nor an error
 * message quoted ("\"The requested operation cannot be performed …\" is the message i receive").
 */
const CANNOT =
  /^(?!["'\u201c])(.{2,120}?)\s+(?:cannot|can't|can not|can only|can never)\s+(?!(?:be\s+)?(?:found|find|resolved?|loaded|load|opened|open|read|reached|reach|connect(?:ed)?|start(?:ed)?|access(?:ed)?|imported|import|run|compile[ds]?|parsed|parse)\b)[a-z]/i;
/** Constraints said as an imperative: "ensure ...", "avoid ...", "refrain from ...". */
const CONSTRAINT = /^(?:please\s+)?(?:ensure|avoid|refrain from)\b\s+\S/i;
/**
 * The work itself, which a constraint must name to outlast the task: "ensure modular, clean code"
 * holds for the next task, "ensure smooth movement" is this feature's specification.
 */
const WORK =
  /`|\b(?:code|codebase|files?|folders?|director(?:y|ies)|tests?|commits?|branch(?:es)?|dependenc(?:y|ies)|librar(?:y|ies)|packages?|modules?|functions?|class(?:es)?|methods?|variables?|types?|(?:im|ex)ports?|scripts?|comments?|docs?|documentation|readme|logs?|logging|errors?|exceptions?|config(?:uration)?|builds?|deploy(?:s|ments?)?|api|endpoints?|schemas?|migrations?|formatting|lint(?:ing|er)?|naming|styles?|architecture|secrets?|credentials?|tokens?|keys?|passwords?)\b/i;
/** A prohibition in the passive: "you are BLOCKED from reading X", "X is not allowed". */
const PROHIBITED =
  /\b(?:is|are|'re)\s+(?:not\s+(?:allowed|permitted)|forbidden|prohibited|blocked|banned)\b(?:\s+(?:to|from)\b|\s*[.;]?\s*$)/i;
/** A choice said against what it replaces, opening the sentence: "instead of relay, rename the M42 as Aux". */
const INSTEAD = /(?:^|,\s*|\band\s+)(?:so\s+)?(?:instead of|rather than)\s+([^,]{1,60}),\s*(?:please\s+)?([a-z]+)\b/i;
/**
 * A way asked for against the one it replaces, the instruction first: "use `@impl Phoenix.LiveView` rather than
 * `@impl true`", "make typescript files use camelCase rather than kebab-case" (a choice, whatever it names).
 */
const OVER_ANOTHER = /\b(?:rather than|instead of)\s+[\w`"'@.-]/i;
/** Words that open a clause without being an imperative ("instead of X, we ...", "instead of X, the ..."). */
const NOT_IMPERATIVE =
  /^(?:i|we|you|he|she|it|they|the|a|an|this|that|these|those|there|my|our|your|his|her|their|its|is|are|was|were|it's|i'm|we're|maybe|just)$/i;
/** The person's environment: "I'm on Ubuntu 22.04", "we're running Node 20". */
const ENVIRONMENT = /^(?:[Ii]'m|I am|[Ww]e're|[Ww]e are)\s+(?:on|running)\s+([A-Z][\w.+#-]*(?:\s+v?\d[\w.]*)?)/;
/** What the project is built on, said of the project as a whole: "This is a NestJS project", "It's a Rust CLI" (see stackIs). */
const STACK_IS =
  /^(?:[Tt]his|[Ii]t|[Oo]urs)(?:'s| is) an? ([A-Z][\w.+#-]*(?:\s[A-Z][\w.+#-]*)?)\s+(?:\w+\s+)?(?:project|app|application|repo|repository|codebase|monorepo|library|package|service|backend|frontend|api|API|CLI|server|site|website|plugin|extension)\b/;

/** What the work is, said of it as a whole: "The product is a web chat UI", "my app is a flask app" (not "… a bit slow", "… a mess"). */
const WORK_IS =
  /^(?:so\s+)?(?:the|this|our|my)\s+(?:product|project|app|application|repo|repository|codebase|game|site|website|plugin|extension|library|package|service|backend|frontend)\s+is\s+an?\s+(?!(?:bit|lot|little|mess|problem|bug|pain|nightmare|disaster|joke|good|great|nice|bad)\b)[\w-]/i;
/** The work as the person sets out to make it: "I want to create a web app that allows music directors to …". */
const SETS_OUT =
  /^(?:so\s+|hi,?\s+|hello,?\s+)?(?:i|we)\s+(?:want|would like|'d like|am going|'m going|are going|'re going|plan)\s+to\s+(?:create|build|make|develop|write)\s+an?\s+(?:[\w-]+\s+){0,3}?(?:app|application|web ?app|website|site|game|cli|bot|extension|plugin|library|tool)\s+(?:that|which|for|to|where)\b/i;
/** The work as the person describes making it: "We're building a frontend dashboard for Checkpoint Scout", "I'm building the ultimate central dashboard". */
const BUILDING =
  /^(?:so\s+|hi,?\s+|hello,?\s+)?(?:i'm|i am|we're|we are)\s+(?:currently\s+|now\s+)?(?:building|making|creating|developing)\s+(?:a|an|the|our|my)\s+\S/i;
/** What "we" will do or need, said as settled: "We will connect to sandbox environment …", "We will need search/filter capabilities" (not "we'll see", "we will need to"). */
const WE_WILL =
  /^(?:so\s+|and\s+|then\s+)?we(?:'ll| will)\s+(?!(?:see|need to|have|be|get|try|look|figure|talk|discuss|check|test|know|find|start|continue|come|go|do|probably|maybe|just|also|then|now|soon|later|eventually|hopefully)\b)[a-z]+/i;
/**
 * What the product lets its users do, specified: "User can cancel the reservation", "the player can choose 3
 * different Aspects" (not a report of what happens now: "users can still see …", "players can now …").
 */
const USERS_CAN =
  /^(?:also,?\s+|and\s+|essentially,?\s+)?(?:the\s+|a\s+|an\s+|each\s+|every\s+)?(?:users?|players?|admins?|customers?|visitors?|members?|guests?)\s+(?:can|should be able to|must be able to|will be able to)\s+(?!.*\b(?:currently|still|now|even|already|anymore)\b)[a-z]/i;
/**
 * How the work is to be, said of it: "There should be 2 permission levels", "The repo will be marked as private",
 * "The name of the app is Team Roster" (not "there should be no errors now", "the bug will be fixed").
 */
const SPECIFIED = [
  /^there (?:should|must|needs? to|has to|will) be\b(?!\s+no\s+(?:more\s+)?(?:errors?|issues?|problems?|warnings?|failures?)\b)(?!.*\b(?:now|already|still)\b)/i,
  /^(?:the|our|this)\s+[\w\s/-]{1,40}?\s+will be\s+(?!(?:able|fixed|resolved|done|finished|completed|ready|updated|merged|deployed|released)\b)\w+ed\b/i,
  /^(?:the )?name of the (?:app|application|project|site|game|tool|repo|package|product) is\b|^(?:the|our|this) (?:app|application|project|site|game|tool|repo|package|product) is called\b/i,
];
/** Something the person tells the agent to bear in mind: "Note that issues fall into 4 projects", "keep in mind that …", "Before you continue, let me point out that …". */
const NOTED =
  /^(?:before you (?:continue|start|begin),\s*)?(?:please\s+)?(?:let me\s+)?(?:note|point out|keep in mind|bear in mind|be aware|remember)\s+that\s+\S/i;
/** A recurring moment an instruction is for, which makes it outlast the task: "before committing", "every time", "whenever". */
const RECURRING =
  /\b(?:before|after|when)\s+(?:committing|pushing|merging|deploying|releasing|submitting|opening a (?:pr|pull request)|each|every|any)\b|\b(?:every|each|next) time\b|\bwhenever\b/i;
/** A correction of how the work is done: an instruction "instead of" doing something else ("move obsolete files instead of deleting them"). */
const INSTEAD_OF_DOING = /\binstead of\s+\w+ing\b/i;
/** Only some of it allowed: "Only changes to the current branch are permitted". */
const ONLY_ALLOWED = /^only\b.{3,120}?\b(?:is|are)\s+(?:permitted|allowed)\b/i;
/** An instruction narrowed to one way: "Only use vanilla HTML5 Canvas", "Only ask if missing info blocks progress". */
const ONLY_DO = /^(?:please\s+)?only\s+/i;
/**
 * What the person wants of a thing in the work, not a task they want done: "I want the script to be
 * quite minimal", "no, i want the helpers.ts file imported into src/", "I would like to use the same
 * structure", "We want it to be remote not local" (not "I want to add …", "I want you to …").
 */
const WANTED =
  /(?:^|[,;]\s+|\b(?:but|so|and|no|also)\s+)(?:i|we)\s+(?:really\s+|just\s+|also\s+)?(?:want|would (?:also\s+|really\s+)?like|'d (?:also\s+|really\s+)?like)\s+(?!(?:to(?!\s+(?:use|keep|maintain|follow|stick with|stay with)\b)|you|u|him|her|me|us|them|a|an|some|help)\b)[\w`"'.-]/i;
/** What the person will not have: "I dont want to have a custom table and …", "I don't like the blue background" (not "… you to": RULE's). */
const UNWANTED =
  /(?:^|[,;]\s+|\b(?:and|but|so|also)\s+)i\s+(?:really\s+)?(?:don'?t|do not)\s+(want|like)\s+(?!you\s+to\b)(?!(?:to\s+)?(?:bother|waste|lose|miss|rush)\b)[\w`"'.-]/i;
/** How the person wants to be answered: "Just answer", "Just a short answer", "be concise", "keep answers short". */
const ANSWERED_SO =
  /^(?:please\s+)?(?:just|only)\s+(?:a\s+(?:short|brief|quick)\s+)?answer\b|^(?:please\s+)?(?:always\s+)?be\s+(?:brief|concise)\b|\bkeep\s+(?:your\s+)?(?:answers|responses|replies)\s+(?:short|brief|concise)\b|^(?:please\s+)?(?:answer|respond|reply)\s+(?:briefly|concisely)\b/i;
/** A way of working leaned towards: "Prefer small focused patches per file", "I prefer JSON config files", "I err on the side of …", "I like using IO.ANSI colors". */
const LEANS =
  /^(?:please\s+)?(?:always\s+)?(?:prefer|favou?r|bias(?:ed)? towards?|lean towards?|err on the side of|optimi[sz]e for)\s+\S|\b(?:i|we)(?:\s+would|'d)?\s+(?:always\s+|really\s+)?(?:prefer|err on the side of|lean towards?|favou?r)\s+\S|\b(?:i|we)\s+(?:also\s+|really\s+|always\s+)?(?:like|love)\s+(?:using|having|keeping|to use|to have|to keep)\s+(?!(?:you|him|her|them|us|me)\b)\S/i;
/** A choice to keep something or go a way, without a technology to name: "Let's keep the singular folder name", "Lets go towards the Adamant Bulwark". */
const KEEP_OR_GO =
  /\blet'?s\s+(?:just\s+|only\s+)?(?:keep\s+(?!(?:working|going|trying|looking|it|this|that|them|on|up|at|in)\b)|(?:go (?:with|towards?|for)|stick (?:with|to)|stay with|rely on)\s+)\S/i;
/**
 * What something is to be called: "it should be called `info`", "Let's call the opposite side the power
 * input side", "I'll name this branch: forge/data" (not what calls it: "should be called after each test").
 */
const NAMED = [
  /\b(?:should|must|shall|will|is to|are to)\s+be\s+(?:called|named)\s+(?=[`"'\u201c\p{Lu}]|the\s|[\w-]*[._/-]\w)/u,
  /\b(?:let'?s|lets|we(?:'ll| will)|i'?ll|i will)\s+(?:call|name)\s+(?:it|this|that|them|the|our)\b(?!\s+(?:a day|quits|done|even)\b)/i,
];
/** A choice the agent put forward, accepted: "Next.js is good for the frontend", "A simple JSON file stored in the repo is great." (a technology named). */
const ACCEPTED =
  /^(?:(?:yes|ok(?:ay)?|sure|other than that)[,.!]?\s+)?(?!(?:it|this|that|these|those|everything|all|which|what|please)\b)(?![^.!?]*\b(?:if|whether|when|check|see|sure)\b)(.{2,60}?)\s+(?:is|are)\s+(?:fine|good|great|perfect|ok|okay)(?:\s+(?:for|as)\s+[^.!?]{1,40})?\s*[.!]?$/i;
/** An option taken: "Yes please, go for the ISR approach", "go with option 2" (not "let's go for a walk": a thing of the work is named). */
const TAKEN =
  /^(?:(?:yes|ok(?:ay)?|sure|great)[,.!]?\s+)?(?:please[,]?\s+)?go\s+(?:for|with)\s+(?:the\s+|your\s+)?(?:[\w.+#-]+\s+){0,3}?(?:approach|option|version|solution|design|plan|one|variant|library|stack)\b/i;
/** Something the project does without, said by "we": "We don't need a mapping table for Customers" (not "… to worry"). */
const DONE_WITHOUT =
  /^(?:so\s+|and\s+|but\s+)?we\s+(?:really\s+|probably\s+)?(?:don'?t|do not)\s+need\s+(?!to\s+(?:worry|bother|rush|hurry)\b)\S/i;
/** Words that follow "no" in a reply, not a thing ruled out: "no problem", "no thanks", "no, that's wrong". */
const NOT_RULED_OUT =
  'problems?|worries|worry|thanks|thank|idea|clue|way|need|luck|changes?|difference|issues?|errors?|rush|hurry|pressure|doubt|matter|wonder|kidding|joke|one|longer|more|less|the|that|it|this|i|you|we|not|comments?|questions?|response|reply|answer|output|results?|progress|success|dice|go|sir|good|sorry|ok|okay|yes|wait|stop|leave|just|actually|really|please';
/** A thing ruled out in two or three words, all the sentence says: "no emdashes", "No inline styles please", "No more inline styles". */
const RULED_OUT = new RegExp(
  `^no\\s+(?:more\\s+)?(?!(?:${NOT_RULED_OUT})\\b)[\\w\`'-]+(?:[\\s-][\\w\`'-]+){0,2}?(?:\\s+(?:please|anywhere|ever|at all))?\\s*[.!]*$`,
  'i',
);
/**
 * The plain ways people set a standing rule for an agent's work: "Stop using console.log for debugging",
 * "We're not using Redux anymore", "Let's not use any ORM here", "Moving forward,
 * use pnpm", "Default to TypeScript", "Stick to the existing folder structure", "Leave the migrations
 * alone", "The generated folder is off limits", "Be careful not to change the public API", "Our
 * convention is kebab-case", "We don't use semicolons", "Keep the API backwards compatible", "Use tabs, not spaces".
 */
const STANDING = [
  /^(?:please\s+)?(?:just\s+)?stop\s+(?!(?:it|this|that|now|here|there)\b)[a-z]+ing\b/i,
  /\b(?:we|i)(?:'re|'m| are| am)\s+not\s+(?:using|doing|writing|adding|supporting)\b.*\b(?:anymore|any more|any longer)\b/i,
  /^(?:so\s+|and\s+)?let'?s\s+not\s+(?!(?:worry|bother|rush|forget|get|go|be|do that|do this)\b)[a-z]+/i,
  /^(?:please\s+)?(?:always\s+)?(?:default to|stick to|adhere to)\s+\S/i,
  /^(?:please\s+)?leave\s+[^,.;]{1,60}?\s+(?:alone|as is|as-is|untouched|unchanged)\b/i,
  /\b(?:is|are)\s+(?:off[ -]limits|read[ -]only|untouchable)\b/i,
  /^(?:please\s+)?(?:always\s+)?be\s+(?:very\s+)?(?:careful|mindful|cautious)\s+(?:not to|with|when|about)\b/i,
  /^(?:our|the|my)\s+(?:convention|standard|policy|rule|style)\s+(?:here\s+)?is\b/i,
  /^(?:so\s+|and\s+)?we\s+(?:don't|do not)\s+(?:use|write|add|commit|push|merge|deploy|allow|accept|import|mock|store|log|hardcode|expose|ship|edit|modify|touch)\s+(?!(?:it|this|that|them|these|those|much|many|anything)\b)\S/i,
  /^(?:please\s+)?(?:always\s+)?keep\s+(?!(?:it|this|that|them|these|those)\s)(?:the\s+|all\s+|every\s+|our\s+|each\s+|your\s+)?[\w\s/.-]{1,40}?\s+(?:backwards?[ -]compatible|small|short|simple|minimal|consistent|separate|private|stable|sorted|alphabeti[sz]ed|typed|pure|in sync)\b/i,
  /^(?:please\s+)?(?:always\s+)?(?:use|prefer|write|name|call)\s+[^,]{1,60},\s*not\s+[\w`"'.-]/i,
];
/** A time from which an instruction holds, opening it: "Moving forward, use pnpm" (not "Moving forward, we'll look at the UI"). */
const HENCEFORTH = /^(?:from here on(?: out)?|from this point (?:on|forward)|moving forward|in (?:the )?future|henceforth)\s*,\s*/i;
/**
 * A choice said as made, or a way left: "We chose Vite over webpack", "We settled on Postgres", "I've decided to
 * drop Java support", "We're going to use Tailwind", "We're moving away from Redux", "Drop support for Node 16".
 */
const CHOSEN = [
  /\b(?:we|i)(?:'ve| have)?\s+(?:chose|chosen|picked(?!\s+up\b)|selected|settled on|opted for|went with|gone with|landed on|decided (?:to(?!\s+(?:take|have|go|get|sleep|rest|call)\b)|on|against|that))\s+(?!the flow\b)\S/i,
  /^(?:so\s+|ok(?:ay)?,?\s+)?(?:we're|we are|i'm|i am)\s+(?:now\s+)?going to\s+(?:use|go with|switch to|stick with|move to|migrate to|adopt)\s+\S/i,
  /\b(?:we're|we are|i'm|i am)\s+(?:now\s+)?(?:moving away from|phasing out|dropping|deprecating|retiring|removing support for)\s+\S/i,
  /^(?:please\s+)?(?:drop|remove|deprecate|end)\s+support\s+for\s+\S/i,
];
/** A choice settled in three words: "Postgres it is." (a thing the extractor knows). */
const IT_IS = /^([\w.+#@/-]+(?:\s[\w.+#@/-]+){0,2})\s+it is\s*[.!]*$/i;

/** How one wants to be worked with, said by what one hates: "I hate it when you rewrite whole files". */
const HATED = /\bi\s+(?:really\s+)?(?:hate|dislike|can't stand)\s+(?:it\s+)?when\s+you\b/i;

/** A principle weighed as one: "DRY is important", "type safety is critical" (not "it is important", "… important to me"). */
const WEIGHED =
  /^(?!(?:it|this|that|which|there|what|everything)\b)[\w\s'-]{2,40}?\s+(?:is|are)\s+(?:very\s+|really\s+|super\s+|extremely\s+)?(?:important|essential|critical|crucial)\b(?!\s+(?:to|for)\s+(?:me|us|him|her|them)\b)/i;
/** Said as an obligation of the work: "we should …", "you must …", "we need to …", "let me …" (the person keeps a step). */
const OBLIGED = /\b(?:we|you)\s+(?:should|must|need to|have to)\s+(?!not\b|be\b|have\b)[a-z]+|\blet me\s+[a-z]+/i;

/** An item read from a turn. */
export interface KnowledgeReading {
  kind: KnowledgeKind;
  /** The sentence as written (bold marks left out). */
  statement: string;
  /** The entity it is about; absent when the sentence names none (the caller uses the project). */
  subject?: string;
  /** A decision's or preference's choice. */
  object?: string;
}

/** The first entity the extractor recognises in a piece of a sentence. */
export function firstEntity(piece: string): string | undefined {
  return extract({ text: piece }).entities[0]?.name;
}

/** The first entity named after the form that opens the choice. */
export function chosenAfter(s: string, form: RegExp): string | undefined {
  const m = s.match(form);
  if (!m || m.index === undefined) return undefined;
  return firstEntity(s.slice(m.index + m[0].length));
}

/** The first technology the extractor knows in a piece of text ("Great" is none). */
export function technologyIn(text: string): string | undefined {
  return extract({ text }).entities.find((e) => e.type === 'technology')?.name;
}

/** A topic set against the technology chosen for it, as a stack is listed: "Frontend & Runtime: Next.js (App Router)", "PRIMARY_HOST: Vercel". */
const TOPIC_SET = /^([A-Z][\w&/+.-]*(?:[ _][\w&/+.-]+){0,3}):\s+(\S+(?:\s+\S+)?)/;
/** Topics that label a step, a message or a passage, not a part of the stack: "Step 1: Create the React app", "Parsing error: ESLint …". */
const NOT_A_TOPIC =
  /\b(?:step|phase|error|errors|warning|note|tip|example|description|output|result|log|line|this|that|is|are|was|got|said|above|below|question|answer|task|goal|todo)\b/i;

/** The topic and the technology of a stack line ("Data Layer: PostgreSQL. …"), when the line opens its value with the technology. */
export function topicChoice(s: string): { topic: string; choice: string } | undefined {
  const m = s.match(TOPIC_SET);
  if (!m || NOT_A_TOPIC.test(m[1]!)) return undefined;
  const choice = technologyIn(m[2]!.replace(/(?:\s*[(,;]|\.(?=\s|$)).*$/, ''));
  return choice ? { topic: m[1]!, choice } : undefined;
}

/** The technology "this is a X project" names, when the extractor knows X as one ("a Great idea project" names none). */
export function stackIs(s: string): string | undefined {
  const m = s.match(STACK_IS);
  return m ? technologyIn(m[1]!) : undefined;
}

/** A rule, a decision or a fact stated by a person to an agent in one of these forms, or nothing. */
export function personForm(s: string): FormReading | undefined {
  if (pointsBack(s)) return undefined;
  const env = s.match(ENVIRONMENT);
  if (env) return { kind: 'fact', subject: env[1]!.replace(/\.$/, '') };
  const stack = stackIs(s);
  if (stack) return { kind: 'fact', subject: stack };
  if (NOTED.test(s) || WORK_IS.test(s) || SETS_OUT.test(s) || BUILDING.test(s)) return { kind: 'fact' };
  if ((RECURRING.test(s) || INSTEAD_OF_DOING.test(s)) && (opensWithInstruction(s) || OBLIGED.test(s))) return { kind: 'rule' };
  if (ONLY_ALLOWED.test(s) || (ONLY_DO.test(s) && opensWithInstruction(s.replace(ONLY_DO, '')))) return { kind: 'rule' };
  if (WEIGHED.test(s) || STANDING.some((re) => re.test(s))) return { kind: 'rule' };
  if (HENCEFORTH.test(s) && opensWithInstruction(s.replace(HENCEFORTH, ''))) return { kind: 'rule' };
  if (HATED.test(s)) return { kind: 'preference' };
  if (WANTED.test(s) || wantedOther(s)) return { kind: 'preference' };
  const unwanted = s.match(UNWANTED);
  if (unwanted) return { kind: unwanted[1]!.toLowerCase() === 'like' ? 'preference' : 'rule' };
  if (LEANS.test(s) || ANSWERED_SO.test(s)) return { kind: 'preference' };
  if (NAMED.some((re) => re.test(s)) || TAKEN.test(s) || accepted(s) || CHOSEN.some((re) => re.test(s))) return { kind: 'decision' };
  const settled = IT_IS.exec(s)?.[1];
  const chosen = settled === undefined ? undefined : firstEntity(settled);
  if (chosen) return { kind: 'decision', subject: chosen };
  if (KEEP_OR_GO.test(s) || DONE_WITHOUT.test(s) || WE_WILL.test(s) || USERS_CAN.test(s) || SPECIFIED.some((re) => re.test(s)))
    return { kind: 'decision' };
  if (RULED_OUT.test(s)) return { kind: 'rule' };
  const instead = s.match(INSTEAD);
  if (instead && !NOT_IMPERATIVE.test(instead[2]!)) return { kind: 'decision' };
  if (OVER_ANOTHER.test(s) && opensWithInstruction(s.replace(/^please\s+/i, ''))) return { kind: 'decision' };
  if ((CONSTRAINT.test(s) && WORK.test(s)) || PROHIBITED.test(s)) return { kind: 'rule' };
  const modal = s.match(MODAL);
  if (modal && !NOT_SPECIFIED_SUBJECT.test(modal[1]!) && !EXPECTED.test(modal[2]!)) return { kind: 'rule' };
  const cannot = modal ? null : s.match(CANNOT);
  if (cannot && !NOT_SPECIFIED_SUBJECT.test(cannot[1]!)) return { kind: 'rule' };
  // After the rules: "actions should work with the architecture defined in ActionSystem.cs" is one.
  return saysWhereKept(s) ? { kind: 'fact' } : undefined;
}

/** A choice accepted (ACCEPTED) whose subject names a technology: "the design is great" accepts no choice. */
function accepted(s: string): boolean {
  const m = s.match(ACCEPTED);
  return m !== null && technologyIn(m[1]!) !== undefined;
}

/** The person's answers to an agent's questions, as the agent's host records them: `"Which database?"="Postgres"`. */
const ANSWER = /"([^"\n]{3,300}?)"\s*=\s*"([^"\n]{1,200})"/g;
/** An answer that only lets the agent go on ("yes", "proceed") chooses nothing. */
const GO_ON = /^(?:yes|no|ok|okay|sure|proceed|continue|go ahead|y|n|是|否|好|可以|はい|いいえ|sim|não)[.!。]?$/i;

/**
 * An answered choice (`"Q"="A"`) within `max` characters with its answer whole: the question is
 * what gives way (a cut from the end would drop the choice itself); undefined for other statements.
 */
export function cutQuestion(statement: string, max: number): string | undefined {
  const m = /^"([^"\n]+)"\s*=\s*"([^"\n]+)"$/.exec(statement);
  if (!m || statement.length <= max) return undefined;
  const room = max - m[2]!.length - 6;
  return room >= 20 ? `"${m[1]!.slice(0, room).trimEnd()}…"="${m[2]}"` : undefined;
}

/** Each choice the person made by answering an agent's question: the question and the answer, as written. */
export function answeredChoices(text: string): { statement: string; answer: string }[] {
  return [...text.matchAll(ANSWER)].filter((m) => !GO_ON.test(m[2]!.trim())).map((m) => ({ statement: m[0].trim(), answer: m[2]!.trim() }));
}
