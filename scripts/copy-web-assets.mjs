// Build step: the web inbox's assets (plain ES modules, CSS, HTML in src/web) are copied beside the
// compiled server, so dist/ holds everything `mailagent serve` sends (no bundler, nothing fetched).
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src', 'web');
const to = join(root, 'dist', 'web');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) {
  if (/\.(html|js|css|svg)$/.test(name)) cpSync(join(from, name), join(to, name));
}
