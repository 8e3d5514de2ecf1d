// The TypeScript files under a folder, parsed by the compiler (node_modules/typescript), for the
// scripts that measure the source: import-cycles.mjs and function-lengths.mjs.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root, which paths are shown relative to. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every .ts file under `folder` (relative to the root), sorted, with its syntax tree. */
export function sourceFiles(folder) {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath ?? entry.path, entry.name)))
    .sort()
    .map((path) => ({
      path,
      tree: ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true),
    }));
}
