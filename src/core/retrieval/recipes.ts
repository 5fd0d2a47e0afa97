/**
 * How a question is answered, as a value: which channels run and every weight they use. A recipe
 * is passed to each query (Memory.query, retrieve); the named recipes below are frozen, so a
 * caller that wants other weights passes a modified copy (`{ ...DEFAULT_RECIPE, candidates: 80 }`)
 * and nothing global ever changes under another caller.
 */

export type RetrievalMode = 'keyword' | 'vector' | 'hybrid';

export interface RetrievalConfig {
  /**
   * The channels that run: `keyword` (BM25 over turns, entity names), `graph` (entities the
   * question names, the dates it names, facts around the top entities) and `vector` (nearest
   * turns, entities and facts by embedding, when a model is loaded).
   */
  readonly channels: { readonly keyword: boolean; readonly graph: boolean; readonly vector: boolean };
  readonly bm25: { readonly k1: number; readonly b: number };
  /**
   * BM25 weight of each FTS column of a turn: its text, its speaker's name (a question naming
   * someone then also matches what they said), and the words of the code identifiers in its text
   * (`fetchInvoices` is found as "fetch invoices"; less than the text: "java" is not JavaScript).
   */
  readonly columns: { readonly text: number; readonly speaker: number; readonly parts: number };
  /** BM25 weight of each FTS column of an entity: its name, and its summary. */
  readonly entityColumns: { readonly name: number; readonly summary: number };
  readonly query: {
    /** Drop function words from the question (text.ts STOP_WORDS). */
    readonly stopWords: boolean;
    /** A speaker's alias in the question also searches their name in the speaker column (names.ts). */
    readonly aliases: boolean;
  };
  /** Re-ranking multipliers: a keyword hit's score is multiplied by (1 + boost) for each that applies. */
  readonly boosts: {
    /** The episode mentions an entity the question names (for a conversation turn: its speaker). */
    readonly named: number;
    /** The episode's time falls within a calendar date the question names, give or take the slack. */
    readonly dated: number;
    readonly dateSlackDays: number;
    /**
     * The slack of a date said relative to the time of asking ("yesterday", "last week"): the asker
     * knows when now is; half a day covers a service whose time zone is not the asker's.
     */
    readonly relativeSlackDays: number;
  };
  /**
   * Long turns are scored by passage too (passages.ts): a keyword candidate of more than
   * `minWords` words is cut into sentence-aligned passages of at most `maxWords`, and its score
   * is the higher of its own BM25 and `weight` x its best passage's. Weight 0: off.
   */
  readonly passages: { readonly weight: number; readonly minWords: number; readonly maxWords: number };
  /** Keyword hits fetched for re-ranking (more than asked for, so boosts can lift a lower hit). */
  readonly candidates: number;
  /** Past this many rows matching the question's words, only its rarest words are searched (keyword.ts searchPlan). */
  readonly maxScoredRows: number;
  /**
   * A reply ("adoption agencies!") is found through the turn it answers: each of the top `from`
   * keyword hits lends `weight` x its score to the turns up to `before` / `after` it in its
   * session, and `reply` x that to the turn right after it when it ends with a question mark.
   * `fetch` x the candidates are fetched first, so lent scores can lift a turn (spread.ts). The
   * turns next to a hit by its own speaker, with nobody in between, are one run with it (a thought
   * sent as several messages): up to `reach` of them on each side get `run` x weight x the best
   * hit of the run (one utterance: its hits do not add up). Run 0: off.
   */
  readonly spread: {
    readonly before: number;
    readonly after: number;
    readonly weight: number;
    readonly reply: number;
    readonly from: number;
    readonly fetch: number;
    readonly run: number;
    readonly reach: number;
  };
  /**
   * Episodes and entities: weighted reciprocal rank fusion of the channels' lists, each `depth` x
   * limit long (the vector channel fetches that many of each kind).
   */
  readonly fusion: { readonly k: number; readonly keyword: number; readonly vector: number; readonly depth: number };
  /**
   * Facts: those of the top `seeds` entities (graph; the `perSeed` most recently reinforced of
   * each, so a hub entity costs no more than any other) and those nearest the question (vector),
   * fused by reciprocal rank with a small `k` (the first entity's facts lead), times effective
   * confidence; below `minConfidence` a fact is left out unless history is asked for.
   */
  readonly facts: {
    readonly seeds: number;
    readonly perSeed: number;
    readonly k: number;
    readonly graph: number;
    readonly vector: number;
    readonly minConfidence: number;
  };
  /**
   * Facts lead to the turns that back them (evidence.ts; graph channel only): the latest
   * `perFact` evidence turns of each of the top `facts` facts of the query, a fact at rank r (the first: 1) lending each of its
   * turns 1 / (facts.k + r), are one more list of episodes, fused at `weight` with the keyword
   * and vector lists. Weight 0: off. Just under theirs: a turn only the facts cite (the nearest
   * facts always come, relevant or not) enters a single keyword list at about its 8th place, and
   * never above a turn two channels agree on.
   */
  readonly evidence: { readonly facts: number; readonly perFact: number; readonly weight: number };
  /**
   * Typing slips (typos.ts): a question's word of a stem at least `minLength` long also searches
   * the indexed words one slip from it that are rarer than it, at `weight`; a word the memory
   * lacks searches its commonest such neighbour instead. Weight 0: off.
   */
  readonly typos: { readonly minLength: number; readonly weight: number };
  /**
   * Forms and spellings (forms.ts): a question's word also searches its British or American
   * spelling ("favourite": favorite) at `spellings`, and the irregular forms the stemmer does not
   * join with it ("go": went, gone; "child": children) at `weight`. 0: off.
   */
  readonly forms: { readonly weight: number; readonly spellings: number };
  /** A fact whose code changed or is gone since it was anchored (core/anchors) has its score multiplied by this. */
  readonly staleCode: number;
  /**
   * Pseudo-relevance feedback (feedback.ts): up to `terms` words shared by at least two of the top
   * `docs` keyword hits are searched too, each at `weight`. Weight 0: off.
   */
  readonly feedback: { readonly docs: number; readonly terms: number; readonly weight: number };
  /**
   * Coverage of the top k (diversify.ts, maximal marginal relevance over the first `pool` fused
   * episodes): a candidate loses `weight` x its word overlap with the likest pick, and `session`
   * per pick already from its session. Both 0: off.
   */
  readonly diversity: { readonly weight: number; readonly session: number; readonly pool: number };
}

