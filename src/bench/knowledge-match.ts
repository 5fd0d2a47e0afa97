/**
 * How the knowledge bench decides that a line of text states a labelled piece of knowledge, and
 * which entity names are junk. Both are judged on words, never by a model, so a reviewer can
 * check any verdict by hand:
 *
 * states(line, statement): a passage of the line no longer than twice the statement (in content
 * words, at least the statement's length plus 4) holds at least 60% of the statement's content
 * words, and a statement said in the negative ("never", "don't", "不要", "しないで") is only stated
 * by a line that is negative too. Content words: the tokens the index reads (lower-cased, accents
 * dropped, Chinese, Japanese and Korean as pairs of characters), without function words (English,
 * and the commonest of Portuguese, Spanish, German and Italian) and with a light English suffix
 * strip, so "tests" states "test" and "merged" states "merge".
 * Its limits: a paraphrase in other words is missed; a line that reuses most of the words with
 * another meaning ("use X, not Y" for "use Y, not X") is accepted.
 */
import { STOP_WORDS, tokenize } from '../core/retrieval/text.js';

/** Share of a statement's content words a line must hold. */
export const STATES_SHARE = 0.6;

/** Function words of the other languages in the labelled fixtures, left out like English ones. */
const OTHER_STOP_WORDS = new Set(
  (
    'de da do das dos em no na nos nas um uma uns umas o os e ou que para por com se ao aos pelo pela ' +
    'el la los las un una unos unas y en del al con por para es son lo le les ' +
    'der die das den dem des ein eine einen einem und oder ist sind zu mit von im auf für ' +
    'il lo gli della delle di che per con una'
  ).split(/\s+/),
);

/** Words that make a statement a negative one (checked on the raw text, any language of the fixtures). */
const NEGATIVE =
  /\b(?:not|no|never|don'?t|doesn'?t|didn'?t|won'?t|can'?t|cannot|shouldn'?t|mustn'?t|avoid|without|nunca|não|nao|nem|nicht|kein|keine|niemals|jamais|ne)\b|n't\b|不要|不许|不得|不能|不可|禁止|别|勿|没有|不需要|ない|禁止|やめて|しないで|않|금지|말고|마세요/i;

/** Whether the text says something in the negative. */
export function isNegative(text: string): boolean {
  return NEGATIVE.test(text.replace(/\u2019/g, "'"));
}

/** A light English suffix strip: plurals, -ing, -ed and a final e, never below three letters. */
function stem(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length >= 4 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w.length > 4 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** The content words of a text, in order (repeats kept). */
export function contentWords(text: string): string[] {
  return tokenize(text)
    .map((t) => t.replace(/'s$/, '').replace(/'/g, ''))
    .filter((t) => (t.length > 1 || /\d/.test(t)) && !STOP_WORDS.has(t) && !OTHER_STOP_WORDS.has(t))
    .map(stem);
}

/** The most of `wanted`'s words any window of `width` tokens of `tokens` holds. */
function bestWindow(tokens: string[], wanted: Set<string>, width: number): number {
  let best = 0;
  const counts = new Map<string, number>();
  let held = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (wanted.has(t)) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      if (counts.get(t) === 1) held++;
    }
    const out = i - width;
    if (out >= 0 && wanted.has(tokens[out]!)) {
      counts.set(tokens[out]!, counts.get(tokens[out]!)! - 1);
      if (counts.get(tokens[out]!) === 0) held--;
    }
    best = Math.max(best, held);
  }
  return best;
}

/** How many of `statement`'s content words the best passage of `line` holds, of how many; none when the polarity differs. */
function held(line: string, statement: string): { held: number; of: number } {
  const wanted = new Set(contentWords(statement));
  if (wanted.size === 0) {
    const flat = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
    return { held: flat(statement).length > 0 && flat(line).includes(flat(statement)) ? 1 : 0, of: 1 };
  }
  if (isNegative(statement) && !isNegative(line)) return { held: 0, of: wanted.size };
  const width = Math.max(2 * wanted.size, wanted.size + 4);
  return { held: bestWindow(contentWords(line), wanted, width), of: wanted.size };
}

/** Whether `line` states `statement` (see the file's comment for the rule and its limits). */
export function states(line: string, statement: string): boolean {
  const h = held(line, statement);
  return h.held >= Math.ceil(STATES_SHARE * h.of);
}

/** Either says the other: an extracted item that is part of a labelled one (or holds it) is that item. */
export const sameKnowledge = (a: string, b: string): boolean => states(a, b) || states(b, a);

/** How closely two statements say the same: the larger share of one's content words the other holds. */
export function likeness(a: string, b: string): number {
  const share = (h: { held: number; of: number }): number => h.held / h.of;
  return Math.max(share(held(a, b)), share(held(b, a)));
}

// ---- junk entities ---------------------------------------------------------------------------

/** Courtesy and filler words chat is full of ("Please confirm"): words of a sentence, never a name. */
const FILLERS = new Set('please thanks thank sorry sure hello great'.split(' '));

/** Pronouns and generic roles: a name in a transcript's mouth, never the name of a thing. */
const PRONOUNS = new Set(
  (
    'i me my mine we us our ours you your yours he him his she her hers it its they them their theirs ' +
    'this that these those someone something anyone anything everyone everything nobody nothing ' +
    'user assistant model agent ai bot human person'
  ).split(/\s+/),
);

/** Why a name is junk: the classifier's reasons, or a person judged that very name junk (entities.json). */
export type JunkReason = 'stop word' | 'pronoun' | 'number' | 'clause fragment' | 'judged junk';

/**
 * Why an entity name is junk, or undefined when it is a name: a stop word or filler ("The", "If",
 * "Please"), a pronoun or generic role ("you", "user"), a number or other name without a letter
 * ("42", "3.5%"), or a clause fragment: a word that ends a sentence ("changes."), three or more
 * words, lower-case, holding a function word ("errors indicate the backend"), or any name of two or
 * more words that ends in a function word ("the package is").
 * Limits: plain words taken for names ("confirm", "conflict", "workspace scaffolding module") are
 * not caught, so the junk share is a lower bound; a lower-case proper name of three words with a
 * function word ("state of the art") is called junk.
 */
export function junkReason(name: string): JunkReason | undefined {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const lower = words.map((w) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''));
  if (!/\p{L}/u.test(name)) return 'number';
  if (words.length === 1) {
    if (PRONOUNS.has(lower[0]!)) return 'pronoun';
    if (STOP_WORDS.has(lower[0]!) || FILLERS.has(lower[0]!)) return 'stop word';
    // "changes." is the end of a sentence; "README.md" names a file.
    if (/^\p{L}+[.,;:!?]$/u.test(name.trim())) return 'clause fragment';
    return undefined;
  }
  const functionWord = (w: string): boolean => STOP_WORDS.has(w) || PRONOUNS.has(w);
  if (functionWord(lower[lower.length - 1]!)) return 'clause fragment';
  if (words.length >= 3 && name === name.toLowerCase() && lower.some(functionWord)) return 'clause fragment';
  return undefined;
}
