/**
 * `recall remember TEXT|- [--kind K] [--subject S] [--cite PATH:START-END]... [--reason R]`: a note in
 * the shape recall_remember has, typed by a person: a kind makes it a knowledge item at the person's
 * authority, each citation anchors it to lines of the workspace (core/memory/remember.ts).
 */
import { KNOWLEDGE_KINDS, type KnowledgeKind } from '../core/model/knowledge.js';
import type { RememberResult } from '../core/memory/remember.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { UsageError } from './usage.js';

interface RememberValues {
  json?: boolean;
  entity?: string[];
  source?: string;
  session?: string;
  kind?: string;
  subject?: string;
  cite?: string[];
  reason?: string;
}

export async function runRemember(
  args: string[],
  values: RememberValues,
  withClient: <T>(fn: (c: MemoryClient) => Promise<T>) => Promise<T>,
  out: (s: string) => void,
): Promise<number> {
  if (args.length !== 1)
    throw new UsageError('Expected one TEXT (quote it if it has spaces), e.g. recall remember "we chose sql.js for storage"');
  let text = args[0]!;
  // `-`: the text comes on standard input (a command line stops near 128 KB).
  if (text === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  }
  const kind = values.kind === undefined ? undefined : KNOWLEDGE_KINDS.find((k) => k === values.kind);
  if (values.kind !== undefined && kind === undefined) throw new UsageError(`--kind is one of ${KNOWLEDGE_KINDS.join(', ')}.`);
  const r = await withClient((c) =>
    c.call('remember', {
      text,
      entities: values.entity,
      source: values.source ?? 'cli',
      session: values.session,
      kind,
      subject: values.subject,
      citations: values.cite,
      reason: values.reason,
    }),
  );
  out(values.json ? JSON.stringify(r, null, 2) : render(r, kind));
  return 0;
}

/** The note's id first (what scripts read), then the item and where each citation went. */
function render(r: RememberResult, kind: KnowledgeKind | undefined): string {
  const lines = [r.id + (r.duplicate ? ' (already remembered)' : '')];
  if (r.item) lines.push(`${kind ?? 'item'} ${r.item}`);
  if (r.anchored?.length) lines.push(`anchored to ${r.anchored.join(', ')}`);
  for (const u of r.unanchored ?? []) lines.push(`not anchored: ${u.citation}: ${u.why}`);
  return lines.join('\n');
}
