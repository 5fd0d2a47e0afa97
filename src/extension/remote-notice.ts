/**
 * Says where the memory lives when the window is remote, and, once per memory folder, warns when
 * it sits on a container's own file system (common/remote-memory.ts decides), offering to keep it.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RecallExtension } from './ctx.js';
import { containerNotice, remoteKind, survivesContainer, volumeMount } from './common/remote-memory.js';
import { SETTINGS, SETTINGS_SECTION } from './common/ids.js';

const COPY = 'Copy Volume Mount';
const SYNC = 'Set Up Team Sync';
const NEVER = "Don't Show Again";

export function noticeRemoteMemory(ctx: RecallExtension): void {
  const kind = remoteKind(vscode.env.remoteName, process.env);
  if (kind === 'local') return;
  ctx.log.info(`remote window (${vscode.env.remoteName ?? kind}): the memory is ${ctx.memory}, on that machine`);
  if (kind !== 'container' && kind !== 'codespaces') return;
  let mountinfo = '';
  try {
    mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    // No /proc: nothing tells the mounts apart, so the warning stands.
  }
  if (survivesContainer(ctx.memory, mountinfo)) return;
  const key = `recall.containerNotice.dismissed:${ctx.memory}`;
  if (ctx.extension.globalState.get<boolean>(key)) return;
  const message = containerNotice(kind, ctx.memory);
  ctx.log.warn(message);
  void vscode.window.showWarningMessage(`Recall: ${message}`, COPY, SYNC, NEVER).then(async (choice) => {
    if (choice === COPY) {
      await vscode.env.clipboard.writeText(volumeMount(ctx.memory));
      void vscode.window.showInformationMessage('Recall: paste it into .devcontainer/devcontainer.json, then rebuild the container.');
    } else if (choice === SYNC) {
      await vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${SETTINGS.syncUrl}`);
    } else if (choice === NEVER) {
      await ctx.extension.globalState.update(key, true);
    }
  });
}
