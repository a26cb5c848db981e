import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * The data dir, the database and its backups hold mail, API key hashes and webhook secrets: they
 * are made readable by their owner only whatever the umask (a shell's 022 made them 0755/0644;
 * systemd's UMask=0077 hid that). Directories that already exist are left as they are (the
 * operator chose them: chmod of a shared parent such as /tmp would break other users).
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * mkdir -p with 0700 on every directory created (mkdir's mode is masked by the umask: set it
 * again). Answers the first directory it created, or undefined when `dir` existed.
 */
export function makePrivateDir(dir: string): string | undefined {
  // mkdirSync answers the first directory it created (or undefined): chmod that one and those below it.
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return undefined;
  let d = first;
  chmodQuietly(d, PRIVATE_DIR_MODE);
  for (const part of relative(first, dir).split(sep).filter(Boolean)) {
    d = join(d, part);
    chmodQuietly(d, PRIVATE_DIR_MODE);
  }
  return first;
}

/** Create `file` empty with 0600 if it does not exist, so whatever writes it next keeps that mode. */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  chmodQuietly(file, PRIVATE_FILE_MODE);
}

/** Take group/other bits off a file of ours that has them (older versions wrote 0644). */
export function tightenFile(file: string): void {
  try {
    if (statSync(file).mode & 0o077) chmodSync(file, PRIVATE_FILE_MODE);
  } catch {
    /* absent, or not ours (chmod is the owner's): left alone */
  }
}

function chmodQuietly(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch {
    /* not ours: left alone */
  }
}
