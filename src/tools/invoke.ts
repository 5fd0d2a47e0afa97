/**
 * Running a catalogue tool for a model, the same way on every surface: validate the arguments,
 * call the memory, bound the text, and turn every failure into a result the model can act on.
 */
import { z } from 'zod';
import { MemoryError } from '../core/model/errors.js';
import { LIMITS } from '../core/model/limits.js';
import type { MemoryAccess, RecallTool } from './catalogue.js';

export interface ToolOutcome {
  text: string;
  structured?: Record<string, unknown>;
  isError: boolean;
}

export async function invokeTool(tool: RecallTool, memory: MemoryAccess, rawArgs: unknown): Promise<ToolOutcome> {
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    return failure(
      `Invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`,
      'Fix the arguments to match the tool schema and call again.',
    );
  }
  try {
    const result = await tool.run(memory, parsed.data);
    return { text: bound(tool.text(result, parsed.data)), structured: tool.structured(result), isError: false };
  } catch (err) {
    if (err instanceof MemoryError) {
      if (err.code === 'unavailable') {
        return failure(
          `Long-term memory is unavailable right now: ${err.message}`,
          'Continue without memory; mention it to the user only if the answer depended on earlier sessions.',
        );
      }
      return failure(err.message, err.hint);
    }
    return failure(`${tool.name} failed: ${(err as Error).message}`, 'Try again once; if it fails again continue without memory.');
  }
}

function failure(message: string, hint?: string): ToolOutcome {
  return { text: hint ? `${message}\nHint: ${hint}` : message, isError: true };
}

/** Cuts at a line boundary and says how to get the rest. */
export function bound(text: string, max: number = LIMITS.toolTextChars): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max - 200);
  const shown = text.slice(0, cut > 0 ? cut : max - 200);
  const hidden = text.slice(shown.length).split('\n- ').length - 1;
  return `${shown}\n… output cut at ${max} characters (${hidden > 0 ? `${hidden} more result(s)` : 'more'} not shown): narrow the query or lower "limit".`;
}
