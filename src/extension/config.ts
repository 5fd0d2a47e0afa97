/**
 * The `recall.*` settings, and the part of them the memory service reads from
 * `<memory>/config.json` (so every client of one memory, CLI and MCP included, uses the same
 * numbers). The settings win for keys a person set; keys never set leave config.json alone.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveMemoryFolder } from '../service/rpc/paths.js';
import { SETTINGS, SETTINGS_SECTION } from './ids.js';

export const SECTION = SETTINGS_SECTION;

export interface ProvenanceWeights {
  external: number;
  user: number;
  agent: number;
}

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
  };
  extraction: { languageModel: boolean; modelFamily: string };
}

export const DEFAULT_WEIGHTS: ProvenanceWeights = { external: 1.0, user: 0.8, agent: 0.05 };

export const KEYS = SETTINGS;

/** Settings that go into config.json. */
const SERVICE_KEYS = [KEYS.halfLifeDays, KEYS.provenanceWeights, KEYS.embeddingsEnabled, KEYS.embeddingsModelPath, KEYS.embeddingsAllowDownload];

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const weights = { ...DEFAULT_WEIGHTS, ...(c.get<Partial<ProvenanceWeights>>(KEYS.provenanceWeights) ?? {}) };
  return {
    memory: memoryFolder(c.get<string>(KEYS.memoryFolder) ?? ''),
    halfLifeDays: c.get<number>(KEYS.halfLifeDays) ?? 90,
    provenanceWeights: weights,
    http: { enabled: c.get<boolean>(KEYS.httpEnabled) ?? false, port: c.get<number>(KEYS.httpPort) ?? 8788 },
    embeddings: {
      enabled: c.get<boolean>(KEYS.embeddingsEnabled) ?? false,
      modelPath: c.get<string>(KEYS.embeddingsModelPath) ?? '',
      allowDownload: c.get<boolean>(KEYS.embeddingsAllowDownload) ?? false,
    },
    autoIngest: {
      copilotChat: c.get<boolean>(KEYS.autoIngestCopilotChat) ?? true,
      claudeCode: c.get<boolean>(KEYS.autoIngestClaudeCode) ?? false,
      claudeCodeFolder: claudeCodeFolder(c.get<string>(KEYS.autoIngestClaudeCodeFolder) ?? ''),
    },
    extraction: {
      languageModel: c.get<boolean>(KEYS.extractionLanguageModel) ?? false,
      modelFamily: (c.get<string>(KEYS.extractionModelFamily) ?? '').trim(),
    },
  };
}

/** `~` expands; empty means where Claude Code keeps its transcripts. */
function claudeCodeFolder(setting: string): string {
  const trimmed = setting.trim();
  if (!trimmed) return path.join(os.homedir(), '.claude', 'projects');
  if (trimmed === '~' || trimmed.startsWith('~/')) return path.join(os.homedir(), trimmed.slice(1));
  return path.resolve(trimmed);
}

/** `${workspaceFolder}` and `~` expand; empty means $RECALL_HOME, else ~/.recall. */
function memoryFolder(setting: string): string {
  const trimmed = setting.trim();
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
 * What config.json should say for the settings. `explicitOnly`: only keys a person set somewhere
 * (at activation, so an untouched VS Code never overrides a config.json edited by hand); after a
 * settings change every key is written, so resetting a setting resets the service too.
 */
export function desiredServiceConfig(s: Settings, explicitOnly: boolean): Json {
  const c = vscode.workspace.getConfiguration(SECTION);
  const isSet = (key: string): boolean => {
    if (!explicitOnly) return true;
    const i = c.inspect(key);
    return i !== undefined && [i.globalValue, i.workspaceValue, i.workspaceFolderValue].some((v) => v !== undefined);
  };
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
