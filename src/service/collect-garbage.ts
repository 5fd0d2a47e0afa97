/**
 * A full garbage collection, when the service runs with --expose-gc (the client starts it so).
 * Called after work that leaves a large transient behind — a snapshot's copy of the database, a
 * drained embedding backlog — which V8 could otherwise keep resident for minutes. Without the
 * flag it does nothing.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
