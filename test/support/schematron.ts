/**
 * The Peppol BIS Billing 3.0 rules (vendor/peppol-bis-invoice-3: CEN's EN 16931 rules bound to
 * UBL, and Peppol's own), and the Belgian rules of UBL.BE (vendor/ubl-be-1.31: its pattern
 * ubl-model-BE only, ubl-BE-01 … 15; the rest of that file is its own copy of the CEN and Peppol
 * rules, bound to UBL.BE's specification identifier), run offline on UBL documents by SaxonJS. The
 * Schematron files are compiled once per machine, by the project's own compiler
 * (schematron/schematron-to-xslt.xsl) and then to SaxonJS's SEF, into node_modules/.cache (about
 * 30 s of CPU; keyed by the files' hashes and the compiler's parameters). The compiler itself is
 * compiled to SEF once too and runs in this process: each run of it as an `xslt3` command cost
 * about 2 s of CPU (Node, SaxonJS and the compiler's own compilation), and the compiler's tests
 * run it 16 times.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SaxonJS from 'saxon-js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'invoice-mirror-schematron');

export const COMPILER = join(import.meta.dirname, 'schematron', 'schematron-to-xslt.xsl');
const XSLT3 = join(ROOT, 'node_modules', 'xslt3', 'xslt3.js');

/** Each rule set: its file, and the compiler's parameters (`patterns`: only those). */
export const RULE_SETS = {
  cen: { file: join(ROOT, 'vendor', 'peppol-bis-invoice-3', 'rules', 'sch', 'CEN-EN16931-UBL.sch'), params: [] },
  peppol: { file: join(ROOT, 'vendor', 'peppol-bis-invoice-3', 'rules', 'sch', 'PEPPOL-EN16931-UBL.sch'), params: [] },
  'ubl-be': { file: join(ROOT, 'vendor', 'ubl-be-1.31', 'GLOBALUBL.BE.sch'), params: ['patterns=ubl-model-BE'] },
} as const satisfies Record<string, { file: string; params: readonly string[] }>;
export type RuleSet = keyof typeof RULE_SETS;

let compiler: Promise<unknown> | undefined;

/** Compiles a Schematron file to XSLT text with the project's compiler (`params`: name=value); a refusal rejects with the compiler's message. */
export async function compileSchematron(file: string, out: string, params: readonly string[] = []): Promise<void> {
  const stylesheetParams = Object.fromEntries(
    params.map((param) => [`Q{}${param.slice(0, param.indexOf('='))}`, param.slice(param.indexOf('=') + 1)]),
  );
  compiler ??= cachedSef(`compiler-${digestOf([COMPILER])}`, async () => COMPILER);
  const result = await SaxonJS.transform(
    { stylesheetInternal: await compiler, sourceFileName: file, stylesheetParams, destination: 'serialized' },
    'async',
  );
  writeFileSync(out, result.principalResult ?? '');
}

/** Compiles an XSLT file to SaxonJS's SEF (`out`, JSON) with xslt3, the compiler SaxonJS runs without. */
export async function exportSef(xsl: string, out: string): Promise<void> {
  await run(process.execPath, [XSLT3, `-xsl:${xsl}`, `-export:${out}`, '-nogo', '-relocate:on'], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** SaxonJS's SEF of an XSLT file, from the cache (by `key`) or compiled into it from the file `source` gives. */
async function cachedSef(key: string, source: () => Promise<string>): Promise<unknown> {
  const sef = join(CACHE, `${key}.sef.json`);
  if (!existsSync(sef)) {
    mkdirSync(CACHE, { recursive: true });
    // Parallel test files may compile at once: each writes its own file and renames the result.
    const own = join(CACHE, `${key}-${process.pid}-${Date.now()}.sef.json`);
    await exportSef(await source(), own);
    renameSync(own, sef);
  }
  return JSON.parse(readFileSync(sef, 'utf8'));
}

/** The first 16 hex digits of the sha256 of the files' contents, then `text`. */
function digestOf(files: readonly string[], text = ''): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(file));
  return hash.update(text).digest('hex').slice(0, 16);
}

export interface Finding {
  rules: RuleSet;
  flag: string;
  id: string;
  location: string;
  message: string;
}

const compiled = new Map<RuleSet, Promise<unknown>>();

/** Compiles one rule set (or finds it compiled) and loads it. */
function compile(rules: RuleSet): Promise<unknown> {
  const { file, params } = RULE_SETS[rules];
  return cachedSef(`${rules}-${digestOf([COMPILER, file], params.join(' '))}`, async () => {
    const xsl = join(CACHE, `${rules}-${process.pid}-${Date.now()}.xsl`);
    await compileSchematron(file, xsl, params);
    return xsl;
  });
}

function loaded(rules: RuleSet): Promise<unknown> {
  let sef = compiled.get(rules);
  if (!sef) {
    sef = compile(rules);
    compiled.set(rules, sef);
  }
  return sef;
}

/** Every failed assert of the rule sets given on one UBL document (warnings too; `flag` tells them apart). */
export async function checkRules(xml: string, sets: readonly RuleSet[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const rules of sets) {
    const result = await SaxonJS.transform(
      { stylesheetInternal: await loaded(rules), sourceText: xml, destination: 'serialized' },
      'async',
    );
    for (const line of (result.principalResult ?? '').split('\n')) {
      if (line === '') continue;
      const [flag = '', id = '', location = '', message = ''] = line.split('\t');
      findings.push({ rules, flag, id, location, message });
    }
  }
  return findings;
}

/** Both Peppol BIS Billing 3.0 rule sets (CEN's and Peppol's). */
export const checkPeppol = (xml: string) => checkRules(xml, ['cen', 'peppol']);

/** Both Peppol rule sets and the Belgian rules (ubl-BE), for a Belgian account's documents. */
export const checkBelgian = (xml: string) => checkRules(xml, ['cen', 'peppol', 'ubl-be']);

export const fatal = (findings: readonly Finding[]) => findings.filter((finding) => finding.flag === 'fatal');
