/**
 * The MCP server: every catalogue tool registered on an McpServer, with instructions that tell
 * a model when to reach for memory. Transport-agnostic (stdio.ts and http.ts connect it).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TOOLS, type MemoryAccess } from '../tools/catalogue.js';
import { invokeTool } from '../tools/invoke.js';
import { VERSION } from '../service/version.js';

export const SERVER_INSTRUCTIONS = `Recall is the user's long-term memory across coding sessions: decisions, preferences, project facts and past conversations.
- Before answering anything that depends on earlier sessions (why something was chosen, what the user prefers, what happened before), call recall_query with the question as it came up.
- Cite episode ids (ep_…) from results when you rely on them. Facts carry an effective confidence: treat low-confidence ones as hints, not truth.
- Use recall_remember for durable knowledge worth having next session (a decision, a stated preference). It is stored as your observation, with low weight; never store secrets.
- If memory is unavailable, continue without it.`;

export function createMcpServer(memory: MemoryAccess): McpServer {
  const server = new McpServer({ name: 'recall', title: 'Recall memory', version: VERSION }, { instructions: SERVER_INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: unknown) => {
        const outcome = await invokeTool(tool as never, memory, args);
        return {
          content: [{ type: 'text' as const, text: outcome.text }],
          ...(outcome.structured && !outcome.isError ? { structuredContent: outcome.structured } : {}),
          ...(outcome.isError ? { isError: true } : {}),
        };
      },
    );
  }
  return server;
}
