/**
 * `recall mcp`: the MCP server over stdio (default) or Streamable HTTP. A client of the memory
 * service like every surface; it never opens the store. Logs go to stderr: stdout is the protocol.
 */
import * as path from 'node:path';
import { MCP_HTTP_DEFAULTS } from '../core/model/defaults.js';
import { startHttpServer } from '../mcp/http.js';
import { resolveHttpToken } from '../mcp/http-token.js';
import { LazyMemory } from '../mcp/memory.js';
import { createMcpServer } from '../mcp/server.js';
import { RobustStdioTransport } from '../mcp/stdio.js';
import { UsageError } from './usage.js';

export interface McpCommandOptions {
  memory: string;
  http?: boolean;
  port?: string;
  host?: string;
  token?: string;
  tokenFile?: string;
  /** The project this server's connection works in (null: global): `--project`, else its working folder's. */
  project?: string | null;
  workspace?: string;
  /** The person's consent: the client's model (MCP sampling) may read the notes agents store. */
  sampling?: boolean;
}

export async function runMcp(opts: McpCommandOptions, log: (msg: string) => void): Promise<number> {
  const memory = new LazyMemory(opts.memory, path.join(__dirname, 'service.js'), (m) => log(`recall mcp: ${m}`), {
    project: opts.project,
    workspace: opts.workspace,
  });
  // A stateless HTTP request has no way back to the client's model: sampling is stdio's.
  if (opts.sampling && opts.http)
    throw new UsageError('--sampling works over stdio only (Streamable HTTP here answers each request alone).');
  if (!opts.http) {
    const server = createMcpServer(memory, opts.sampling ? { sampling: { log: (m) => log(`recall mcp: ${m}`) } } : {});
    const transport = new RobustStdioTransport();
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    await server.connect(transport);
    await closed;
    await memory.close();
    return 0;
  }
  const port = opts.port === undefined ? MCP_HTTP_DEFAULTS.port : Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got "${opts.port}".`);
  const { token, note } = resolveHttpToken({
    memory: opts.memory,
    flag: opts.token,
    env: process.env.RECALL_MCP_TOKEN,
    file: opts.tokenFile,
  });
  log(`recall mcp: ${note}`);
  const running = await startHttpServer({
    memory,
    port,
    host: opts.host ?? MCP_HTTP_DEFAULTS.host,
    token,
    log: (m) => log(`recall mcp: ${m}`),
  });
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  log('recall mcp: shutting down');
  await running.close();
  await memory.close();
  return 0;
}
