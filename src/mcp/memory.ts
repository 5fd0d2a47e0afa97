/**
 * The MCP server's way to the memory: a service client that connects on first use, as the `mcp`
 * surface (so everything it writes is the agent's word), and reconnects after the service went away.
 */
import { workspaceRoot } from '../core/anchors/workspace.js';
import { MemoryError } from '../core/model/errors.js';
import { MemoryClient } from '../service/rpc/client.js';
import type { Method, ParamsOf, ResultOf } from '../service/rpc/protocol.js';
import type { MemoryAccess } from '../tools/catalogue.js';

export class LazyMemory implements MemoryAccess {
  private client?: Promise<MemoryClient>;

  constructor(
    private readonly memory: string,
    private readonly serviceScript: string,
    private readonly log: (msg: string) => void,
    /** The project the connection works in: where notes land and what questions see (with global memory). */
    private readonly where: { project?: string | null; workspace?: string } = {},
  ) {}

  async call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    this.client ??= MemoryClient.connect({
      memory: this.memory,
      surface: 'mcp',
      ...this.where,
      workspace: this.where.workspace ?? workspaceRoot(process.cwd()),
      serviceScript: this.serviceScript,
      log: this.log,
    });
    let client: MemoryClient;
    try {
      client = await this.client;
    } catch (err) {
      this.client = undefined; // try again on the next call
      throw err instanceof MemoryError ? err : new MemoryError('unavailable', (err as Error).message);
    }
    return client.call(method, params);
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    client?.close();
  }
}
