/**
 * How a question is answered, as a value: which channels run and, stage by stage (retrieve.ts),
 * which methods run and the numbers they use. A method is off when it is not in its stage's
 * `methods`. The named recipes are frozen: a caller that wants others passes a modified copy, and
 * nothing global ever changes under another caller (the benchmarks' ablations: src/bench/ablation.ts).
 */

export type RetrievalMode = 'keyword' | 'vector' | 'hybrid';

/** Analysing the question (analyse.ts): the searches its words lead to. */
export type AnalyseMethod =
  /** Function words are dropped from the question (text.ts STOP_WORDS). */
  | 'stopWords'
  /** A speaker called by an alias ("Jo") is also searched by their name in the speaker column. */
  | 'aliases'
  /** A word also searches its misspellings in the memory, a misspelt word the word meant (typos.ts). */
  | 'typos'
  /** A word also searches its irregular forms ("go": went, gone; "child": children; forms.ts). */
  | 'forms'
  /** A word also searches its British or American spelling ("favourite": favorite; forms.ts). */
  | 'spellings';

/** Episode candidates (candidates.ts). */
export type CandidateMethod =
  /** A long turn scores the higher of its own BM25 and its best passage's (passages.ts). */
  | 'passages'
  /** A date the question names also fetches the best matches inside it, for the dated boost to lift. */
  | 'dateWindows';

/** Rescoring the candidates (rescore.ts). */
export type RescoreMethod =
  /** Each top hit lends part of its score to the turns around it in its session (spread.ts). */
  | 'neighbours'
  /** ... and more, further, along its speaker's run of messages (with `neighbours` only). */
  | 'runs'
  /** A turn mentioning an entity the question names is boosted. */
  | 'named'
  /** A turn within a date the question names is boosted. */
  | 'dated';

/** Facts (facts.ts). */
export type FactMethod =
  /** The turns the top facts cite are one more list of episodes, fused with the others. */
  | 'evidence'
  /** The facts the answer's top turns back are found by them: a rule that names no entity the question does. */
  | 'backed';

export interface RetrievalRecipe {
  /**
   * The channels that run: `keyword` (BM25 over turns, entity names), `graph` (entities the
   * question names, the dates it names, facts around the top entities) and `vector` (nearest
   * turns, entities and facts by embedding, when a model is loaded).
   */
  readonly channels: { readonly keyword: boolean; readonly graph: boolean; readonly vector: boolean };
  readonly analyse: {
    readonly methods: readonly AnalyseMethod[];
    /** A word of a stem at least `minLength` long searches its slips at `weight` times its own. */
    readonly typos: { readonly minLength: number; readonly weight: number };
    /** Other spellings at `spellings`, irregular forms at `weight`, times the word's own weight. */
    readonly forms: { readonly weight: number; readonly spellings: number };
  };
  readonly candidates: {
    readonly methods: readonly CandidateMethod[];
    readonly bm25: { readonly k1: number; readonly b: number };
    /**
     * BM25 weight of each FTS column of a turn: its text, its speaker's name (a question naming
     * someone then also matches what they said), and the words of the code identifiers in its text
     * (`fetchInvoices` is found as "fetch invoices"; less than the text: "java" is not JavaScript).
     */
    readonly columns: { readonly text: number; readonly speaker: number; readonly parts: number };
    /** Keyword hits kept for rescoring (more than asked for, so boosts can lift a lower hit). */
    readonly count: number;
    /** `fetch` x count are fetched first, so what neighbours lend can lift a turn. */
    readonly fetch: number;
    /** Past this many rows matching the question's words, only its rarest words are searched (candidates.ts searchPlan). */
    readonly maxScoredRows: number;
    /**
     * A candidate of more than `minWords` words is cut into sentence-aligned passages of at most
     * `maxWords`; its score is the higher of its own BM25 and `weight` x its best passage's.
     */
    readonly passages: { readonly weight: number; readonly minWords: number; readonly maxWords: number };
  };
  readonly rescore: {
    readonly methods: readonly RescoreMethod[];
    /**
     * A reply ("adoption agencies!") is found through the turn it answers: each of the top `from`
     * hits lends `weight` x its score to the turns up to `before` / `after` it in its session,
     * and `reply` x that to the turn right after it when it ends with a question mark. The turns
     * next to a hit by its own speaker, with nobody in between, are one run with it (a thought sent
     * as several messages): up to `reach` of them on each side get `run` x weight x the best hit
     * of the run (one utterance: its hits do not add up).
     */
    readonly spread: {
      readonly before: number;
      readonly after: number;
      readonly weight: number;
      readonly reply: number;
      readonly from: number;
      readonly run: number;
      readonly reach: number;
    };
    /** A hit's score is multiplied by (1 + named) when it names an entity of the question, by (1 + dated) within one of its dates. */
    readonly boosts: {
      readonly named: number;
      readonly dated: number;
      /** The slack around a date, in days. */
      readonly dateSlackDays: number;
      /**
       * The slack of a date said relative to the time of asking ("yesterday", "last week"): the asker
       * knows when now is; half a day covers a service whose time zone is not the asker's.
       */
      readonly relativeSlackDays: number;
    };
  };
  /** Entities: BM25 weight of each FTS column of an entity, its name and its summary. */
  readonly entities: {
    readonly bm25: { readonly k1: number; readonly b: number };
    readonly columns: { readonly name: number; readonly summary: number };
  };
  /**
   * Facts: those of the top `seeds` entities (graph; the `perSeed` most recently reinforced of
   * each, so a hub entity costs no more than any other) and those nearest the question (vector),
   * fused by reciprocal rank with a small `k` (the first entity's facts lead), times effective
   * confidence; below `minConfidence` a fact is left out unless history is asked for. A fact whose
   * code changed or is gone since it was anchored has its score multiplied by `staleCode`.
   */
  readonly facts: {
    readonly methods: readonly FactMethod[];
    readonly seeds: number;
    readonly perSeed: number;
    readonly k: number;
    readonly graph: number;
    readonly vector: number;
    readonly minConfidence: number;
    readonly staleCode: number;
    /**
     * The latest `perFact` evidence turns of each of the top `facts` facts, a fact at rank r (the
     * first: 1) lending each of its turns 1 / (k + r), fused at `weight` with the keyword and
     * vector lists (graph channel only). Just under theirs: a turn only the facts cite enters a
     * single keyword list at about its 8th place, and never above a turn two channels agree on.
     */
    readonly evidence: { readonly facts: number; readonly perFact: number; readonly weight: number };
    /**
     * The facts the answer's top `turns` turns back, after the episodes are fused (so the episodes
     * are as without them): the turn at rank r (the first: 1) lends each fact it backs
     * `weight` / (k + r), summed with what the facts' other channels lent.
     */
    readonly backed: { readonly turns: number; readonly weight: number };
  };
  /** Episodes and entities: weighted reciprocal rank fusion of the channels' lists, each `depth` x limit long. */
  readonly fusion: { readonly k: number; readonly keyword: number; readonly vector: number; readonly depth: number };
}

