/** What the stages of retrieval hand each other (retrieve.ts), in one place. */
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import type { EpisodeFilter, Hit } from '../store/search-index.js';

export type { EpisodeFilter, Hit };

/** A keyword of a question, its BM25 weight, and (for a speaker's name) the one column it is searched in. */
export interface Term {
  term: string;
  weight: number;
  column?: 'speaker';
}

/** Nearest episodes, entities and facts by embedding (rowids), best first. */
export interface VectorHits {
  episode: Hit[];
  entity: Hit[];
  fact: Hit[];
}

export interface DateMention {
  /** The words as written, e.g. "16 November, 2023". */
  text: string;
  /** [start, end) in ms since the epoch, UTC. */
  start: number;
  end: number;
  unit: 'day' | 'week' | 'month' | 'year';
  /** Said relative to the time of asking ("yesterday"): the recipe's relative slack applies. */
  relative?: boolean;
}

/** What a question says: the words to search (with every expansion), the entities it names (ids), the dates it names. */
export interface QueryAnalysis {
  /** The question's own words, and the names of speakers it calls by an alias. */
  terms: Term[];
  /** `terms` and their expansions (misspellings, forms, spellings): what the episode search searches. */
  search: Term[];
  named: number[];
  dates: DateMention[];
}

export interface Retrieved {
  facts: FactView[];
  entities: EntityView[];
  episodes: EpisodeView[];
  /** Which retrieval channels ran, and why any did not. */
  channels: string[];
}
