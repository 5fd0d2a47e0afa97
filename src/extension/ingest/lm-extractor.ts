/**
 * Optional (`recall.extraction.languageModel`): a language model from vscode.lm reads turns that
 * chat-session ingest has just stored and names the relationships they state. They are recorded
 * with the service's `extracted` method on the model's connection: the inferred prior, agent
 * authority, evidence weighed as the agent's. What a model read is never taken as the person's word.
 * The model is shown the items already held that bear on the turns (a query over them, then the
 * brief's), so a rule said again in other words becomes more evidence for its item, not a second one.
 *
 * It runs beside ingest, never in its way: turns wait in a bounded queue, one request at a time,
 * a few turns per request. No model, or no permission to use one, is logged once and ingest goes
 * on without it. VS Code asks the person before an extension may first use a model it did not
 * provide (a modal dialog); the automatic path never causes that prompt, only the command does.
 */
import * as vscode from 'vscode';
import type { RecallExtension } from '../ctx.js';
import {
  buildExtractionPrompt,
  EXTRACTION_LIMITS,
  heldFor,
  readAnswer,
  saysAnything,
  type HeldItem,
} from '../../core/ingest/extraction-prompt.js';
import { LIMITS } from '../../core/model/limits.js';
import type { StoredTurn } from './common/ingest-batches.js';
import { COMMANDS } from '../common/ids.js';
import { ALLOW_MODEL, answerOf, answerOpening, configuredModel, noModelText } from '../language-model.js';

const MAX_PENDING = EXTRACTION_LIMITS.pendingTurns;

const JUSTIFICATION =
  "Recall reads the rules, decisions and relationships stated in new chat turns, beside the items its memory already holds on them, to add them to its memory as the model's reading.";

interface Pending extends StoredTurn {
  /** The memory folder the id belongs to: after a folder change the same id names another episode. */
  memory: string;
}

export class LmExtractor implements vscode.Disposable {
  private queue: Pending[] = [];
  private draining = false;
  /** The person asked (a command), so VS Code may ask them for permission to use the model. */
  private interactive = false;
  private cancel = new vscode.CancellationTokenSource();
  private readonly logged = new Set<string>();

  constructor(private readonly ctx: RecallExtension) {}

  get enabled(): boolean {
    return this.ctx.settings.extraction.languageModel;
  }

  /**
   * Queues freshly stored turns; returns at once. From the command (`interactive`) it also sends
   * what waits for the person's permission, new turns or not.
   */
  add(turns: readonly StoredTurn[], opts: { interactive: boolean }): void {
    if (!this.enabled || (turns.length === 0 && !(opts.interactive && this.queue.length > 0))) return;
    const room = MAX_PENDING - this.queue.length;
    if (turns.length > room)
      this.ctx.log.warn(
        `language-model extraction: ${turns.length - Math.max(room, 0)} new turn(s) left unread (at most ${MAX_PENDING} wait at a time)`,
      );
    const memory = this.ctx.memory;
    this.queue.push(...turns.slice(0, Math.max(room, 0)).map((t) => ({ ...t, memory })));
    if (opts.interactive) this.interactive = true;
    void this.drain();
  }

  /** Drops what waits and cancels the request in flight (the setting went off, the folder changed). */
  reset(): void {
    this.queue = [];
    this.cancel.cancel();
    this.cancel.dispose();
    this.cancel = new vscode.CancellationTokenSource();
    this.logged.clear();
  }

  dispose(): void {
    this.queue = [];
    this.cancel.cancel();
    this.cancel.dispose();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    const token = this.cancel.token;
    try {
      while (this.queue.length > 0 && !token.isCancellationRequested && this.enabled) {
        const model = await this.model();
        if (model === 'ask') break; // the turns wait (bounded) for the command, where VS Code may ask
        if (!model) {
          this.queue = [];
          break;
        }
        const batch = this.queue.splice(0, EXTRACTION_LIMITS.turnsPerRequest).filter((t) => t.memory === this.ctx.memory);
        if (batch.length > 0 && !(await this.extract(model, batch, token))) this.queue = [];
      }
    } catch (err) {
      this.ctx.log.warn(`language-model extraction stopped: ${(err as Error).message}`);
      this.queue = [];
    } finally {
      this.draining = false;
      // Turns queued after a reset, while this (cancelled) pass was winding down, get a pass of their own.
      if (token.isCancellationRequested && this.queue.length > 0 && this.enabled && !this.cancel.token.isCancellationRequested)
        void this.drain();
      else this.interactive = false;
    }
  }