/** Deep-freezes a recipe: a named one is shared by every caller. */
export function frozen<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) frozen(v);
  return Object.freeze(value);
}

const BM25 = { k1: 1.2, b: 0.5 };

/** Keyword, graph and vector channels, fused: what the service runs; without a model it is keyword + graph. */
export const HYBRID_RECIPE: RetrievalRecipe = frozen({
  channels: { keyword: true, graph: true, vector: true },
  analyse: {
    methods: ['stopWords', 'aliases', 'typos', 'forms', 'spellings'],
    typos: { minLength: 7, weight: 0.5 },
    forms: { weight: 0.5, spellings: 1 },
  },
  candidates: {
    methods: ['passages', 'dateWindows'],
    bm25: BM25,
    columns: { text: 1, speaker: 0.5, parts: 0.5 },
    count: 50,
    fetch: 3,
    maxScoredRows: 2000,
    passages: { weight: 1, minWords: 100, maxWords: 60 },
  },
  rescore: {
    methods: ['neighbours', 'runs', 'named', 'dated'],
    spread: { before: 1, after: 2, weight: 0.4, reply: 1.5, from: 60, run: 1.5, reach: 4 },
    boosts: { named: 1, dated: 1, dateSlackDays: 7, relativeSlackDays: 0.5 },
  },
  entities: { bm25: BM25, columns: { name: 2, summary: 1 } },
  facts: {
    methods: ['evidence', 'backed'],
    seeds: 5,
    perSeed: 50,
    k: 1,
    graph: 1,
    vector: 1,
    minConfidence: 0.15,
    staleCode: 0.5,
    evidence: { facts: 3, perFact: 5, weight: 0.9 },
    backed: { turns: 5, weight: 1 },
  },
  fusion: { k: 60, keyword: 1, vector: 1, depth: 3 },
});

/** BM25 and the graph: the offline floor, no embedding model needed. */
export const KEYWORD_RECIPE: RetrievalRecipe = frozen({ ...HYBRID_RECIPE, channels: { keyword: true, graph: true, vector: false } });

/** Embeddings alone: nearest turns, entities and facts (refused without a model). */
export const VECTOR_RECIPE: RetrievalRecipe = frozen({ ...HYBRID_RECIPE, channels: { keyword: false, graph: false, vector: true } });

/** The recipe a query runs when it names no mode. */
export const DEFAULT_RECIPE: RetrievalRecipe = HYBRID_RECIPE;

/** The recipe behind each retrieval mode a client may ask for. */
export const RECIPES: Readonly<Record<RetrievalMode, RetrievalRecipe>> = Object.freeze({
  keyword: KEYWORD_RECIPE,
  vector: VECTOR_RECIPE,
  hybrid: HYBRID_RECIPE,
});

/** The named recipe of a mode; the default for none (or one that is not a mode: Memory refuses it). */
export function recipeFor(mode: string | undefined): RetrievalRecipe {
  return mode !== undefined && Object.hasOwn(RECIPES, mode) ? RECIPES[mode as RetrievalMode] : DEFAULT_RECIPE;
}

/** A recipe that can only answer from embeddings: without vector hits it has nothing to give. */
export function needsVectors(recipe: RetrievalRecipe): boolean {
  return recipe.channels.vector && !recipe.channels.keyword && !recipe.channels.graph;
}

/** Whether a stage's method runs. */
export const runs = <M extends string>(stage: { readonly methods: readonly M[] }, method: M): boolean => stage.methods.includes(method);
