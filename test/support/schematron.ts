/**
 * The Peppol BIS Billing 3.0 rules (vendor/peppol-bis-invoice-3: CEN's EN 16931 rules bound to
 * UBL, and Peppol's own), and the Belgian rules of UBL.BE (vendor/ubl-be-1.31: its pattern
 * ubl-model-BE only, ubl-BE-01 … 15; the rest of that file is its own copy of the CEN and Peppol
 * rules, bound to UBL.BE's specification identifier), run offline on UBL documents by SaxonJS. The
 * Schematron files are compiled once per machine, by the project's own compiler
 * (schematron/schematron-to-xslt.xsl) and then to SaxonJS's SEF, into node_modules/.cache (about
 * 15 s; keyed by the files' hashes and the compiler's parameters).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SaxonJS from 'saxon-js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'invoice-mirror-schematron');

export const COMPILER = join(import.meta.dirname, 'schematron', 'schematron-to-xslt.xsl');
export const XSLT3 = join(ROOT, 'node_modules', 'xslt3', 'xslt3.js');

/** Each rule set: its file, and the compiler's parameters (`patterns`: only those). */
export const RULE_SETS = {
  cen: { file: join(ROOT, 'vendor', 'peppol-bis-invoice-3', 'rules', 'sch', 'CEN-EN16931-UBL.sch'), params: [] },
  peppol: { file: join(ROOT, 'vendor', 'peppol-bis-invoice-3', 'rules', 'sch', 'PEPPOL-EN16931-UBL.sch'), params: [] },
  'ubl-be': { file: join(ROOT, 'vendor', 'ubl-be-1.31', 'GLOBALUBL.BE.sch'), params: ['patterns=ubl-model-BE'] },
} as const satisfies Record<string, { file: string; params: readonly string[] }>;
export type RuleSet = keyof typeof RULE_SETS;

/** Compiles a Schematron file to XSLT text with the project's compiler (`params`: name=value). */
export async function compileSchematron(file: string, out: string, params: readonly string[] = []): Promise<void> {
  await run(process.execPath, [XSLT3, `-xsl:${COMPILER}`, `-s:${file}`, `-o:${out}`, ...params]);
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
async function compile(rules: RuleSet): Promise<unknown> {
  const { file, params } = RULE_SETS[rules];
  const digest = createHash('sha256')
    .update(readFileSync(COMPILER))
    .update(readFileSync(file))
    .update(params.join(' '));
  const sef = join(CACHE, `${rules}-${digest.digest('hex').slice(0, 16)}.sef.json`);
  if (!existsSync(sef)) {
    mkdirSync(CACHE, { recursive: true });
    // Parallel test files may compile at once: each writes its own files and renames the result.
    const own = join(CACHE, `${rules}-${process.pid}-${Date.now()}`);
    await compileSchematron(file, `${own}.xsl`, params);
    await run(process.execPath, [XSLT3, `-xsl:${own}.xsl`, `-export:${own}.sef.json`, '-nogo', '-relocate:on'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    renameSync(`${own}.sef.json`, sef);
  }
  return JSON.parse(readFileSync(sef, 'utf8'));
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
