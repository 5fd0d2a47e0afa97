/** The memory folder's own files, named once: the service, the CLI and the lean hook bundle read them. */
export const JOURNAL_FILE = 'journal.jsonl';
