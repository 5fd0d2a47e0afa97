/**
 * A stdio transport that keeps serving whatever arrives. The SDK's own closes on an oversized
 * line and answers nothing to invalid JSON; here every line gets a JSON-RPC answer (a parse or
 * invalid-request error when it is not a message) and a huge line is refused and skipped.
 * Standard output carries only JSON-RPC frames.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '../core/model/limits.js';
import { LineReader } from '../service/rpc/protocol.js';

export class RobustStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private reader: LineReader;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.reader = new LineReader(
      (line) => this.receive(line),
      () => this.reply(null, -32600, `Message too large: the limit is ${LIMITS.mcpMessageBytes} bytes a line.`),
      LIMITS.mcpMessageBytes,
    );
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
  }

  private onData = (chunk: Buffer | string): void => this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private onEnd = (): void => void this.close();

  private receive(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return this.reply(null, -32700, 'Parse error: each line must be one JSON-RPC message.');
    }
    if (Array.isArray(json))
      return this.reply(null, -32600, 'Invalid request: JSON-RPC batches are not supported; send one message a line.');
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = json && typeof json === 'object' && 'id' in json ? (json as { id: unknown }).id : null;
      // Only requests get answers; something with a usable id gets its error under that id.
      const usableId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      return this.reply(usableId, -32600, 'Invalid request: expected {"jsonrpc":"2.0","id":…,"method":…,"params"?:{…}}.');
    }
    this.onmessage?.(parsed.data);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.onclose?.();
  }
}
