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
  /** Entities and sessions of one overview. */
  overview: 50,
  /** Items of one page of a browsing list (the extension's tree views). */
  page: 500,
  /** Episodes asked for by id at once. */
  episodeIds: 500,
  /** Hops of one traversal. */
  depth: 3,
  /** Characters of a question or of words to match. */
  queryChars: 10_000,
  /** Characters of a name: an entity, a predicate, an extractor. */
  nameChars: 200,
  /** Characters of a session id or a source given as a filter. */
  sessionChars: 300,
  sourceChars: 500,
  /** Characters of an ISO date or date-time. */
  dateChars: 40,
  /** A note a model stores (recall_remember): its characters and the entities it names. Transcripts go up to MemoryConfig.maxTextChars. */
  noteChars: 20_000,
  noteEntities: 20,
  /** Characters of the text a tool gives a model; past it the model is told how to narrow the question. */
  toolTextChars: 16_000,
  /** Bytes of one MCP message (a stdio line, an HTTP body): tool arguments are bounded far below it. */
  mcpMessageBytes: 4 * 1024 * 1024,
  /** Bytes of one memory-service message: a batch of episodes at the 1 MB text limit fits. */
  serviceMessageBytes: 64 * 1024 * 1024,
  /** Items, then bytes, of one export page: a whole memory travels as many messages far below the message limit. */
  exportPageItems: 1000,
  exportPageBytes: 8 * 1024 * 1024,
  /** Bytes of a transcript read as a whole (JSON documents, markdown); JSONL past `ingestChunkBytes` is read a block of lines at a time. */
  wholeTranscriptBytes: 64 * 1024 * 1024,
  ingestChunkBytes: 4 * 1024 * 1024,
  /**
   * Journal bytes past the last snapshot after which the service snapshots even while requests keep
   * coming (else it waits for a pause): at least this, and at least the snapshot's own size, so the
   * interval grows with the memory and replaying the tail never costs more than loading the snapshot.
   */
  snapshotBacklogBytes: 256 * 1024 * 1024,
} as const;

/** How many results a request gets when it does not say (each at most its LIMITS entry). */
export const LIMIT_DEFAULTS = {
  query: 10,
  search: 10,
  episodes: 20,
  overview: 10,
  page: 200,
  depth: 1,
} as const satisfies Partial<Record<keyof typeof LIMITS, number>>;
