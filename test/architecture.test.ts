import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanImports, type ImportRef } from './helpers/import-scan.js';

/**
 * DESIGN.md "Dependency rule", checked by a plain import scan of src/**:
 *   cli → client → contract;  server/* → services → (classifier, mail, db) → shared → contract.
 * Imports point down only. Frameworks stay at the edge. Every violation is reported with the
 * file and the import that breaks the rule.
 *
 * server/pipeline (the worker pool) is its own layer under server: the pool may use services'
 * interfaces, classifier and mail, never db, http or smtp; its worker entry (worker.ts) runs in
 * a thread the pool may terminate at any instant, so it imports mail, classifier and shared only
 * (plus type-only imports of the pool's message protocol): nothing with side effects.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

type Layer = 'cli' | 'mcp' | 'client' | 'server' | 'pipeline' | 'pipeline-worker' | 'services' | 'classifier' | 'mail' | 'db' | 'shared' | 'contract' | 'web';

/** What each layer may import from src (itself included). Skipping a layer downwards is allowed. */
const ALLOWED: Record<Layer, Layer[]> = {
  cli: ['cli', 'client', 'contract'],
  // The MCP server (src/mcp) runs tools through src/client only: it never reaches services or db.
  mcp: ['mcp', 'client', 'contract'],
  client: ['client', 'contract'],
  server: ['server', 'pipeline', 'services', 'classifier', 'mail', 'db', 'shared', 'contract'],
  pipeline: ['pipeline', 'services', 'classifier', 'mail', 'shared', 'contract'],
  'pipeline-worker': ['pipeline-worker', 'classifier', 'mail', 'shared'],
  services: ['services', 'classifier', 'mail', 'db', 'shared', 'contract'],
  classifier: ['classifier', 'shared', 'contract'],
  mail: ['mail', 'shared', 'contract'],
  db: ['db', 'shared', 'contract'],
  shared: ['shared', 'contract'],
  contract: ['contract'],
  // The web inbox runs in the browser: it reaches the daemon only over HTTP (the public API),
  // never by importing server code; the server serves its files without importing them.
  web: ['web'],
};

/** Packages that may only be used inside the given folders (prefixes of src-relative paths). */
const PACKAGE_HOMES: { test: (pkg: string) => boolean; name: string; homes: string[] }[] = [
  { name: 'fastify', test: (p) => p === 'fastify' || p.startsWith('@fastify/') || p.startsWith('fastify-'), homes: ['server/http/'] },
  { name: 'smtp-server', test: (p) => p === 'smtp-server', homes: ['server/smtp/', 'mail/'] },
  { name: 'mailparser', test: (p) => p === 'mailparser', homes: ['server/smtp/', 'mail/'] },
  { name: 'commander', test: (p) => p === 'commander', homes: ['cli/'] },
  { name: '@inquirer', test: (p) => p === 'inquirer' || p.startsWith('@inquirer/'), homes: ['cli/'] },
  { name: 'chalk', test: (p) => p === 'chalk', homes: ['cli/'] },
  { name: 'better-sqlite3', test: (p) => p === 'better-sqlite3', homes: ['db/'] },
  { name: '@modelcontextprotocol/sdk', test: (p) => p === '@modelcontextprotocol/sdk', homes: ['mcp/'] },
  { name: 'pg', test: (p) => p === 'pg' || p.startsWith('pg-'), homes: ['db/'] },
];

/**
 * src/mcp (and the MCP SDK behind it) is reached only through a lazy `await import(...)`: from the
 * `mcp` command (keeps `mailagent --help` fast) and from the daemon's /mcp route (keeps start-up fast).
 */
const LAZY_MCP_IMPORTERS = [/^cli\/commands\/mcp\.ts$/, /^server\/http\/routes\/mcp\.ts$/];

/** The CLI may lazy-import the server, and only from these commands (`mailagent serve`, `init`). */
const LAZY_SERVER_IMPORTERS = [/^cli\/commands\/(serve|init|admin|backup|doctor)(\/|\.ts$)/];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|cts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const rel = (abs: string) => relative(SRC, abs).split(sep).join('/');

