/**
 * The import scan test/architecture.test.ts checks the dependency rule with (and
 * test/unit/server/thread-modules.test.ts follows to list what each thread loads).
 */
export interface ImportRef {
  spec: string;
  line: number;
  lazy: boolean;
  typeOnly: boolean;
}

/** Static imports, re-exports, `import()` and `require()` of a TypeScript source. */
export function scanImports(text: string): ImportRef[] {
  // Blank out comments but keep line numbers and string contents.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
  const out: ImportRef[] = [];
  const lineOf = (i: number) => code.slice(0, i).split('\n').length;
  const statics = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g;
  for (const m of code.matchAll(statics)) {
    if (m[1] === 'export' && !/from\s+['"]/.test(m[0])) continue;
    out.push({ spec: m[3], line: lineOf(m.index! + m[0].indexOf(m[3])), lazy: false, typeOnly: Boolean(m[2]) });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g)) out.push({ spec: m[1], line: lineOf(m.index!), lazy: true, typeOnly: false });
  for (const m of code.matchAll(/\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g)) out.push({ spec: m[1], line: lineOf(m.index!), lazy: false, typeOnly: false });
  return out;
}
