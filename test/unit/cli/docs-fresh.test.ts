import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { completion, generatedFiles, manList, manPages } from '../../../src/cli/docs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const STALE = 'is stale: run `npm run docs` and commit man/ and completions/';

describe('generated man pages and completions', () => {
  const files = generatedFiles(buildProgram());

  it('match the committed files', () => {
    for (const [rel, text] of Object.entries(files)) {
      const file = join(ROOT, rel);
      expect(existsSync(file), `${rel} is missing: run \`npm run docs\``).toBe(true);
      expect(readFileSync(file, 'utf8') === text, `${rel} ${STALE}`).toBe(true);
    }
  });

  it('no page is left for a command that no longer exists', () => {
    const extra = readdirSync(join(ROOT, 'man')).filter((n) => n.endsWith('.1') && !(`man/${n}` in files));
    expect(extra, `man/ has pages for removed commands: run \`npm run docs\``).toEqual([]);
  });

  it('package.json lists every page (npm installs `man` entries for `man mailagent`; it ignores directories.man)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man?: string[] };
    expect(pkg.man, `package.json man ${STALE}`).toEqual(manList(files));
    expect(pkg.man).toContain('./man/mailagent.1');
  });

  it('cover every top-level command and every subcommand', () => {
    const program = buildProgram();
    const pages = manPages(program);
    for (const c of program.commands) {
      expect(pages[`mailagent-${c.name()}.1`]).toContain(`.TH MAILAGENT-${c.name().toUpperCase()} 1`);
      for (const s of c.commands) {
        expect(completion(program, 'bash')).toContain(`"mailagent ${c.name()} ${s.name()}"`);
        expect(completion(program, 'fish')).toContain(`-a '${s.name()}'`);
        expect(completion(program, 'zsh')).toContain(`'${s.name()}:`);
      }
    }
    expect(pages['mailagent.1']).toContain('.SH EXIT STATUS');
  });

  it('pick up a command added to the tree', () => {
    const program = buildProgram();
    program.command('zeta').description('A late noun').command('spin').option('--fast', 'go fast');
    expect(manPages(program)['mailagent-zeta.1']).toContain('spin');
    expect(completion(program, 'bash')).toContain('"mailagent zeta spin") subs=');
    expect(completion(program, 'fish')).toContain('-l fast');
  });
});
