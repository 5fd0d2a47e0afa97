/**
 * The default of every setting a person can change, whichever way they change it: VS Code's
 * `recall.*` settings (package.json declares these defaults; scripts/sync-manifest.mjs writes them
 * from here and test/extension-manifest.test.ts fails on drift), `recall mcp` flags, config.json.
 * The memory's judgement (priors, weights, half-life) is DEFAULT_CONFIG's, in config.ts.
 */
import { DEFAULT_CONFIG } from './config.js';

/** `recall mcp --http`: where it listens unless told otherwise (loopback; a token is always required). */
export const MCP_HTTP_DEFAULTS = { port: 8788, host: '127.0.0.1' } as const;

const { external, user, agent } = DEFAULT_CONFIG.confidence.provenanceWeights;

/**
 * The `recall.*` settings, keyed as package.json declares them (without the `recall.` prefix).
 * A person's correction weighs `human`, which is not a setting.
 */
export const SETTING_DEFAULTS = {
  memoryFolder: '',
  'confidence.halfLifeDays': DEFAULT_CONFIG.confidence.halfLifeDays,
  'confidence.provenanceWeights': { external, user, agent },
  'http.enabled': false,
  'http.port': MCP_HTTP_DEFAULTS.port,
  'embeddings.enabled': false,
  'embeddings.modelPath': '',
  'embeddings.allowDownload': false,
  'autoIngest.copilotChat': true,
  'autoIngest.claudeCode': false,
  'autoIngest.claudeCodeFolder': '',
  'autoIngest.cline': false,
  'autoIngest.rooCode': false,
  'autoIngest.codex': false,
  'autoIngest.codexFolder': '',
  'autoIngest.specstory': true,
  'extraction.languageModel': false,
  'extraction.modelFamily': '',
  'sync.url': '',
  /** Which of Recall's two tool registrations chat sees: the native LM tools or the MCP server's (see mcp-provider.ts). */
  'chat.toolSurface': 'native' as 'native' | 'mcp',
};

export type SettingKey = keyof typeof SETTING_DEFAULTS;
