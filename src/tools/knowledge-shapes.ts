/** Shapes of the catalogue (catalogue.ts) that knowledge items added: a fact's code, what `recall_remember` takes and stored. */
import { z } from 'zod';
import { KNOWLEDGE_KINDS } from '../core/model/knowledge.js';
import { LIMITS } from '../core/model/limits.js';

/** `recall_remember`'s fields in the shape of Copilot's memory tool (subject, fact, citations, reason), beside its text. */
export const knowledgeNoteFields = {
  kind: z
    .enum(KNOWLEDGE_KINDS)
    .optional()
    .describe('Store it as knowledge of this kind (decision, rule, preference, fact, lesson); leave out for a plain note.'),
  subject: z.string().min(1).max(LIMITS.nameChars).optional().describe('What it is about: a component, tool or topic.'),
  citations: z
    .array(z.string().min(1).max(LIMITS.sourceChars))
    .max(LIMITS.citations)
    .optional()
    .describe('Code it rests on, relative to the workspace: "src/db.ts", "src/db.ts:10-20".'),
  reason: z.string().min(1).max(LIMITS.noteChars).optional().describe('Why it is worth remembering.'),
};

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
  wrong: z.string().optional(),
  anchored: z.array(z.string()).optional(),
  unanchored: z.array(z.object({ citation: z.string(), why: z.string() })).optional(),
});
