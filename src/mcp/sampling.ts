/**
 * MCP sampling (`recall mcp --sampling`, off unless the person turns it on): when the client offers
 * the `sampling` capability, the client's own model reads the notes an agent stores with
 * `recall_remember` (without a kind of its own) for the relationships and knowledge items they
 * state: the prompt and the reading of the answer are the vscode.lm extraction's
 * (core/ingest/extraction-prompt.ts), and the service's `extracted` method records them as the
 * model's reading: agent authority, the note as evidence. The model is shown the items already held
 * that bear on the note, so one it says again in other words gains the note as evidence, not a twin.
 *
 * It runs beside the tool call, never in its way: the note is stored and answered first, turns wait
 * in a bounded queue, one request at a time with a time limit, and a failing, slow or rambling model
 * is logged (stderr) and left; the server keeps serving.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import {
  buildExtractionPrompt,
  EXTRACTION_LIMITS,
  heldFor,
  readAnswer,
  saysAnything,
  type HeldItem,
} from '../core/ingest/extraction-prompt.js';
import { LIMITS } from '../core/model/limits.js';
import type { MemoryAccess } from '../tools/catalogue.js';

export interface SampledTurn {
  /** The stored episode (ep_…) the reading rests on. */
  id: string;
  text: string;
  speaker: string;
}

export class SamplingExtractor {
  private queue: SampledTurn[] = [];
  private draining = false;
  private readonly logged = new Set<string>();

  constructor(
    private readonly server: Server,
    private readonly memory: MemoryAccess,
    private readonly log: (msg: string) => void,
    private readonly timeoutMs: number = EXTRACTION_LIMITS.sampleTimeoutMs,
  ) {}

  /** Queues stored turns for the client's model; returns at once. */
  add(turns: readonly SampledTurn[]): void {
    if (turns.length === 0) return;
    if (!this.server.getClientCapabilities()?.sampling) {
      const client = this.server.getClientVersion()?.name ?? 'the client';
      return this.once('none', `sampling: ${client} does not offer sampling; notes are stored without a model's reading`);
    }
    const room = Math.max(EXTRACTION_LIMITS.pendingTurns - this.queue.length, 0);
    if (turns.length > room)
      this.log(`sampling: ${turns.length - room} turn(s) left unread (at most ${EXTRACTION_LIMITS.pendingTurns} wait at a time)`);
    this.queue.push(...turns.slice(0, room));
    // After the tool's answer has gone out: the client sees the note stored before it is asked to read it.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.extract(this.queue.splice(0, EXTRACTION_LIMITS.turnsPerRequest));
    } finally {
      this.draining = false;
    }
  }

  private async extract(batch: SampledTurn[]): Promise<void> {
    const ids = batch.map((t) => t.id).join(', ');
    // The items already held that bear on these turns, so the model can say a turn restates one.
    const held: HeldItem[] = await heldFor(batch, {
      query: async (query) => (await this.memory.call('query', { query, limit: LIMITS.query })).facts,
      brief: async () => (await this.memory.call('brief', {})).facts,
    }).catch((err: Error) => (this.log(`sampling: the items held could not be listed (${err.message}); the model reads without them`), []));
    let result: CreateMessageResult;
    try {
      result = await this.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: buildExtractionPrompt(batch, held) } }],
          maxTokens: EXTRACTION_LIMITS.sampleMaxTokens,
          includeContext: 'none',
        },
        { timeout: this.timeoutMs },
      );
    } catch (err) {
      return this.log(`sampling: the client's model gave no reading of ${ids} (${(err as Error).message}); they stay stored without it`);
    }
    const answer = textOf(result);
    const extractor = `mcp-sampling/${oneLine(result.model).slice(0, 100) || 'unknown'}`;
    const read = readAnswer(answer, batch.length, held);
    if (!read)
      return this.log(
        `sampling: ${extractor} did not answer with the JSON asked for (it began "${oneLine(answer).slice(0, 80)}"); nothing stored from ${ids}`,
      );
    if (read.dropped)
      this.log(
        `sampling: ${read.dropped} of ${read.entries} entries from ${extractor} were not a relationship, a knowledge item of a known kind or an item held said again, for a turn asked about (or repeated one), and were dropped`,
      );
    let stored = 0;
    for (const [i, turn] of batch.entries()) {
      const reading = read.turns[i]!;
      if (!saysAnything(reading)) continue;
      try {
        stored += (await this.memory.call('extracted', { episode: turn.id, ...reading, extractor })).ids.length;
      } catch (err) {
        this.log(`sampling: storing what ${extractor} read in ${turn.id} failed: ${(err as Error).message}`);
      }
    }
    this.log(`sampling (${extractor}): ${stored} relationship(s) and item(s) from ${batch.length} turn(s) (${ids})`);
  }

  private once(key: string, message: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.log(message);
  }
}

/** The answer's text; a model that answers with something else (an image) gives none. */
function textOf(result: CreateMessageResult): string {
  const blocks: unknown[] = Array.isArray(result.content) ? result.content : [result.content];
  return blocks
    .map((b) => (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' ? String((b as { text?: unknown }).text) : ''))
    .join('\n')
    .slice(0, EXTRACTION_LIMITS.responseChars);
}

const oneLine = (s: unknown): string => (typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '');
