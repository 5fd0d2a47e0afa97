/** An error a person or a model can act on: what went wrong and what to do instead. */
export type ErrorCode = 'invalid_input' | 'not_found' | 'forbidden' | 'unavailable' | 'internal';

export class MemoryError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Something the caller can do next (names that exist, a narrower query). */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'MemoryError';
  }
}

export const invalid = (message: string, hint?: string): MemoryError => new MemoryError('invalid_input', message, hint);
export const notFound = (message: string, hint?: string): MemoryError => new MemoryError('not_found', message, hint);