  /** The model to ask; 'ask' when only the person can let Recall use it; undefined when there is none to use. */
  private async model(): Promise<vscode.LanguageModelChat | 'ask' | undefined> {
    const family = this.ctx.settings.extraction.modelFamily;
    const model = await configuredModel(this.ctx.settings);
    if (!model) {
      this.once(`none:${family}`, `language-model extraction: ${noModelText(this.ctx.settings)}; turns are stored without it`);
      return undefined;
    }
    const allowed = this.ctx.extension.languageModelAccessInformation.canSendRequest(model);
    if (allowed === false) {
      this.once(`denied:${model.id}`, `language-model extraction: Recall may not use ${describe(model)} (${ALLOW_MODEL})`);
      return undefined;
    }
    if (allowed === undefined && !this.interactive) {
      this.once(
        `ask:${model.id}`,
        `language-model extraction: VS Code has not asked yet whether Recall may use ${describe(model)}; run "Recall: Ingest Chat Sessions Now" (${COMMANDS.ingestChatSessions}) to be asked (up to ${MAX_PENDING} new turns wait until then)`,
      );
      return 'ask';
    }
    return model;
  }

  /** Returns false when the model cannot be used at all (the rest of the queue would fail alike). */
  private async extract(model: vscode.LanguageModelChat, batch: Pending[], token: vscode.CancellationToken): Promise<boolean> {
    const extractor = `${model.vendor}/${model.family}`;
    const turns = batch.map((t) => ({ text: t.episode.text, speaker: t.episode.speaker ?? t.episode.role }));
    // The items already held that bear on these turns, so the model can say a turn restates one.
    const held: HeldItem[] = await heldFor(turns, {
      query: async (query) => (await this.ctx.lm.call('query', { query, limit: LIMITS.query })).facts,
      brief: async () => (await this.ctx.lm.call('brief', {})).facts,
    }).catch((err: Error) => (this.ctx.log.warn(`language-model extraction: the items held could not be listed (${err.message})`), []));
    let answer: string | undefined;
    try {
      const prompt = buildExtractionPrompt(turns, held);
      answer = await answerOf(model, prompt, { justification: JUSTIFICATION, maxChars: EXTRACTION_LIMITS.responseChars }, token);
    } catch (err) {
      if (token.isCancellationRequested) return true;
      const e = err as Error;
      this.ctx.log.warn(`language-model extraction with ${extractor} failed: ${e.message}`);
      // Refused, blocked or gone: every further request would be too.
      return !(err instanceof vscode.LanguageModelError && ['NoPermissions', 'Blocked', 'NotFound'].includes(err.code));
    }
    if (answer === undefined) return true; // cancelled: nothing to store
    const read = readAnswer(answer, batch.length, held);
    if (!read) {
      this.ctx.log.warn(
        `language-model extraction: ${extractor} did not answer with the JSON asked for (it began "${answerOpening(answer)}"); nothing stored`,
      );
      return true;
    }
    let stored = 0;
    for (const [i, turn] of batch.entries()) {
      const reading = read.turns[i]!;
      if (!saysAnything(reading) || token.isCancellationRequested || turn.memory !== this.ctx.memory) continue;
      try {
        stored += (await this.ctx.lm.call('extracted', { episode: turn.id, ...reading, extractor })).ids.length;
      } catch (err) {
        this.ctx.log.warn(`language-model extraction: storing what ${extractor} read in ${turn.id} failed: ${(err as Error).message}`);
      }
    }
    this.ctx.log.info(
      `language-model extraction (${extractor}): ${stored} relationship(s) and item(s) from ${batch.length} turn(s) (${batch.map((t) => t.id).join(', ')})`,
    );
    return true;
  }

  private once(key: string, message: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.ctx.log.warn(message);
  }
}

const describe = (m: vscode.LanguageModelChat): string => `the language model "${m.name}" (${m.vendor}/${m.family})`;
