// Finds import cycles among the modules under a folder (default src/): static imports, re-exports
// and lazy `import()` all count, since each makes one module load another, and so do `import type`
// and `export type`: the compiler erases them, but two modules that need each other's types are
// still one concern split in two (issue 43). Prints one loop per cycle and exits 1 when there is any.
//   node scripts/import-cycles.mjs [folder]
// test/foundation/repository.test.ts runs it on src/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { ROOT, sourceFiles } from './source-files.mjs';

/** The module specifiers a file imports or re-exports from, for its values or its types. */
function imports(tree) {
  const found = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) found.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) found.push(node.moduleSpecifier.text);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      found.push(node.argument.literal.text); // `import('./x.js').T` in a type
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (or its index.ts); undefined for a package. */
function resolve(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(join(ROOT, path)));
}

/** The strongly connected components of more than one module (or one importing itself), Tarjan's way. */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const connect = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    for (const next of graph.get(node)) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || graph.get(node).has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found;
}

/** One loop through a component, from its first module back to it (breadth first: a shortest one). */
function loopThrough(graph, component) {
  const [start] = component;
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node)) {
      if (next === start) {
        const loop = [node];
        while (previous.get(loop[0])) loop.unshift(previous.get(loop[0]));
        return [...loop, start];
      }
      if (component.includes(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
}

const folder = process.argv[2] ?? 'src';
const files = sourceFiles(folder);
const graph = new Map(files.map(({ path }) => [path, new Set()]));
for (const { path, tree } of files)
  for (const specifier of imports(tree)) {
    const target = resolve(path, specifier);
    if (target && graph.has(target)) graph.get(path).add(target);
  }

const found = cycles(graph);
if (found.length === 0) process.stdout.write(`no import cycles in ${folder}/\n`);
else {
  process.stdout.write(`${found.length} import cycle${found.length === 1 ? '' : 's'} in ${folder}/:\n`);
  for (const component of found)
    process.stdout.write(
      `  ${component.length} files: ${component.join(', ')}\n    e.g. ${loopThrough(graph, component).join(' → ')}\n`,
    );
  process.exitCode = 1;
}
