/**
 * What a workspace may make Recall do. Until the person trusts the folder (VS Code's Restricted
 * Mode) Recall shows and searches the memory but reads nothing of the workspace: no chat sessions
 * saved in it are stored, no code anchors are taken or checked there (connection.ts sends no
 * workspace root), and it offers to write nothing into it. Settings a repository may not set
 * (setting-scope.ts) are ignored wherever they come from, and the person is told once per setting.
 */
import * as vscode from 'vscode';
import { ignoredWorkspaceSettings } from './config.js';
import type { RecallExtension } from './ctx.js';

/** Runs `start` now in a trusted workspace, else once the person grants trust. */
export function whenTrusted(ctx: RecallExtension, what: string, start: () => void): void {
  if (vscode.workspace.isTrusted) {
    start();
    return;
  }
  ctx.log.info(`Restricted Mode: ${what} waits until this workspace is trusted`);
  const once = ctx.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      once.dispose();
      start();
    }),
  );
}

/** A reporter of the workspace's ignored settings: each is logged, and notified, once per window. */
export function ignoredSettingsReporter(ctx: RecallExtension): () => void {
  const told = new Set<string>();
  return () => {
    const fresh = ignoredWorkspaceSettings().filter((k) => !told.has(k));
    if (!fresh.length) return;
    fresh.forEach((k) => told.add(k));
    const list = fresh.join(', ');
    ctx.log.warn(
      `this workspace's settings set ${list}; ignored: only your user settings can set where the memory lives, where it syncs, what it reads and how much evidence counts`,
    );
    void vscode.window
      .showWarningMessage(
        `Recall ignores ${list} from this workspace's settings: a repository cannot move your memory, share it, widen what it reads or change how it weighs evidence. Set them in your user settings if you want them.`,
        'Open User Settings',
      )
      .then((a) => a && vscode.commands.executeCommand('workbench.action.openSettings', fresh[0]));
  };
}

/** In Restricted Mode nothing reads this workspace's chat sessions: the command says why. */
export async function explainRestricted(what: string): Promise<void> {
  const answer = await vscode.window.showInformationMessage(
    `Recall: ${what} once you trust this workspace (it is in Restricted Mode).`,
    'Manage Workspace Trust',
  );
  if (answer) await vscode.commands.executeCommand('workbench.trust.manage');
}
