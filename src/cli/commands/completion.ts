import { Argument, type Command } from 'commander';
import { examples, run } from '../context.js';

export function register(program: Command): void {
  const cmd = program
    .command('completion')
    .description('Print the shell completion script (the same text as completions/mailagent.<shell>)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(run(async (ctx, shell: 'bash' | 'zsh' | 'fish') => {
      // Built from a fresh tree so the output equals the generated files exactly.
      const [{ buildProgram }, { completion }] = await Promise.all([import('../program.js'), import('../docs.js')]);
      ctx.out.stdout.write(completion(buildProgram(), shell));
    }));
  examples(cmd, [
    'source <(mailagent completion bash)',
    'mailagent completion zsh > "${fpath[1]}/_mailagent"',
    'mailagent completion fish > ~/.config/fish/completions/mailagent.fish',
  ]);
}
