/**
 * One line of the wire protocol is bounded (LIMITS.serviceMessageBytes): a request or an answer
 * past it is refused with a hint saying how to ask for less, never sent to be dropped.
 */
import { MemoryError } from '../../core/model/errors.js';
import { LIMITS } from '../../core/model/limits.js';

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

const HINTS: Record<string, string> = {
  ingest: 'Send the episodes in smaller batches (batchEpisodes does).',
  export: 'Read the export page by page with export.page (`recall export` does).',
};

/** Whether a message of `bytes` is over the limit. */
export const overMessageLimit = (bytes: number): boolean => bytes >= LIMITS.serviceMessageBytes;

/** The error for a `kind` of `method` that is `bytes` long, over the limit. */
export function messageTooBig(kind: 'request' | 'answer', method: string, bytes: number): MemoryError {
  const limit = `the memory service's ${mib(LIMITS.serviceMessageBytes)} MiB message limit`;
  return new MemoryError(
    'invalid_input',
    kind === 'request'
      ? `This ${method} request is ${mib(bytes)} MiB, over ${limit}; nothing was sent.`
      : `The answer to ${method} is ${mib(bytes)} MiB, over ${limit}.`,
    HINTS[method] ?? (kind === 'request' ? 'Send less at a time.' : 'Ask for less at a time.'),
  );
}
