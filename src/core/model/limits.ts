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
  /** Facts one traversal gathers, counted inside each hop: a hub entity must not dump the graph. */
  traverseFacts: 500,
  /** Characters of a question or of words to match. */
  queryChars: 10_000,
  /**
   * Distinct words of one question searched, and terms of one keyword MATCH: FTS4 refuses an
   * expression of a few thousand (10,000 characters of Chinese are as many pairs). The first are kept.
   */
  matchTerms: 256,
  /** Characters of a name: an entity, a predicate, an extractor. */
  nameChars: 200,
  /** Characters of a knowledge item's statement (a sentence or two, in the words of whoever said it). */
  statementChars: 500,
  /** Characters of a sentence the offline reader takes as one item; longer is a paragraph the splitter could not cut. */
  knowledgeSentenceChars: 300,
  /** Items the offline reader takes from one turn at most: a pasted document is not a list of rules. */
  knowledgeItemsPerTurn: 12,
  /** Bytes of a memory file read whole (AGENTS.md, CLAUDE.md, Cursor rules…): past it, a clear error asks to split it. */
  memoryFileBytes: 256 * 1024,
  /** Knowledge items one memory file yields at most; past it, a clear error. */
  memoryFileItems: 1000,
  /** A workspace's nested AGENTS.md / CLAUDE.md: folders deep below it, folders looked in, and files read at most. */
  nestedMemoryDepth: 4,
  nestedMemoryFolders: 2000,
  nestedMemoryFiles: 50,
  /** Claude Code's `@path` imports of a CLAUDE.md: hops followed (Claude Code's own bound) and files read at most. */
  claudeImportHops: 5,
  claudeImportFiles: 20,
  /** Code places one `recall_remember` cites (`src/db.ts:10-20`): each becomes an anchor. */
  citations: 10,
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
  /**
   * HTTP connections open at once that have not yet sent the bearer token, and how long one may
   * stay so: far below any open-files limit, so slow strangers cannot starve the token's holders.
   */
  httpStrangers: 128,
  httpStrangerMs: 10_000,
  /** Bytes of one memory-service message: a batch of episodes at the 1 MB text limit fits. */
  serviceMessageBytes: 64 * 1024 * 1024,
  /** Code anchors kept from one text (an episode, a fact's names). */
  anchorsPerText: 10,
  /** Anchors of one `anchors.set` (a fact's own and its evidence's): a pulled event with more is refused. */
  anchorsPerEvent: 100,
  /** Anchors one answer looks at; past it an anchor is "unchecked" without touching the disk. */
  anchorsPerAnswer: 1000,
  /** Files one answer checks its facts' anchors against; past it an anchor is "unchecked". */
  anchorFilesPerAnswer: 64,
  /** Anchors one answer reads and hashes whatever the time, so a busy machine still gets the first facts' state. */
  anchorFilesAlways: 8,
  /** Milliseconds one answer spends checking anchors (inside a file too) before the rest are "unchecked". */
  anchorCheckMs: 150,
  /** Bytes of a file that can be anchored to and checked (a bigger one is not read). */
  anchorFileBytes: 2 * 1024 * 1024,
  /** Characters hashed looking for a changed line range elsewhere in its file (moved code), nearest places first. */
  anchorScanChars: 4 * 1024 * 1024,
  /** Bytes of files one batch of texts reads to take anchors, and bytes of their lines it keeps at once. */
  anchorBatchBytes: 32 * 1024 * 1024,
  anchorHeldBytes: 8 * 1024 * 1024,
  /** Non-blank characters an anchor in a file that is not source code hashes at least: a shorter text could be guessed from its hash. */
  anchorMinChars: 64,
  /** Lines a symbol anchor's hash covers at most, from its definition down. */
  anchorSymbolLines: 80,
  /** Tokens of one brief (recall_brief, `recall brief`), counted as characters / 4 (core/memory/brief.ts). */
  brief: 2000,
  /** Facts of each kind a brief weighs before it picks (a hub of thousands must not be read whole). */
  briefCandidates: 100,
  /** Characters of a session's title (a longer one is cut by the parser). */
  sessionTitleChars: 200,
  /** Facts drawn around one entity of the graph view (one expansion): neighbourhoods, never the whole graph. */
  neighbourhood: 200,
  /** Items, then bytes, of one export page: a whole memory travels as many messages far below the message limit. */
  exportPageItems: 1000,
  exportPageBytes: 8 * 1024 * 1024,
  /** Bytes of a transcript read as a whole (JSON documents, markdown); JSONL past `ingestChunkBytes` is read a block of lines at a time. */
  wholeTranscriptBytes: 64 * 1024 * 1024,
  ingestChunkBytes: 4 * 1024 * 1024,
  /** Bytes of one turn of a text transcript (markdown) past which the ingest summary calls it suspect: markers around it may have been misread. */
  suspectTurnBytes: 32 * 1024,
  /** Files `recall ingest DIR` looks at in one folder tree; past it the walk stops and says so. */
  ingestWalkFiles: 100_000,
  /**
   * Journal bytes past the last snapshot after which the service snapshots even while requests keep
   * coming (else it waits for a pause): at least this, and at least the snapshot's own size, so the
   * interval grows with the memory and replaying the tail never costs more than loading the snapshot.
   */
  snapshotBacklogBytes: 256 * 1024 * 1024,
  /** Milliseconds one git command may take to tell who wrote a file (service/authorship.ts); past it the file counts as others'. */
  gitAuthorshipMs: 10_000,
  /** Bytes of a git command's answer there (one author a commit that touched the file). */
  gitAuthorshipBytes: 32 * 1024 * 1024,
  // ---- checks on rules and the agent hooks (model/checks.ts, cli/hook.ts)
  /** Patterns of one rule's check, all kinds together, and characters of each (and of `instead`). */
  checkPatterns: 20,
  checkPatternChars: 200,
  /** Characters of a tool call a decision records (the command, path or URL that met a check), secrets redacted. */
  hookCallChars: 300,
  /** Bytes of a hook's input read from stdin; a larger payload is not a tool call this reads (it allows). */
  hookInputBytes: 4 * 1024 * 1024,
  /**
   * Milliseconds a hook waits for the memory, a cold service start included, before it answers
   * "allow" with nothing added: well inside every host's own timeout (30 s or more).
   */
  hookDeadlineMs: 1300,
  /** Rules with checks one decision weighs (a project's and the global ones). */
  hookRules: 500,
  /** Projects whose last hook brief the hooks' cache keeps (the most recent ones). */
  hookCacheBriefs: 50,
  /** Milliseconds a brief made for a hook is given again while the memory has not changed (its dates age). */
  hookBriefReuseMs: 10 * 60_000,
  /** Bytes of the hooks' cache a cold hook reads, and of the spool of its decisions the service takes in. */
  hookCacheBytes: 4 * 1024 * 1024,
  hookSpoolBytes: 4 * 1024 * 1024,
  /** Bytes of one spooled call (a larger one is answered but not recorded). */
  hookSpoolLineBytes: 64 * 1024,
} as const;

