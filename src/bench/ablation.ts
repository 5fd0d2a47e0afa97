/**
 * Ablations for the benchmarks: a recipe with methods left out of their stages (`--without`), or
 * with numbers replaced by path (`--set rescore.spread.reply=2`). Never used on the shipped path.
 */
import { frozen, type RetrievalRecipe } from '../core/retrieval/recipe.js';

const without = <S extends 'analyse' | 'candidates' | 'rescore' | 'facts'>(
  r: RetrievalRecipe,
  stage: S,
  ...methods: string[]
): RetrievalRecipe => ({
  ...r,
  [stage]: { ...r[stage], methods: (r[stage].methods as readonly string[]).filter((m) => !methods.includes(m)) },
});

/** The retrieval methods a benchmark can switch off one by one, by the names the docs use. */
export const METHODS = {
  /** Turns lend score to their neighbours (spread). */
  neighbours: (r) => without(r, 'rescore', 'neighbours'),
  /** A hit lends along its speaker's run of messages (spread). */
  runs: (r) => without(r, 'rescore', 'runs'),
  /** Speakers' aliases searched as their names. */
  aliases: (r) => without(r, 'analyse', 'aliases'),
  /** The top facts' evidence turns fused into the episodes. */
  evidence: (r) => without(r, 'facts', 'evidence'),
  /** The facts the top turns back joined to the facts (the episodes stay as they are). */
  backed: (r) => without(r, 'facts', 'backed'),
  /** Misspellings searched as the words they slip from (typos). */
  typos: (r) => without(r, 'analyse', 'typos'),
  /** Irregular word forms searched with the question's words (forms). */
  forms: (r) => without(r, 'analyse', 'forms'),
  /** British and American spellings searched with the question's words (forms). */
  spellings: (r) => without(r, 'analyse', 'spellings'),
  /** Long turns scored by their best passage as well as whole (passages). */
  passages: (r) => without(r, 'candidates', 'passages'),
  /** Boosts for named entities and dates, and the dates' own fetch. */
  boosts: (r) => without(without(r, 'rescore', 'named', 'dated'), 'candidates', 'dateWindows'),
} as const satisfies Record<string, (r: RetrievalRecipe) => RetrievalRecipe>;

export type RetrievalMethod = keyof typeof METHODS;

/** A copy of `recipe` with the named methods switched off. */
export function withoutMethods(recipe: RetrievalRecipe, methods: readonly RetrievalMethod[]): RetrievalRecipe {
  return frozen(methods.reduce((r, m) => METHODS[m](r), recipe));
}

/**
 * A copy of `recipe` with numeric settings replaced by path (`{"rescore.spread.reply": 2}`); an
 * unknown path or a non-number is refused.
 */
export function withSettings(recipe: RetrievalRecipe, settings: Record<string, number>): RetrievalRecipe {
  const copy = JSON.parse(JSON.stringify(recipe)) as Record<string, unknown>;
  for (const [path, value] of Object.entries(settings)) {
    const keys = path.split('.');
    let at = copy;
    for (const key of keys.slice(0, -1)) {
      if (typeof at[key] !== 'object' || at[key] === null) throw new Error(`no recipe setting ${path}`);
      at = at[key] as Record<string, unknown>;
    }
    const last = keys[keys.length - 1]!;
    if (typeof at[last] !== 'number' || !Number.isFinite(value)) throw new Error(`recipe setting ${path} takes a number`);
    at[last] = value;
  }
  return frozen(copy as unknown as RetrievalRecipe);
}
