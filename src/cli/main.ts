// First: V8 settings `mailagent serve` needs before anything else loads (serve-heap.ts).
import './serve-heap.js';
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { EXIT } from './errors.js';
import { neutralize } from './output.js';

/**
 * bin/mailagent imports this. Action errors are reported by run() (context.ts); what reaches
 * here is commander's own: help/version (exit 0) or a parse error, already printed (exit 2).
 */
// A reader that goes away (`mailagent … | head`) is not an error: stop quietly, like other CLIs.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

const program = buildProgram();
const argv = process.argv.slice(2);
if (argv.length === 0) {
  program.outputHelp();
} else {
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else {
      process.stderr.write(`error: ${neutralize((err as Error).message ?? String(err))}\n`);
      process.exitCode = EXIT.error;
    }
  }
}
