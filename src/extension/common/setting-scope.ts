/**
 * Who may set each `recall.*` setting. A repository's `.vscode/settings.json` is not the person:
 * whoever can commit to it must not be able to move the memory or its data (where it lives, where
 * it syncs, which folders and models it reads, which model it sends turns to), open it to other
 * clients, or change how much evidence counts. Those settings are the person's alone: package.json
 * gives them `machine` scope, and config.ts reads only their user-level value, whatever an editor
 * merges in. Switches that make Recall read or send more may be turned off by a workspace, never
 * on. vscode-free, so test/extension-manifest.test.ts checks package.json against these lists.
 */
import type { SettingKey } from '../../core/model/defaults.js';
import { SETTINGS } from './ids.js';

/** User (or remote machine) settings only. */
export const PERSON_ONLY_SETTINGS: readonly SettingKey[] = [
  SETTINGS.memoryFolder,
  SETTINGS.syncUrl,
  // config.json is the memory's, shared by every workspace and client: a workspace value would stay for all of them.
  SETTINGS.halfLifeDays,
  SETTINGS.provenanceWeights,
  SETTINGS.embeddingsEnabled,
  SETTINGS.embeddingsModelPath,
  SETTINGS.embeddingsAllowDownload,
  // Serves the whole memory to other clients of this machine.
  SETTINGS.httpEnabled,
  SETTINGS.httpPort,
  // Sources that hold every project's sessions on this machine, and where they are read from.
  SETTINGS.autoIngestClaudeCode,
  SETTINGS.autoIngestClaudeCodeFolder,
  SETTINGS.autoIngestCline,
  SETTINGS.autoIngestRooCode,
  SETTINGS.autoIngestCodex,
  SETTINGS.autoIngestCodexFolder,
  // Which model the turns are sent to.
  SETTINGS.extractionModelFamily,
];

/** This workspace's own sources and the extractor: a workspace may turn them off for itself. */
export const WORKSPACE_MAY_TURN_OFF: readonly SettingKey[] = [
  SETTINGS.autoIngestCopilotChat,
  SETTINGS.autoIngestSpecstory,
  SETTINGS.extractionLanguageModel,
];

/** Harmless per workspace. */
export const WORKSPACE_MAY_SET: readonly SettingKey[] = [SETTINGS.chatToolSurface];

/** What an editor reports of one setting (vscode's `inspect()`), layer by layer. */
export interface SettingLayers<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * The value to act on. `merged` is what the editor answers (`get()`); `fallback` the default when
 * it reports none. `ignored`: a workspace value was set and is not what is acted on.
 */
export function trustedValue<T>(
  key: SettingKey,
  layers: SettingLayers<T> | undefined,
  merged: T,
  fallback: T,
): { value: T; ignored: boolean } {
  const person = layers?.globalValue ?? layers?.defaultValue ?? fallback;
  const workspace: unknown[] = [layers?.workspaceValue, layers?.workspaceFolderValue].filter((v) => v !== undefined);
  if (PERSON_ONLY_SETTINGS.includes(key)) return { value: person, ignored: workspace.length > 0 };
  if (WORKSPACE_MAY_TURN_OFF.includes(key)) {
    const on = person === true && !workspace.includes(false);
    return { value: on as T, ignored: person !== true && workspace.includes(true) };
  }
  return { value: merged, ignored: false };
}