function layerOf(srcRel: string): Layer | null {
  const top = srcRel.split('/')[0];
  if (/^server\/pipeline\/worker(\.|\/)/.test(srcRel)) return 'pipeline-worker';
  if (srcRel.startsWith('server/pipeline/')) return 'pipeline';
  if (top === 'server') return 'server';
  return (Object.keys(ALLOWED) as Layer[]).includes(top as Layer) ? (top as Layer) : null;
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every broken rule in one file, as "src/<file>:<line> imports '<spec>': <why>". */
export function checkFile(srcRel: string, text: string): string[] {
  const problems: string[] = [];
  const from = layerOf(srcRel);
  const say = (ref: ImportRef, why: string) => problems.push(`src/${srcRel}:${ref.line} imports '${ref.spec}': ${why}`);
  if (!from) {
    problems.push(`src/${srcRel}: not inside a known layer (${Object.keys(ALLOWED).join(', ')})`);
    return problems;
  }
  for (const ref of scanImports(text)) {
    if (ref.spec.startsWith('.')) {
      const target = rel(resolve(join(SRC, dirname(srcRel)), ref.spec));
      if (target.startsWith('..')) {
        say(ref, 'reaches outside src/');
        continue;
      }
      const to = layerOf(target);
      if (!to) {
        say(ref, `target src/${target} is in no layer`);
        continue;
      }
      if (to === 'mcp' && from !== 'mcp') {
        if (!(ref.lazy && LAZY_MCP_IMPORTERS.some((re) => re.test(srcRel)))) {
          say(ref, 'src/mcp may be reached only through a lazy `await import(...)` in cli/commands/mcp.ts or server/http/routes/mcp.ts');
        }
        continue;
      }
      if (ALLOWED[from].includes(to)) continue;
      if (from === 'pipeline-worker' && to === 'pipeline' && ref.typeOnly) continue;
      if (from === 'cli' && to === 'server' && ref.lazy && LAZY_SERVER_IMPORTERS.some((re) => re.test(srcRel))) continue;
      if (from === 'cli' && to === 'server') {
        say(ref, ref.lazy
          ? 'the CLI may lazy-import src/server only from the serve and init commands'
          : 'the CLI may reach src/server only through a lazy `await import(...)` in the serve/init commands (keeps --help fast)');
        continue;
      }
      say(ref, `${from} may import only ${ALLOWED[from].join(', ')} (imports point down: cli → client → contract; server → services → classifier/mail/db → shared → contract)`);
      continue;
    }
    if (from === 'web') {
      say(ref, 'web (browser code) may import only other src/web files by relative path: no packages, no node: modules');
      continue;
    }
    if (ref.spec.startsWith('node:') || /^(fs|path|os|crypto|events|net|http|https|url|util|stream|zlib|tls|dns|child_process|readline|buffer|timers|worker_threads|perf_hooks|assert)(\/|$)/.test(ref.spec)) {
      if (from === 'contract') say(ref, 'contract must not use node: modules (it is shared with the client)');
      continue;
    }
    const pkg = packageName(ref.spec);
    if (from === 'contract' && pkg !== 'typebox') {
      say(ref, 'contract may import only typebox and other contract files');
      continue;
    }
    for (const rule of PACKAGE_HOMES) {
      if (rule.test(pkg) && !rule.homes.some((h) => srcRel.startsWith(h))) {
        say(ref, `${rule.name} belongs in ${rule.homes.map((h) => 'src/' + h).join(' or ')} only`);
      }
    }
  }
  return problems;
}

describe('dependency rule (DESIGN.md)', () => {
  it('src/** imports point down only and frameworks stay at the edge', () => {
    const problems: string[] = [];
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) problems.push(...checkFile(rel(f), readFileSync(f, 'utf8')));
    expect(problems, '\n' + problems.join('\n') + '\n').toEqual([]);
  });
});

