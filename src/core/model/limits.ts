/**
 * Every bound a request is held to, in one place: the memory enforces them, and the tool catalogue,
 * the CLI and the extension read them from here so no layer is stricter or looser than another.
 */
export const LIMITS = {
  /** Results of one question (recall_query). */
  query: 50,
  /** Entities of one search. */
  search: 100,
  /** Episodes of one listing. */
  episodes: 500,
  /** Hops of one traversal. */
  depth: 3,
  /** Characters of a question or of words to match. */
  queryChars: 10_000,
} as const;
