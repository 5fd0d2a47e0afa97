/** Replaced at bundle time by esbuild (`define`); "dev" when running from source. */
declare const RECALL_VERSION: string | undefined;
export const VERSION: string = typeof RECALL_VERSION === 'string' ? RECALL_VERSION : 'dev';
