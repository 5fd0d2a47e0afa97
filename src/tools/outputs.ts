/** Output shapes of the catalogue (catalogue.ts) that knowledge items added: a fact's code, what `recall_remember` stored. */
import { z } from 'zod';

/** Whether the code a fact cites is as it was (model/code-anchors.ts CodeStatus). */
export const codeOut = z.object({
  status: z.string(),
  changedAt: z.string().optional(),
  anchors: z.array(
    z.object({
      path: z.string(),
      symbol: z.string().optional(),
      startLine: z.number().optional(),
      endLine: z.number().optional(),
      status: z.string(),
      changedAt: z.string().optional(),
    }),
  ),
});

/** The note, its knowledge item, and which citations became anchors (core/memory/remember.ts RememberResult). */
export const rememberOut = z.object({
  id: z.string(),
  duplicate: z.boolean(),
  item: z.string().optional(),
  anchored: z.array(z.string()).optional(),
  unanchored: z.array(z.object({ citation: z.string(), why: z.string() })).optional(),
});
