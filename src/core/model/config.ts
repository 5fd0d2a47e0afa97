/**
 * Every number the memory's judgement depends on, in one place, each overridable.
 * `resolveConfig` merges a partial override (config.json) over these defaults.
 */

/**
 * Whose word a piece of evidence is, strongest first: a person's correction, the person's own
 * words, others' words (a file in a repository others wrote: its authors', not the person's), a model's.
 */
export const AUTHORITIES = ['human', 'user', 'external', 'agent'] as const;
export type Authority = (typeof AUTHORITIES)[number];
/** An authority's strength: higher is stronger (agent 0 … human 3); an unknown one is -1. */
export const authorityRank = (a: Authority): number => (AUTHORITIES.includes(a) ? AUTHORITIES.length - 1 - AUTHORITIES.indexOf(a) : -1);
/** How a relationship was established. */
export const PRIOR_KINDS = ['explicit', 'inferred', 'speculative'] as const;
export type PriorKind = (typeof PRIOR_KINDS)[number];

export interface ConfidenceConfig {
  /** Prior mean by how a relationship was established. */
  priors: Record<PriorKind, number>;
  /** Beta concentration of the prior: alpha = c * p, beta = c * (1 - p). */
  concentration: number;
  /** Weight a piece of evidence adds to alpha (corroborating) or beta (contradicting). */
  provenanceWeights: Record<Authority, number>;
  /** Days for effective confidence to halve without reinforcement. */
  halfLifeDays: number;
  /** Effective confidence never decays below this. */
  decayFloor: number;
}

export interface MemoryConfig {
  confidence: ConfidenceConfig;
  /** Take a snapshot after this many journal events (on idle). */
  snapshotEvery: number;
  /** Largest accepted episode text, in characters. */
  maxTextChars: number;
  /** Run the offline extractor on stored episodes (entities and inferred facts). */
  extract: boolean;
}

export const DEFAULT_CONFIG: MemoryConfig = {
  confidence: {
    priors: { explicit: 0.9, inferred: 0.6, speculative: 0.3 },
    concentration: 10,
    // A person's correction is decisive; it also ends the fact (graph-writes.ts correctFact). Others' words
    // weigh less than the person's own, so whoever can commit to a repository cannot outweigh them.
    provenanceWeights: { human: 10, user: 0.8, external: 0.5, agent: 0.05 },
    halfLifeDays: 90,
    decayFloor: 0.05,
  },
  snapshotEvery: 500,
  maxTextChars: 1_000_000,
  extract: true,
};

export type ConfigOverride = {
  confidence?: Partial<Omit<ConfidenceConfig, 'priors' | 'provenanceWeights'>> & {
    priors?: Partial<ConfidenceConfig['priors']>;
    provenanceWeights?: Partial<ConfidenceConfig['provenanceWeights']>;
  };
  snapshotEvery?: number;
  maxTextChars?: number;
  extract?: boolean;
};

export function resolveConfig(override: ConfigOverride = {}): MemoryConfig {
  const c = override.confidence ?? {};
  const config: MemoryConfig = {
    confidence: {
      ...DEFAULT_CONFIG.confidence,
      ...stripUndefined(c),
      priors: { ...DEFAULT_CONFIG.confidence.priors, ...stripUndefined(c.priors ?? {}) },
      provenanceWeights: {
        ...DEFAULT_CONFIG.confidence.provenanceWeights,
        ...stripUndefined(c.provenanceWeights ?? {}),
      },
    },
    snapshotEvery: override.snapshotEvery ?? DEFAULT_CONFIG.snapshotEvery,
    maxTextChars: override.maxTextChars ?? DEFAULT_CONFIG.maxTextChars,
    extract: override.extract ?? DEFAULT_CONFIG.extract,
  };
  validateConfig(config);
  return config;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function validateConfig(config: MemoryConfig): void {
  const { priors, provenanceWeights, concentration, halfLifeDays, decayFloor } = config.confidence;
  for (const [k, p] of Object.entries(priors)) {
    if (!(p > 0 && p < 1)) throw new Error(`Prior "${k}" must be between 0 and 1 (exclusive), got ${p}.`);
  }
  for (const [k, w] of Object.entries(provenanceWeights)) {
    if (!(w >= 0) || !Number.isFinite(w)) throw new Error(`Provenance weight "${k}" must be a number >= 0, got ${w}.`);
  }
  if (!(concentration > 0)) throw new Error(`Concentration must be > 0, got ${concentration}.`);
  if (!(halfLifeDays > 0)) throw new Error(`Decay half-life must be > 0 days, got ${halfLifeDays}.`);
  if (!(decayFloor >= 0 && decayFloor < 1)) throw new Error(`Decay floor must be in [0, 1), got ${decayFloor}.`);
  if (!(config.snapshotEvery >= 1)) throw new Error(`snapshotEvery must be >= 1, got ${config.snapshotEvery}.`);
}
