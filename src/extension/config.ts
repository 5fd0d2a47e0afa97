/**
 * The `recall.*` settings, and the part of them the memory service reads from
 * `<memory>/config.json` (so every client of one memory, CLI and MCP included, uses the same
 * numbers). The settings win for keys a person set; keys never set leave config.json alone.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTING_DEFAULTS, type SettingKey } from '../core/model/defaults.js';
import { resolveMemoryFolder } from '../service/rpc/paths.js';
import { SETTINGS, SETTINGS_SECTION } from './common/ids.js';
import { trustedValue } from './common/setting-scope.js';

export const SECTION = SETTINGS_SECTION;

export type ProvenanceWeights = (typeof SETTING_DEFAULTS)['confidence.provenanceWeights'];

export interface Settings {
  /** Absolute memory folder (setting, else $RECALL_HOME, else ~/.recall). */
  memory: string;
  halfLifeDays: number;
  provenanceWeights: ProvenanceWeights;
  http: { enabled: boolean; port: number };
  embeddings: { enabled: boolean; modelPath: string; allowDownload: boolean };
  autoIngest: {
    copilotChat: boolean;
    claudeCode: boolean;
    /** Absolute folder of Claude Code's projects (setting, else ~/.claude/projects). */
    claudeCodeFolder: string;
    cline: boolean;
    rooCode: boolean;
    codex: boolean;
    /** Absolute folder of Codex CLI's sessions (setting, else ~/.codex/sessions). */
    codexFolder: string;
    specstory: boolean;
  };
  extraction: { languageModel: boolean; modelFamily: string };
}

export const KEYS = SETTINGS;

/** Settings that go into config.json. */
const SERVICE_KEYS = [
  KEYS.halfLifeDays,
  KEYS.provenanceWeights,
  KEYS.embeddingsEnabled,
  KEYS.embeddingsModelPath,
  KEYS.embeddingsAllowDownload,
];

/**
 * A setting as the extension acts on it: a workspace value only where a workspace may set it
 * (setting-scope.ts), whatever the editor merges (an older editor or a remote may not enforce
 * package.json's scopes). VS Code answers package.json's default for a key nobody set; the same
 * default, from its one source, if it has none.
 */
function setting<K extends SettingKey>(
  c: vscode.WorkspaceConfiguration,
  key: K,
): { value: (typeof SETTING_DEFAULTS)[K]; ignored: boolean } {
  const fallback = SETTING_DEFAULTS[key];
  return trustedValue(key, c.inspect<(typeof SETTING_DEFAULTS)[K]>(key), c.get(key, fallback), fallback);
}

/** One setting's value as the extension acts on it. */
export function settingValue<K extends SettingKey>(key: K): (typeof SETTING_DEFAULTS)[K] {
  return setting(vscode.workspace.getConfiguration(SECTION), key).value;
}

/** The settings a workspace set that are not acted on (full names): the person is told. */
export function ignoredWorkspaceSettings(): string[] {
  const c = vscode.workspace.getConfiguration(SECTION);
  return Object.values(KEYS)
    .filter((key) => setting(c, key).ignored)
    .map((key) => `${SECTION}.${key}`);
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const get = <K extends SettingKey>(key: K): (typeof SETTING_DEFAULTS)[K] => setting(c, key).value;
  return {
    memory: memoryFolder(get(KEYS.memoryFolder)),
    halfLifeDays: get(KEYS.halfLifeDays),
    // A partial object (one weight set) keeps the defaults of the others.
    provenanceWeights: { ...SETTING_DEFAULTS[KEYS.provenanceWeights], ...get(KEYS.provenanceWeights) },
    http: { enabled: get(KEYS.httpEnabled), port: get(KEYS.httpPort) },
    embeddings: {
      enabled: get(KEYS.embeddingsEnabled),
      modelPath: get(KEYS.embeddingsModelPath),
      allowDownload: get(KEYS.embeddingsAllowDownload),
    },
    autoIngest: {
      copilotChat: get(KEYS.autoIngestCopilotChat),
      claudeCode: get(KEYS.autoIngestClaudeCode),
      claudeCodeFolder: homeFolder(get(KEYS.autoIngestClaudeCodeFolder), '.claude', 'projects'),
      cline: get(KEYS.autoIngestCline),
      rooCode: get(KEYS.autoIngestRooCode),
      codex: get(KEYS.autoIngestCodex),
      codexFolder: homeFolder(get(KEYS.autoIngestCodexFolder), '.codex', 'sessions'),
      specstory: get(KEYS.autoIngestSpecstory),
    },
    extraction: {
      languageModel: get(KEYS.extractionLanguageModel),
      modelFamily: get(KEYS.extractionModelFamily).trim(),
    },
  };
}

/** `~` expands; empty means the agent's own folder under the home folder (`fallback`). */
function homeFolder(setting: string, ...fallback: string[]): string {
  const trimmed = setting.trim();
  if (!trimmed) return path.join(os.homedir(), ...fallback);
  if (trimmed === '~' || trimmed.startsWith('~/')) return path.join(os.homedir(), trimmed.slice(1));
  return path.resolve(trimmed);
}

/**
 * `${workspaceFolder}` and `~` expand; empty means $RECALL_HOME, else ~/.recall. Only ever the
 * person's own setting: a repository's could otherwise put the memory inside itself.
 */
function memoryFolder(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) return resolveMemoryFolder();
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const expanded = trimmed.replace(/\$\{workspaceFolder\}/g, ws ?? '');
  if (!path.isAbsolute(expanded) && !expanded.startsWith('~') && ws) return resolveMemoryFolder(path.join(ws, expanded));
  return resolveMemoryFolder(expanded);
}

export function affects(e: vscode.ConfigurationChangeEvent, ...keys: string[]): boolean {
  return keys.some((k) => e.affectsConfiguration(`${SECTION}.${k}`));
}

export function affectsServiceConfig(e: vscode.ConfigurationChangeEvent): boolean {
  return affects(e, ...SERVICE_KEYS);
}

type Json = Record<string, unknown>;

/**
 * What config.json should say for the settings. `explicitOnly`: only keys the person set in their
 * user settings (at activation, so an untouched VS Code never overrides a config.json edited by
 * hand); after a settings change every key is written, so resetting a setting resets the service
 * too. config.json serves every workspace and client, so a workspace's value never goes there.
 */
export function desiredServiceConfig(s: Settings, explicitOnly: boolean): Json {
  const c = vscode.workspace.getConfiguration(SECTION);
  const isSet = (key: string): boolean => !explicitOnly || c.inspect(key)?.globalValue !== undefined;
  const confidence: Json = {};
  if (isSet(KEYS.halfLifeDays)) confidence.halfLifeDays = s.halfLifeDays;
  if (isSet(KEYS.provenanceWeights)) confidence.provenanceWeights = { ...s.provenanceWeights };
  const embeddings: Json = {};
  if (isSet(KEYS.embeddingsEnabled)) embeddings.enabled = s.embeddings.enabled;
  if (isSet(KEYS.embeddingsModelPath)) embeddings.modelPath = s.embeddings.modelPath;
  if (isSet(KEYS.embeddingsAllowDownload)) embeddings.allowDownload = s.embeddings.allowDownload;
  const out: Json = {};
  if (Object.keys(confidence).length) out.confidence = confidence;
  if (Object.keys(embeddings).length) out.embeddings = embeddings;
  return out;
}
