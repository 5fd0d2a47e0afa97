/**
 * The lean entry of the agent hooks (dist/hook.js): a host starts one process per tool call, so
 * this loads only the hook and the service's client, not the whole CLI.
 */
import { exitAfterOutput, runHook, STDIO } from './hook.js';

void runHook(process.argv.slice(2), STDIO).then(exitAfterOutput);
