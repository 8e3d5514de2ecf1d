// The longest functions under a folder: every function declaration, method (constructors and
// accessors too), arrow function and function expression, by its length in lines (from its first
// token to its last, nested functions included). A function without a name of its own is named
// after what holds it: `x` for `const x = () => …`, `.action callback` for `.action(async () => …)`.
//   node scripts/function-lengths.mjs [folder] [--top N] [--exclude folder]…
// e.g. node scripts/function-lengths.mjs src --top 10 --exclude src/sandbox
import ts from 'typescript';
import { sourceFiles } from './source-files.mjs';

const args = process.argv.slice(2);
const option = (name) => args.flatMap((arg, i) => (arg === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
const top = Number(option('--top')[0] ?? 20);
const excluded = option('--exclude').map((folder) => folder.replace(/\/+$/, ''));
const folder = args.find((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'src';
if (!Number.isInteger(top) || top < 1) throw new Error('--top: must be a whole number of at least 1');

/** The name of a function: its own, or that of the variable, property or call that holds it. */
function nameOf(node, tree) {
  if (node.name) return node.name.getText(tree);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText(tree);
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression;
    const called = ts.isPropertyAccessExpression(callee) ? `.${callee.name.text}` : callee.getText(tree);
    return `${called} callback`;
  }
  return '(anonymous)';
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

const functions = [];
for (const { path, tree } of sourceFiles(folder)) {
  if (excluded.some((skip) => path === skip || path.startsWith(`${skip}/`))) continue;
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const first = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line;
      const last = tree.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ lines: last - first + 1, where: `${path}:${first + 1}`, name: nameOf(node, tree) });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
}

functions.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where, 'en', { numeric: true }));
const shown = functions.slice(0, top);
const width = Math.max(...shown.map((f) => f.where.length));
for (const { lines, where, name } of shown)
  process.stdout.write(`${String(lines).padStart(5)}  ${where.padEnd(width)}  ${name}\n`);