function frozen<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) frozen(v);
  return Object.freeze(value);
}

/** Keyword, graph and vector channels, fused: what the service runs; without a model it is keyword + graph. */
export const HYBRID_RECIPE: RetrievalConfig = frozen({
  channels: { keyword: true, graph: true, vector: true },
  bm25: { k1: 1.2, b: 0.5 },
  columns: { text: 1, speaker: 0.5, parts: 0.5 },
  entityColumns: { name: 2, summary: 1 },
  query: { stopWords: true, aliases: true },
  boosts: { named: 1, dated: 1, dateSlackDays: 7, relativeSlackDays: 0.5 },
  passages: { weight: 1, minWords: 100, maxWords: 60 },
  candidates: 50,
  maxScoredRows: 2000,
  spread: { before: 1, after: 2, weight: 0.4, reply: 1.5, from: 60, fetch: 3, run: 1.5, reach: 4 },
  fusion: { k: 60, keyword: 1, vector: 1, depth: 3 },
  facts: { seeds: 5, perSeed: 50, k: 1, graph: 1, vector: 1, minConfidence: 0.15 },
  evidence: { facts: 3, perFact: 5, weight: 0.9 },
  typos: { minLength: 7, weight: 0.5 },
  forms: { weight: 0.5, spellings: 1 },
  staleCode: 0.5,
  feedback: { docs: 5, terms: 5, weight: 0 },
  diversity: { weight: 0, session: 0, pool: 30 },
});

