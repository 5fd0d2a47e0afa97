/**
 * Every id the extension contributes, in one vscode-free module: commands.ts registers exactly
 * these commands, the views are created with these ids, and test/extension-manifest.test.ts checks
 * that package.json declares the same ones.
 */

export const VIEW_CONTAINER = 'recall';

export const VIEWS = {
  entities: 'recall.entities',
  episodes: 'recall.episodes',
} as const;

export const MCP_PROVIDER_ID = 'recall.memory';
export const MCP_SERVER_LABEL = 'Recall memory';

export const EPISODE_SCHEME = 'recall-episode';
export const FACT_SCHEME = 'recall-fact';

/** Commands a person sees in the palette (category "Recall") and, where they fit, on tree items. */
export const COMMANDS = {
  search: 'recall.search',
  markWrong: 'recall.markFactWrong',
  confirm: 'recall.confirmFact',
  sameAs: 'recall.sameAs',
  findSaidTwice: 'recall.findSaidTwice',
  addFact: 'recall.addFact',
  forgetEntity: 'recall.forgetEntity',
  importConversations: 'recall.importConversations',
  ingestChatSessions: 'recall.ingestChatSessions',
  showStatus: 'recall.showStatus',
  openMemoryFolder: 'recall.openMemoryFolder',
  restartService: 'recall.restartService',
  refresh: 'recall.refresh',
  showLog: 'recall.showLog',
  showCurrentProjectOnly: 'recall.showCurrentProjectOnly',
  showAllProjects: 'recall.showAllProjects',
  reconfirm: 'recall.reconfirmFact',
  addInstructions: 'recall.addInstructions',
  showGraph: 'recall.showGraph',
  turnOnSemanticSearch: 'recall.turnOnSemanticSearch',
  chooseChatSources: 'recall.chooseChatSources',
  installHooks: 'recall.installHooks',
  removeHooks: 'recall.removeHooks',
  editCheck: 'recall.editRuleCheck',
  // Internal: wired to tree items, hidden from the palette.
  loadMore: 'recall.loadMore',
  openEpisode: 'recall.openEpisode',
} as const;

export type CommandKey = keyof typeof COMMANDS;
export type CommandId = (typeof COMMANDS)[CommandKey];

/** Commands that only make sense from a tree item: hidden from the palette. */
export const INTERNAL_COMMANDS: readonly CommandId[] = [COMMANDS.loadMore, COMMANDS.openEpisode];

/** Context keys the manifest's `when` clauses use. */
export const CONTEXT = {
  /** 'idle' | 'connecting' | 'connected' | 'disconnected' | 'error' */
  state: 'recall.state',
  /** true once we know the memory holds nothing. */
  empty: 'recall.empty',
} as const;

/** Settings, under `recall.` (config.ts reads them; package.json declares them). */
export const SETTINGS_SECTION = 'recall';
export const SETTINGS = {
  memoryFolder: 'memoryFolder',
  halfLifeDays: 'confidence.halfLifeDays',
  provenanceWeights: 'confidence.provenanceWeights',
  httpEnabled: 'http.enabled',
  httpPort: 'http.port',
  embeddingsEnabled: 'embeddings.enabled',
  embeddingsModelPath: 'embeddings.modelPath',
  embeddingsAllowDownload: 'embeddings.allowDownload',
  autoIngestCopilotChat: 'autoIngest.copilotChat',
  autoIngestClaudeCode: 'autoIngest.claudeCode',
  autoIngestClaudeCodeFolder: 'autoIngest.claudeCodeFolder',
  autoIngestCline: 'autoIngest.cline',
  autoIngestRooCode: 'autoIngest.rooCode',
  autoIngestCodex: 'autoIngest.codex',
  autoIngestCodexFolder: 'autoIngest.codexFolder',
  autoIngestSpecstory: 'autoIngest.specstory',
  extractionLanguageModel: 'extraction.languageModel',
  extractionModelFamily: 'extraction.modelFamily',
  syncUrl: 'sync.url',
  chatToolSurface: 'chat.toolSurface',
} as const;