describe('the scanner itself', () => {
  it('finds static, type-only, re-export, side-effect, dynamic and require imports, with line numbers', () => {
    const refs = scanImports([
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "import './side.js';",
      'const m = await import("../server/daemon.js");',
      "const x = require('better-sqlite3');",
      "// import { no } from './commented.js';",
      "/* import { no2 } from './block.js'; */",
      "export const y = 1;",
      'import {',
      '  multi,',
      "} from 'fastify';",
    ].join('\n'));
    expect(refs.map((r) => [r.spec, r.line, r.lazy, r.typeOnly])).toEqual([
      ['./a.js', 1, false, false],
      ['../b.js', 2, false, true],
      ['./c.js', 3, false, false],
      ['./d.js', 4, false, false],
      ['./side.js', 5, false, false],
      ['fastify', 13, false, false],
      ['../server/daemon.js', 6, true, false],
      ['better-sqlite3', 7, false, false],
    ]);
  });

  it('reports the offending file and import for each kind of violation', () => {
    const cases: [string, string, RegExp][] = [
      ['contract/x.ts', "import { readFileSync } from 'node:fs';", /src\/contract\/x\.ts:1 imports 'node:fs': contract must not use node:/],
      ['contract/x.ts', "import { z } from 'zod';", /contract may import only typebox/],
      ['contract/x.ts', "import { Errors } from '../shared/errors.js';", /src\/contract\/x\.ts:1 imports '\.\.\/shared\/errors\.js': contract may import only contract/],
      ['shared/x.ts', "import { db } from '../db/open.js';", /shared may import only shared, contract/],
      ['db/x.ts', "import { a } from '../services/agents.js';", /db may import only/],
      ['services/x.ts', "import Fastify from 'fastify';", /fastify belongs in src\/server\/http\//],
      ['services/x.ts', "import { buildApp } from '../server/http/app.js';", /services may import only/],
      ['server/daemon.ts', "import Database from 'better-sqlite3';", /better-sqlite3 belongs in src\/db\//],
      ['server/http/app.ts', "import { SMTPServer } from 'smtp-server';", /smtp-server belongs in/],
      ['mail/x.ts', "import chalk from 'chalk';", /chalk belongs in src\/cli\//],
      ['client/x.ts', "import { program } from 'commander';", /commander belongs in src\/cli\//],
      ['client/x.ts', "import { x } from '../cli/output.js';", /client may import only client, contract/],
      ['cli/commands/agents.ts', "import { x } from '../../services/agents.js';", /cli may import only cli, client, contract/],
      ['cli/commands/agents.ts', "const d = await import('../../server/daemon.js');", /lazy-import src\/server only from the serve and init/],
      ['cli/commands/serve.ts', "import { Daemon } from '../../server/daemon.js';", /only through a lazy `await import/],
      ['cli/main.ts', "import { select } from '@inquirer/prompts';", /^$/],
      ['classifier/x.ts', "import { a } from '../db/repos/agents.js';", /classifier may import only/],
      ['mcp/x.ts', "import { openDatabase } from '../db/open.js';", /mcp may import only mcp, client, contract/],
      ['mcp/x.ts', "import { listAgents } from '../services/agents.js';", /mcp may import only/],
      ['mcp/x.ts', "import Fastify from 'fastify';", /fastify belongs in src\/server\/http\//],
      ['cli/commands/send.ts', "import { Server } from '@modelcontextprotocol/sdk/server/index.js';", /@modelcontextprotocol\/sdk belongs in src\/mcp\//],
      ['cli/commands/mcp.ts', "import { serveStdio } from '../../mcp/stdio.js';", /lazy `await import/],
      ['cli/commands/send.ts', "const m = await import('../../mcp/stdio.js');", /lazy `await import/],
      ['server/http/app.ts', "import { tools } from '../../mcp/tools.js';", /lazy `await import/],
      ['lonely.ts', "export const x = 1;", /not inside a known layer/],
      ['server/pipeline/worker.ts', "import { insertReceived } from '../../db/repos/received.js';", /pipeline-worker may import only pipeline-worker, classifier, mail/],
      ['server/pipeline/worker.ts', "import { emitEvent } from '../../services/events.js';", /pipeline-worker may import only/],
      ['server/pipeline/worker.ts', "import { WorkerPool } from './pool.js';", /pipeline-worker may import only/],
      ['server/pipeline/pool.ts', "import { openDatabase } from '../../db/open.js';", /pipeline may import only pipeline, services, classifier, mail/],
      ['services/inbound.ts', "import { createPipeline } from '../server/pipeline/index.js';", /services may import only/],
      ['web/app.js', "import { ApiClient } from '../client/index.js';", /web may import only web/],
      ['web/app.js', "import { h } from 'preact';", /web \(browser code\) may import only other src\/web files/],
      ['server/http/routes/web.ts', "import '../../../web/app.js';", /server may import only/],
    ];
    for (const [file, text, re] of cases) {
      const problems = checkFile(file, text);
      if (re.source === '^$') expect(problems, file).toEqual([]);
      else expect(problems.join('\n'), `${file}: ${text}`).toMatch(re);
    }
  });

  it('allows what the rule allows', () => {
    const ok: [string, string][] = [
      ['cli/commands/serve.ts', "const { Daemon } = await import('../../server/daemon.js');"],
      ['cli/commands/init.ts', "const m = await import('../../server/config.js');"],
      ['cli/commands/agents.ts', "import { ApiClient } from '../../client/index.js';"],
      ['client/index.ts', "import { ApiError } from '../contract/errors.js';"],
      ['server/daemon.ts', "import { openDatabase } from '../db/open.js';"],
      ['server/http/app.ts', "import Fastify from 'fastify';"],
      ['server/smtp/listener.ts', "import { SMTPServer } from 'smtp-server';"],
      ['mail/parse.ts', "import { simpleParser } from 'mailparser';"],
      ['services/agents.ts', "import { getAgent } from '../db/repos/agents.js';\nimport type { Kysely } from 'kysely';"],
      ['db/open.ts', "import Database from 'better-sqlite3';"],
      ['shared/errors.ts', "import { ApiError } from '../contract/errors.js';\nimport { randomBytes } from 'node:crypto';"],
      ['contract/me.ts', "import { Type } from 'typebox';\nimport { Agent } from './agents.js';"],
      ['server/pipeline/worker.ts', "import { parseAndExtract } from '../../mail/parse.js';\nimport { classifyInbound } from '../../classifier/index.js';\nimport type { Job } from './protocol.js';\nimport { parentPort } from 'node:worker_threads';"],
      ['server/daemon.ts', "import { createPipeline } from './pipeline/index.js';"],
      ['cli/commands/mcp.ts', "const { serveStdio } = await import('../../mcp/stdio.js');"],
      ['server/http/routes/mcp.ts', "const m = await import('../../../mcp/http.js');"],
      ['mcp/server.ts', "import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { ApiError } from '../contract/errors.js';\nimport { createClient } from '../client/index.js';"],
    ];
    for (const [file, text] of ok) expect(checkFile(file, text), file).toEqual([]);
  });
});
