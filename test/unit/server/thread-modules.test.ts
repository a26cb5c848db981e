import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scanImports } from '../../helpers/import-scan.js';

/**
 * What each of the daemon's threads loads (bench/README.md → "Daemon memory, session 5"): every
 * module a thread loads stays in its heap (its source text, its compiled code, its tables), once
 * per thread. The main thread parses and classifies nothing (the pool's workers do), so it must not
 * load the MIME parser, the classifier's models or mailauth (SPF/DKIM/DMARC run in the pool too); a daemon on SQLite must not load the PostgreSQL
 * driver; the HTML sanitiser waits for the first HTML view. The pool's workers must not load the
 * HTTP, SQL or SMTP stacks.
 *
 * The graphs are the static imports of src/ (import()/require() are deferred loads: in this ESM
 * code base `require` exists only through createRequire, for exactly that); the last test checks
 * the built daemon at run time for the CommonJS packages.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SRC = join(ROOT, 'src');

/** The src files (relative, without extension) and packages a thread loads when it imports `entries`. */
function staticGraph(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = entries.map((e) => join(SRC, e));
  while (todo.length) {
    const file = todo.pop()!;
    const id = relative(SRC, file).split(sep).join('/').replace(/\.ts$/, '');
    if (files.has(id)) continue;
    files.add(id);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    for (const ref of scanImports(text)) {
      if (ref.lazy || ref.typeOnly || /\brequire\s*\(/.test(lines[ref.line - 1] ?? '')) continue;
      if (ref.spec.startsWith('.')) {
        const target = resolve(dirname(file), ref.spec).replace(/\.js$/, '.ts');
        if (existsSync(target)) todo.push(target);
      } else if (!ref.spec.startsWith('node:')) {
        packages.add(ref.spec.startsWith('@') ? ref.spec.split('/').slice(0, 2).join('/') : ref.spec.split('/')[0]);
      }
    }
  }
  return { files, packages };
}

describe('modules per thread', () => {
  it('the main thread of `mailagent serve` loads neither the MIME parser, the classifier models, mailauth, pg, sanitize-html nor the MCP SDK', () => {
    const g = staticGraph(['cli/main.ts', 'cli/commands/serve.ts', 'server/memory.ts', 'server/daemon.ts']);
    // The graph really is the daemon's (a scan that found nothing would pass everything below).
    expect(g.files).toContain('server/http/app');
    expect(g.files).toContain('services/inbound');
    expect(g.files).toContain('mail/parse');
    expect(g.packages).toContain('fastify');
    // entities: the regex extractor (no model, no imports) that fills one-time codes and links on a
    // read when the agent's classify_inbound is off (services/received.ts).
    expect([...g.files].filter((f) => f.startsWith('classifier/')).sort()).toEqual(['classifier/entities', 'classifier/quarantine']);
    // SPF/DKIM/DMARC run in the pool's workers (mail/auth-check.ts); the main thread asks only their DNS questions.
    for (const pkg of ['mailparser', 'mailauth', 'pg', 'sanitize-html', '@modelcontextprotocol/sdk', 'pino-pretty']) expect(g.packages, pkg).not.toContain(pkg);
    expect(g.files).not.toContain('mail/auth-check');
    expect([...g.files].filter((f) => f.startsWith('mcp/') || f.startsWith('web/'))).toEqual([]);
  });

  it('a pipeline worker loads the parser and the classifier (mailauth on its first check), and no HTTP, SQL, SMTP or metrics stack', () => {
    const g = staticGraph(['server/pipeline/worker.ts']);
    expect(g.files).toContain('classifier/weights');
    expect(g.files).toContain('mail/parse');
    // SPF/DKIM/DMARC: imported by the worker on its first 'auth' job, not at start (trusted-network
    // mail never needs it); the main thread never imports it (test above).
    expect(g.files).not.toContain('mail/auth-check');
    expect(readFileSync(join(SRC, 'server/pipeline/worker.ts'), 'utf8')).toContain("import('../../mail/auth-check.js')");
    expect(staticGraph(['mail/auth-check.ts']).packages).toContain('mailauth');
    expect([...g.files].filter((f) => !/^(server\/pipeline\/worker|mail|classifier|shared|contract)\b/.test(f))).toEqual([]);
    for (const pkg of ['fastify', 'kysely', 'better-sqlite3', 'typebox', 'smtp-server', 'prom-client', 'pg', 'mailauth', 'nodemailer', 'ajv']) {
      expect(g.packages, pkg).not.toContain(pkg);
    }
  });

  it('the SQLite helper threads (queue writer, checkpointer) load better-sqlite3 and no query builder or HTTP stack', () => {
    for (const entry of ['db/queue-writer-thread.ts', 'db/checkpointer-thread.ts']) {
      const g = staticGraph([entry]);
      expect(g.packages, entry).toContain('better-sqlite3');
      for (const pkg of ['kysely', 'fastify', 'typebox', 'pg', 'mailparser']) expect(g.packages, `${entry}: ${pkg}`).not.toContain(pkg);
    }
  });

  it('the built daemon, once loaded, has not loaded mailparser, mailauth, pg or sanitize-html (CommonJS, seen in require.cache)', () => {
    const daemon = join(ROOT, 'dist', 'server', 'daemon.js');
    if (!existsSync(daemon)) throw new Error('dist/server/daemon.js is missing: run `npm run build` first (npm test does it)');
    const script = `import { createRequire } from 'node:module';
await import(${JSON.stringify(pathToFileURL(daemon).href)});
console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
    const pkg = (name: string) => loaded.filter((f) => f.includes(`${sep}node_modules${sep}${name}${sep}`));
    // The scan sees the packages the daemon does load (one that stopped seeing would pass below).
    expect(pkg('better-sqlite3').length).toBeGreaterThan(0);
    expect(pkg('fastify').length).toBeGreaterThan(0);
    for (const name of ['mailparser', 'mailauth', 'pg', 'sanitize-html', 'html-to-text']) expect(pkg(name), name).toEqual([]);
  });
});
