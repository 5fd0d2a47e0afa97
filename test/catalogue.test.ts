/**
 * One catalogue, two surfaces: every tool of src/tools/catalogue.ts appears in the MCP server's
 * tools/list exactly as the catalogue states it (input schema, title, description, annotations),
 * so what a model sees over MCP and in VS Code cannot drift apart.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createMcpServer } from '../src/mcp/server';
import { LIMIT_DEFAULTS, LIMITS } from '../src/core/model/limits';
import { inputJsonSchema, TOOL_LIST, TOOLS, type MemoryAccess, type ToolName } from '../src/tools/catalogue';

/** Listing tools needs no memory; any call reaching it is a bug in this test. */
const noMemory: MemoryAccess = {
  call: () => Promise.reject(new Error('tools/list must not touch the memory')),
};

const catalogue = TOOL_LIST;
let listed: Tool[];
let client: Client;

before(async () => {
  const server = createMcpServer(noMemory);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'catalogue-test', version: '1.0.0' });
  await client.connect(clientSide);
  listed = (await client.listTools()).tools;
});

after(() => client?.close());

test('the MCP tool list is the catalogue: same names, same order, nothing more', () => {
  assert.deepEqual(
    listed.map((t) => t.name),
    catalogue.map((t) => t.name),
  );
  assert.equal(new Set(catalogue.map((t) => t.name)).size, catalogue.length, 'names are unique');
  for (const t of catalogue) assert.match(t.name, /^recall_[a-z]+$/, t.name);
});

for (const tool of catalogue) {
  test(`${tool.name}: identical input schema, title, description and annotations`, () => {
    const mcp = listed.find((t) => t.name === tool.name);
    assert.ok(mcp, `${tool.name} is listed`);
    assert.deepEqual(mcp.inputSchema, inputJsonSchema(tool), 'input schema');
    assert.equal(mcp.inputSchema.type, 'object');
    assert.equal(mcp.title, tool.title);
    assert.equal(mcp.description, tool.description);
    assert.deepEqual(mcp.annotations, { title: tool.title, ...tool.annotations });
    assert.deepEqual(mcp.outputSchema, z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output' }), 'output schema');
  });

  test(`${tool.name}: every bound in the zod schema survives into the JSON schema`, () => {
    const schema = inputJsonSchema(tool) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    const props = schema.properties ?? {};
    assert.deepEqual(Object.keys(props).sort(), Object.keys(tool.input.shape).sort());
    for (const [name, prop] of Object.entries(props)) {
      assert.ok(typeof prop.description === 'string' && prop.description.length > 0, `${tool.name}.${name} is described for the model`);
      if (prop.type === 'string' && !prop.enum) assert.equal(typeof prop.maxLength, 'number', `${tool.name}.${name} has a maximum length`);
      if (prop.type === 'integer' || prop.type === 'number') {
        assert.equal(typeof prop.maximum, 'number', `${tool.name}.${name} has a maximum`);
        assert.equal(typeof prop.minimum, 'number', `${tool.name}.${name} has a minimum`);
      }
      if (prop.type === 'array') assert.equal(typeof prop.maxItems, 'number', `${tool.name}.${name} has a maximum size`);
    }
    if ('limit' in props) {
      assert.equal(props.limit!.type, 'integer');
      assert.ok(!(schema.required ?? []).includes('limit'), 'limit is optional');
    }
  });
}

test('ToolName is the union of the catalogue names: a misspelt name does not compile', () => {
  const names: ToolName[] = TOOLS.map((t) => t.name);
  // @ts-expect-error: not a tool (npx tsc fails here if ToolName widens to string)
  const misspelt: ToolName = 'recall_qurey';
  assert.ok(!names.includes(misspelt));
  assert.deepEqual(
    names,
    catalogue.map((t) => t.name),
  );
});

test("every bound and default a tool states is the memory's (core/model/limits.ts)", () => {
  const props = (name: ToolName) =>
    (inputJsonSchema(catalogue.find((t) => t.name === name)!) as { properties: Record<string, Record<string, unknown>> }).properties;
  const limits: [ToolName, keyof typeof LIMIT_DEFAULTS][] = [
    ['recall_query', 'query'],
    ['recall_search', 'search'],
    ['recall_episodes', 'episodes'],
    ['recall_overview', 'overview'],
  ];
  for (const [tool, of] of limits) {
    assert.equal(props(tool).limit!.maximum, LIMITS[of], `${tool} limit`);
    assert.match(
      String(props(tool).limit!.description),
      new RegExp(`default ${LIMIT_DEFAULTS[of]}, at most ${LIMITS[of]}\\)`),
      `${tool} limit description`,
    );
  }
  assert.equal(props('recall_traverse').depth!.maximum, LIMITS.depth);
  for (const tool of ['recall_query', 'recall_search', 'recall_episodes'] as const)
    assert.equal(props(tool).query!.maxLength, LIMITS.queryChars, `${tool} query`);
  assert.equal(props('recall_traverse').entity!.maxLength, LIMITS.nameChars);
  assert.equal(props('recall_remember').text!.maxLength, LIMITS.noteChars);
});

test('reads are readOnlyHint: true; recall_remember, the one write, is not', () => {
  const reads = ['recall_query', 'recall_search', 'recall_episodes', 'recall_traverse', 'recall_status', 'recall_overview', 'recall_brief'];
  for (const t of listed) {
    if (t.name === 'recall_remember') {
      assert.equal(t.annotations?.readOnlyHint, false);
      assert.equal(t.annotations?.destructiveHint, false, 'it never erases anything');
    } else {
      assert.ok(reads.includes(t.name), `${t.name} is a known read`);
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
    }
    assert.equal(t.annotations?.openWorldHint, false, `${t.name} touches only the local memory`);
  }
  assert.deepEqual(
    listed.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name),
    ['recall_remember'],
  );
});

test('no tool lets a caller choose authority or source', () => {
  for (const t of listed) {
    const props = Object.keys((t.inputSchema.properties ?? {}) as Record<string, unknown>);
    for (const forbidden of ['authority', 'source', 'surface', 'speaker', 'role']) {
      if (t.name === 'recall_episodes' && forbidden === 'source') continue; // a filter there, not a claim
      assert.ok(!props.includes(forbidden), `${t.name} takes no "${forbidden}"`);
    }
  }
});
