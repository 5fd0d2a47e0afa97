/**
 * The MCP server: every catalogue tool listed and callable, with instructions that tell a model
 * when to reach for memory. Transport-agnostic (stdio.ts and http.ts connect it).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { inputJsonSchema, TOOL_LIST, type MemoryAccess, type RecallTool } from '../tools/catalogue.js';
import { invokeTool } from '../tools/invoke.js';
import { VERSION } from '../service/rpc/version.js';
import { SamplingExtractor, type SampledTurn } from './sampling.js';

export const SERVER_INSTRUCTIONS = `Recall is the user's long-term memory across coding sessions: decisions, preferences, project facts and past conversations.
- Before answering anything that depends on earlier sessions (why something was chosen, what the user prefers, what happened before), call recall_query with the question as it came up.
- Cite episode ids (ep_…) from results when you rely on them. Facts carry an effective confidence: treat low-confidence ones as hints, not truth.
- Use recall_remember for durable knowledge worth having next session (a decision, a stated preference). It is stored as your observation, with low weight; never store secrets.
- If memory is unavailable, continue without it.`;

/**
 * tools/list and tools/call are our own handlers, not McpServer.registerTool: the SDK's tools/call
 * validates arguments before any handler runs and answers a bad argument with a bare "MCP error
 * -32602: Input validation error"; ours runs every call through invokeTool, so a wrong type, an
 * out-of-range limit or an unknown tool gets an isError result with a hint the model can act on,
 * the same text as on every other surface.
 */
export function createMcpServer(memory: MemoryAccess, opts: { sampling?: { log: (msg: string) => void } } = {}): McpServer {
  const server = new McpServer(
    { name: 'recall', title: 'Recall memory', version: VERSION },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: { listChanged: true } } },
  );
  const byName = new Map<string, RecallTool>(TOOL_LIST.map((t) => [t.name, t]));
  const listing = TOOL_LIST.map(toolListing);
  const sampler = opts.sampling && new SamplingExtractor(server.server, memory, opts.sampling.log);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return errorResult(`Unknown tool "${request.params.name}".\nHint: the tools are ${[...byName.keys()].join(', ')}.`);
    }
    const result = await callTool(tool, memory, request.params.arguments);
    if (sampler && tool.name === 'recall_remember') sampler.add(noteToRead(request.params.arguments, result));
    return result;
  });
  return server;
}

/** A tool as tools/list states it: the catalogue's schemas as JSON Schema, its annotations titled. */
function toolListing(tool: RecallTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output' }) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

async function callTool(tool: RecallTool, memory: MemoryAccess, args: unknown): Promise<CallToolResult> {
  const outcome = await invokeTool(tool, memory, args);
  if (outcome.isError || !outcome.structured) return errorResult(outcome.text, outcome.isError);
  // Each tool's `structured` builds exactly its published output shape (clients such as the SDK's
  // Client reject anything else); test/mcp.test.ts calls every tool through that Client.
  return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.structured };
}

/** A note newly stored without a kind of its own: what the client's model may read (sampling.ts). */
function noteToRead(args: unknown, result: CallToolResult): SampledTurn[] {
  const stored = result.structuredContent as { id?: unknown; duplicate?: unknown } | undefined;
  const a = args as { text?: unknown; kind?: unknown } | undefined;
  if (result.isError || typeof stored?.id !== 'string' || stored.duplicate !== false || typeof a?.text !== 'string' || a.kind !== undefined)
    return [];
  return [{ id: stored.id, text: a.text, speaker: 'assistant (a note it stored)' }];
}

function errorResult(text: string, isError = true): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}
