/**
 * The MCP server definition VS Code lists (and starts when a chat needs it): the bundled
 * `dist/cli.js mcp` over stdio against the configured memory. `process.execPath` is the editor's
 * own runtime: Electron on the desktop (ELECTRON_RUN_AS_NODE makes it plain Node), Node in a
 * remote or server host, so no separate Node install is needed anywhere.
 *
 * Each tool once: VS Code 1.104 registers every tool of a provided server definition in the same
 * list as the native LM tools (chat, and any extension reading vscode.lm.tools), with no way to
 * hide a server's tools from chat. So the definition is offered only when `recall.chat.toolSurface`
 * is "mcp", and the native tools' manifest `when` hides them then: one set either way.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { SETTING_DEFAULTS } from '../../core/model/defaults.js';
import type { RecallExtension } from '../ctx.js';
import { workspaceProject } from '../connection.js';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL, SETTINGS, SETTINGS_SECTION } from '../common/ids.js';

/** Which registration chat sees: "native" (the LM tools) or "mcp" (this provider's server). */
export function toolSurface(): 'native' | 'mcp' {
  const v = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>(SETTINGS.chatToolSurface, SETTING_DEFAULTS['chat.toolSurface']);
  return v === 'mcp' ? 'mcp' : 'native';
}

export function mcpServerDefinition(ctx: RecallExtension): vscode.McpStdioServerDefinition {
  const version = String(ctx.extension.extension.packageJSON?.version ?? '0');
  // The server's cwd is not the workspace: the workspace's project is passed, so a chat sees this project's memory.
  const { project } = workspaceProject();
  return new vscode.McpStdioServerDefinition(
    MCP_SERVER_LABEL,
    process.execPath,
    [ctx.cliScript, '--memory', ctx.memory, 'mcp', ...(project ? ['--project', project] : [])],
    { ELECTRON_RUN_AS_NODE: '1' },
    version,
  );
}

export function registerMcpProvider(ctx: RecallExtension): void {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    ctx.log.warn('this editor cannot take MCP server definitions from extensions; run `recall mcp` from its MCP settings instead');
    return;
  }
  const changed = ctx.push(new vscode.EventEmitter<void>());
  ctx.push(ctx.onDidChangeFolder(() => changed.fire()));
  ctx.push(vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()));
  ctx.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SETTINGS_SECTION}.${SETTINGS.chatToolSurface}`)) changed.fire();
    }),
  );
  ctx.push(
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => (toolSurface() === 'mcp' ? [mcpServerDefinition(ctx)] : []),
      resolveMcpServerDefinition: (server) => {
        if (!fs.existsSync(ctx.cliScript)) throw new Error(`The Recall MCP server is missing (${ctx.cliScript}); reinstall the extension.`);
        ctx.log.info(`starting the MCP server: ${process.execPath} ${ctx.cliScript} --memory ${ctx.memory} mcp`);
        return server;
      },
    }),
  );
}
