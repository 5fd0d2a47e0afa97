/**
 * When two statements are one piece of knowledge, whatever their source: the same rule said in other
 * words ("Ensure modular, clean code in a single Python file", later "Ensure code is modular ... in a
 * single file") is one item; a different choice ("use pnpm", "use npm") or the opposite rule
 * ("always use X", "never use X") is another. Compared: the polarity (a rule said in the negative,
 * however it is said: "don't", "never", "avoid", "do NOT"), the content words without the words
 * that only mark a rule ("always", "ensure", "must"), lightly stemmed, and the names each holds.
 */
import { extract } from '../ingest/extract.js';
import { STOP_WORDS, tokenize } from '../retrieval/text.js';

/** Share of content words two statements must have in common (of both together). */
const SAME_WORDS = 0.7;
/** Share of the shorter statement's content words the longer must hold, when it says more around them. */
const HELD_WORDS = 0.8;
/** How many times the shorter's content words the longer may have and still be it said at more length (not a list that names it). */
const HELD_SPAN = 3;

/** Words that say it is a rule, not what the rule is: "always", "ensure", "make sure", "please". */
const MARKERS = new Set(
  (
    "always never ensure make sure please avoid refrain must should shall need needs required require dont don't do does doesnt rule going forward from now instead " +
    'siempre sempre toujours immer stets'
  ).split(' '),
);
/**
 * A statement said in the negative, in the languages the readers read (knowledge-languages.ts):
 * English, Portuguese, Spanish, French, German, Italian, Chinese, Japanese and Korean; or marked
 * as a don't ("❌ Use `any`").
 */
const NEGATIVE =
  /(?<![\p{L}'])(?:not|no|never|don'?t|doesn'?t|won'?t|can'?t|cannot|shouldn'?t|mustn'?t|avoid|without|stop|nunca|não|nao|jamás|ne|jamais|pas|nicht|nie|niemals|kein|keine|keinen|mai)(?![\p{L}])|(?<![\p{L}'])non(?![\p{L}-])|(?<![\p{L}])n'(?=\p{L})|n't(?![\p{L}])|不要|不许|不得|不能|禁止|别|勿|しない|ないで|ないこと|않|말고|마세요|하지\s*마|금지|[❌🚫⛔]/iu;

export interface StatementKey {
  negative: boolean;
  words: Set<string>;
  /** Names it holds (entities the extractor knows, code spans), read when its words match another's. */
  names?: string[];
  text: string;
}

/** A light English suffix strip (plurals, -ing, -ed, a final e), so "tests" is "test" and "merged" "merge". */
function stem(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length <= 4) return word;
  let w = word;
  if (w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (/(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.endsWith('ed')) w = w.slice(0, -2);
  return w.length > 4 && w.endsWith('e') ? w.slice(0, -1) : w;
}

export function statementKey(statement: string): StatementKey {
  const text = statement.replace(/[\u2018\u2019]/g, "'");
  // "non-blocking" is one word, not the negation "non" (Italian's "not") and "blocking".
  const words = tokenize(text.replace(/(?<![\p{L}])non-(?=\p{L})/giu, 'non'))
    .map((t) => t.replace(/'s$/, ''))
    .filter((t) => t.length > 1 && !STOP_WORDS.has(t) && !MARKERS.has(t) && !NEGATIVE.test(t))
    .map(stem);
  return { negative: NEGATIVE.test(text), words: new Set(words), text };
}

function namesOf(k: StatementKey): string[] {
  k.names ??= [
    ...extract({ text: k.text }).entities.map((e) => e.name.toLowerCase()),
    ...[...k.text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.toLowerCase()),
  ];
  return k.names;
}

/** A name of one statement the other holds: among its names, or all of the name's words among its words. */
function holds(k: StatementKey, name: string): boolean {
  return namesOf(k).includes(name) || tokenize(name).every((t) => k.words.has(stem(t)) || STOP_WORDS.has(t));
}

/** Whether two statements say the same piece of knowledge (see the file's comment). */
export function sameStatement(a: StatementKey, b: StatementKey): boolean {
  if (a.negative !== b.negative) return false;
  const small = Math.min(a.words.size, b.words.size);
  if (small === 0) return false;
  let shared = 0;
  for (const w of a.words) if (b.words.has(w)) shared++;
  const large = Math.max(a.words.size, b.words.size);
  const same =
    shared / (a.words.size + b.words.size - shared) >= SAME_WORDS ||
    (small >= 2 && shared / small >= HELD_WORDS && large <= HELD_SPAN * small);
  if (!same) return false;
  // A name each says and the other does not: two choices ("use pnpm for every install", "use npm for every install").
  return !(namesOf(a).some((n) => !holds(b, n)) && namesOf(b).some((n) => !holds(a, n)));
}
