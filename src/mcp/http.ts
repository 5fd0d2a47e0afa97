/**
 * MCP over Streamable HTTP at /mcp. Loopback by default; Host and Origin are checked against the
 * address we serve (DNS-rebinding protection); a bearer token is always required (loopback is
 * open to every local user; http-token.ts says where it comes from); request bodies are bounded,
 * and so are connections that have not shown the token. Stateless: each POST gets a fresh
 * server and transport, so no session state can leak or pile up.
 */
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '../core/model/limits.js';
import type { MemoryAccess } from '../tools/catalogue.js';
import { createMcpServer } from './server.js';

export interface HttpOptions {
  memory: MemoryAccess;
  port: number;
  host: string;
  /** Required of every request as "Authorization: Bearer <token>". */
  token: string;
  log: (msg: string) => void;
}

export interface RunningHttpServer {
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startHttpServer(opts: HttpOptions): Promise<RunningHttpServer> {
  if (!opts.token) throw new Error('The MCP HTTP server needs a bearer token.');
  const maxBody = LIMITS.mcpMessageBytes;
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      opts.log(`http: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error.');
    });
  });
  server.requestTimeout = 60_000;
  server.headersTimeout = 15_000;
  const strangers = guardStrangers(server);

  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== '/mcp') return jsonError(res, 404, -32601, 'Not found: the MCP endpoint is /mcp.');
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(host))
      return jsonError(res, 403, -32600, `Forbidden: Host "${host}" is not this server (DNS rebinding protection).`);
    const origin = req.headers.origin?.toLowerCase();
    if (origin !== undefined && !allowedOrigins.has(origin))
      return jsonError(res, 403, -32600, `Forbidden: Origin "${origin}" is not allowed.`);
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="recall"');
      return jsonError(res, 401, -32600, 'Unauthorized: send "Authorization: Bearer <token>".');
    }
    strangers.known(req.socket);
    // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE). The SDK
    // transport would hold a GET open as an SSE stream forever, one McpServer per request.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return drainThen(req, () =>
        jsonError(res, 405, -32600, `Method not allowed: ${req.method} /mcp. This server is stateless; POST JSON-RPC messages to /mcp.`),
      );
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) return drainThen(req, () => jsonError(res, 413, -32600, `Request too large: the limit is ${maxBody} bytes.`));
    const raw = await readBody(req, maxBody);
    if (raw === undefined) return jsonError(res, 413, -32600, `Request too large: the limit is ${maxBody} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return jsonError(res, 400, -32700, 'Parse error: the body must be one JSON-RPC message.');
    }
    // Valid JSON that is not JSON-RPC is an invalid request (-32600), not a parse error as the SDK says.
    const messages = Array.isArray(body) ? body : [body];
    const bad = messages.filter((m) => !JSONRPCMessageSchema.safeParse(m).success);
    if (messages.length === 0 || bad.length) {
      const first = bad[0] as { id?: unknown } | undefined;
      const id = !Array.isArray(body) && first && typeof first === 'object' ? usableId(first.id) : null;
      return jsonError(res, 400, -32600, 'Invalid request: expected {"jsonrpc":"2.0","id":…,"method":…,"params"?:{…}}.', id);
    }
    const mcp = createMcpServer(opts.memory);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const names = isLoopback(opts.host) ? ['127.0.0.1', 'localhost', '[::1]'] : [opts.host.includes(':') ? `[${opts.host}]` : opts.host];
  allowedHosts = new Set(names.map((n) => `${n}:${port}`));
  allowedOrigins = new Set(names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]));
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${shown}:${port}/mcp`;
  opts.log(`MCP over HTTP at ${url} (bearer token required)`);

  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets would hold close() open; in-flight requests get a moment to finish.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}

/**
 * Connections that have not yet sent a request with the token: any local user can open them, and
 * slow ones held by the thousand use up the open-files limit, so legitimate requests are reset.
 * At most LIMITS.httpStrangers at once (a new one closes the oldest: a real client sends its
 * request at once, so the oldest is the slowest), each for at most LIMITS.httpStrangerMs.
 */
function guardStrangers(server: http.Server): { known(socket: Socket): void } {
  const waiting = new Map<Socket, NodeJS.Timeout>();
  const forget = (socket: Socket): void => {
    clearTimeout(waiting.get(socket));
    waiting.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    if (waiting.size >= LIMITS.httpStrangers) {
      const oldest = waiting.keys().next().value!;
      forget(oldest);
      oldest.destroy();
    }
    waiting.set(
      socket,
      setTimeout(() => socket.destroy(), LIMITS.httpStrangerMs),
    );
    socket.once('close', () => forget(socket));
  });
  return { known: forget };
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = header?.match(/^Bearer\s+(.+)$/i)?.[1] ?? '';
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function drainThen(req: http.IncomingMessage, then: () => void): void {
  req.resume();
  req.on('end', then);
  req.on('error', then);
}

function jsonError(res: http.ServerResponse, status: number, code: number, message: string, id: string | number | null = null): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

function usableId(id: unknown): string | number | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
