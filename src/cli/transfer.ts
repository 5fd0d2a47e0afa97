/**
 * `recall export`: the whole memory, or one project's, fetched a page at a time and written as it
 * comes, so neither the CLI nor one message grows with the data (ingest.ts is the way in).
 */
import * as fs from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { MemoryClient } from '../service/rpc/client.js';

type Out = (s: string) => void;

/** How often a long transfer says how far it is, on stderr. */
const PROGRESS_MS = 2_000;

/**
 * The export, page by page, written as `JSON.stringify(export, null, 2)` would write it whole:
 * the same bytes, without the whole in memory.
 */
export async function exportMemory(
  client: MemoryClient,
  opts: { history?: boolean; out?: string; project?: string | null },
  err: Out,
): Promise<void> {
  const sink: Writable = opts.out ? fs.createWriteStream(opts.out) : process.stdout;
  const write = async (s: string): Promise<void> => {
    if (!sink.write(s)) await once(sink, 'drain');
  };
  const counts = { entities: 0, facts: 0, episodes: 0 };
  const parts = ['entities', 'facts', 'episodes'] as const;
  let open = -1; // the part whose array is open in the output
  let lastProgress = Date.now();
  const openUpTo = async (index: number): Promise<void> => {
    for (; open < index; open++) {
      if (open >= 0) await write(counts[parts[open]!] ? '\n  ],\n' : '],\n');
      await write(`${open < 0 ? '{\n' : ''}  "${parts[open + 1]}": [`);
    }
  };
  let cursor: string | undefined;
  do {
    const page = await client.call('export.page', {
      history: opts.history,
      cursor,
      ...(opts.project !== undefined ? { project: opts.project } : {}),
    });
    for (const [index, part] of parts.entries()) {
      const items: unknown[] = page[part];
      if (items.length === 0) continue;
      await openUpTo(index);
      let text = '';
      for (const item of items) {
        text += (counts[part]++ ? ',\n' : '\n') + JSON.stringify(item, null, 2).replace(/^/gm, '    ');
      }
      await write(text);
    }
    cursor = page.cursor;
    if (Date.now() - lastProgress >= PROGRESS_MS) {
      lastProgress = Date.now();
      err(`export: ${counts.entities} entities, ${counts.facts} facts, ${counts.episodes} episodes so far`);
    }
  } while (cursor);
  await openUpTo(parts.length - 1);
  await write(counts.episodes ? '\n  ]\n}\n' : ']\n}\n');
  if (opts.out) {
    sink.end();
    await once(sink, 'finish');
    err(`wrote ${counts.episodes} episode(s), ${counts.entities} entit(ies), ${counts.facts} fact(s) to ${opts.out}`);
  }
}