/** Smallest brief budget, in tokens: the header and one line fit. */
export const BRIEF_MIN_TOKENS = 60;

/** How many results a request gets when it does not say (each at most its LIMITS entry). */
export const LIMIT_DEFAULTS = {
  query: 10,
  search: 10,
  episodes: 20,
  overview: 10,
  page: 200,
  depth: 1,
  brief: 300,
  neighbourhood: 60,
} as const satisfies Partial<Record<keyof typeof LIMITS, number>>;

/** How many more entity and vector hits a query scoped to a project fetches: other projects' are dropped after the fetch. */
export const SCOPE_OVERFETCH = 4;

/** A month named without its year ("in June") is read as that month of each of the memory's latest this many years. */
export const BARE_MONTH_YEARS = 5;

/** Team sync's pace (src/sync): events per round trip, how often to look without a wake-up, how long to wait before retrying at most. */
export const SYNC_LIMITS = {
  batch: 1000,
  pollMs: 5_000,
  retryMinMs: 500,
  retryMaxMs: 30_000,
  /** Bytes of one pulled event (its body as JSON text): as big as one service message, the largest write a member can make. */
  eventBytes: LIMITS.serviceMessageBytes,
  /** Bytes of event bodies one pull round takes in (at least one row). */
  pullBytes: LIMITS.serviceMessageBytes,
  /** Turns of one pulled episodes.add, and ids listed in one pulled forget. */
  episodesPerEvent: 1000,
  forgetIds: 100_000,
  /** How far ahead of this machine's clock a peer's time may be before it is clamped (a verdict dated 2099 must not win forever). */
  clockSkewMs: 10_000,
  /** Days what a forget from the team erased here is held aside, so the person can undo it. */
  heldForgetDays: 30,
  /** Quarantined rows kept listed (the oldest go first); their bodies stay on the server, never here. */
  quarantineEntries: 10_000,
} as const;
