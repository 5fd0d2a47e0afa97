/**
 * A chat question that asks for knowledge of a kind ("what are our rules about logging?", "what
 * did we decide on the database", "lessons learned about CI"): `@recall` answers it from the
 * project's items of those kinds (core/memory/items.ts) before searching turns. English words only;
 * anything else is an ordinary question. vscode-free.
 */
import type { KnowledgeKind } from '../../../core/model/knowledge.js';

export interface KnowledgeAsk {
  kinds: KnowledgeKind[];
  /** The words the items are to be about; absent: every item of those kinds. */
  about?: string;
}

/** The words that name each kind in a question. */
const KIND_WORDS: [KnowledgeKind, RegExp][] = [
  ['rule', /\b(rules?|conventions?|guidelines?|instructions?|policy|policies)\b/i],
  ['decision', /\b(decisions?|decided|decide|chose|choices?)\b/i],
  ['preference', /\b(preferences?|prefers?|preferred)\b/i],
  ['lesson', /\b(lessons?(?: learn[et]d?)?|learn[et] the hard way)\b/i],
];

/** What the items are to be about: the words after the last of these, the question mark dropped. */
const ABOUT = /\b(?:about|for|on|regarding|concerning|around|with|of)\s+(.+)$/i;
/** A topic that says "all of them", not a subject. */
const EVERYTHING = /^(?:(?:this|the|our|my) (?:project|repo|repository|codebase|code)|everything|anything|it|here|us|me|now)$/i;

export function knowledgeAsk(prompt: string): KnowledgeAsk | undefined {
  const text = prompt.trim().replace(/[?.!\s]+$/, '');
  const kinds = KIND_WORDS.filter(([, words]) => words.test(text)).map(([kind]) => kind);
  if (kinds.length === 0) return undefined;
  // Only the words after the kind say what it is about ("rules about X", not "the X rules" read twice).
  const last = Math.max(...KIND_WORDS.filter(([k]) => kinds.includes(k)).map(([, words]) => text.search(words)));
  const about = ABOUT.exec(text.slice(last))?.[1]?.trim();
  return about && !EVERYTHING.test(about) ? { kinds, about } : { kinds };
}
