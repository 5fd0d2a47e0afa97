/**
 * The MCP server definition VS Code lists (and starts when a chat needs it): the bundled
 * `dist/cli.js mcp` over stdio against the configured memory. `process.execPath` is the editor's
 * own runtime: Electron on the desktop (ELECTRON_RUN_AS_NODE makes it plain Node), Node in a
 * remote or server host, so no separate Node install is needed anywhere.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RecallExtension } from './ctx.js';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL } from './ids.js';
import { workspaceProject } from './connection.js';

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
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => [mcpServerDefinition(ctx)],
      resolveMcpServerDefinition: (server) => {
        if (!fs.existsSync(ctx.cliScript)) throw new Error(`The Recall MCP server is missing (${ctx.cliScript}); reinstall the extension.`);
        ctx.log.info(`starting the MCP server: ${process.execPath} ${ctx.cliScript} --memory ${ctx.memory} mcp`);
        return server;
      },
    }),
  );
}