/** BM25 and the graph: the offline floor, no embedding model needed. */
export const KEYWORD_RECIPE: RetrievalConfig = frozen({ ...HYBRID_RECIPE, channels: { keyword: true, graph: true, vector: false } });

/** Embeddings alone: nearest turns, entities and facts (refused without a model). */
export const VECTOR_RECIPE: RetrievalConfig = frozen({ ...HYBRID_RECIPE, channels: { keyword: false, graph: false, vector: true } });

/** The recipe a query runs when it names no mode. */
export const DEFAULT_RECIPE: RetrievalConfig = HYBRID_RECIPE;

/** The recipe behind each retrieval mode a client may ask for. */
export const RECIPES: Readonly<Record<RetrievalMode, RetrievalConfig>> = Object.freeze({
  keyword: KEYWORD_RECIPE,
  vector: VECTOR_RECIPE,
  hybrid: HYBRID_RECIPE,
});

/** The named recipe of a mode; the default for none (or one that is not a mode: Memory refuses it). */
export function recipeFor(mode: string | undefined): RetrievalConfig {
  return mode !== undefined && Object.hasOwn(RECIPES, mode) ? RECIPES[mode as RetrievalMode] : DEFAULT_RECIPE;
}

/** A recipe that can only answer from embeddings: without vector hits it has nothing to give. */
export function needsVectors(recipe: RetrievalConfig): boolean {
  return recipe.channels.vector && !recipe.channels.keyword && !recipe.channels.graph;
}

/** The retrieval methods a recipe can switch off one by one (an ablation, or a caller that wants plain BM25). */
export const METHODS = {
  /** Turns lend score to their neighbours (spread). */
  neighbours: (r) => ({ ...r, spread: { ...r.spread, weight: 0 } }),
  /** A hit lends along its speaker's run of messages (spread). */
  runs: (r) => ({ ...r, spread: { ...r.spread, run: 0 } }),
  /** Pseudo-relevance feedback (feedback). */
  feedback: (r) => ({ ...r, feedback: { ...r.feedback, weight: 0 } }),
  /** Coverage of the top k (diversity). */
  diversity: (r) => ({ ...r, diversity: { ...r.diversity, weight: 0, session: 0 } }),
  /** Speakers' aliases searched as their names (names.ts). */
  aliases: (r) => ({ ...r, query: { ...r.query, aliases: false } }),
  /** The top facts' evidence turns fused into the episodes (evidence). */
  evidence: (r) => ({ ...r, evidence: { ...r.evidence, weight: 0 } }),
  /** Misspellings searched as the words they slip from (typos). */
  typos: (r) => ({ ...r, typos: { ...r.typos, weight: 0 } }),
  /** Irregular word forms searched with the question's words (forms). */
  forms: (r) => ({ ...r, forms: { ...r.forms, weight: 0 } }),
  /** British and American spellings searched with the question's words (forms). */
  spellings: (r) => ({ ...r, forms: { ...r.forms, spellings: 0 } }),
  /** Long turns scored by their best passage as well as whole (passages). */
  passages: (r) => ({ ...r, passages: { ...r.passages, weight: 0 } }),
  /** Boosts for named entities and dates. */
  boosts: (r) => ({ ...r, boosts: { ...r.boosts, named: 0, dated: 0 } }),
} as const satisfies Record<string, (r: RetrievalConfig) => RetrievalConfig>;

export type RetrievalMethod = keyof typeof METHODS;

/** A copy of `recipe` with the named methods switched off. */
export function withoutMethods(recipe: RetrievalConfig, methods: readonly RetrievalMethod[]): RetrievalConfig {
  return frozen(methods.reduce((r, m) => METHODS[m](r), recipe));
}

/**
 * A copy of `recipe` with numeric settings replaced by path (`{"feedback.weight": 0.2}`), for
 * benchmarks; an unknown path or a non-number is refused.
 */
export function withSettings(recipe: RetrievalConfig, settings: Record<string, number>): RetrievalConfig {
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
  return frozen(copy as unknown as RetrievalConfig);
}
