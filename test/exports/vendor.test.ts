/**
 * The vendored schemas and rules (vendor/, each folder's README names its source) are exactly the
 * published files: every byte is pinned. Updating one means changing its pin here on purpose.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const VENDOR = join(import.meta.dirname, '..', '..', 'vendor');

const PINS: Record<string, string> = {
  'peppol-bis-invoice-3/rules/examples/Allowance-example.xml':
    'aa3df18eb8c634624637eb229891d989c5cfb7cd0d08894ff8e58c58f247ea5b',
  'peppol-bis-invoice-3/rules/examples/Vat-category-S.xml':
    '59f96ae9a77ed3eda4ac17f499994fbd1b050432edf3bb8c117d7f3bca8d5f95',
  'peppol-bis-invoice-3/rules/examples/base-creditnote-correction.xml':
    '08e0ad82e0dbe7e16d7533c01761843343a56954ea24881d0f7f1cce06f8879e',
  'peppol-bis-invoice-3/rules/examples/base-example.xml':
    '1b7cc3ff1834c8963f2c93f30f171b58002cbf0b2c52dc8765e7e83aebb9f7c9',
  'peppol-bis-invoice-3/rules/examples/base-negative-inv-correction.xml':
    '000781ee8cb7794a140bb1308f7f7a2c9ded3623571b4297aef38423971ab5a4',
  'peppol-bis-invoice-3/rules/examples/sales-order-example.xml':
    'cdb84e4ce1a770f6e4a8949dcbe37493bc37aeded5232b592a1a48feb221a504',
  'peppol-bis-invoice-3/rules/examples/vat-category-E.xml':
    'c699bb2bd290be769e082796873a528265bb5717285562feac030f0065e34742',
  'peppol-bis-invoice-3/rules/examples/vat-category-O.xml':
    'effff0baac622e1486c34240f06b9361cf58aaedbca44ac65826f1171d78f925',
  'peppol-bis-invoice-3/rules/examples/vat-category-Z.xml':
    '8dc6155288fb28daeead6adbf40c9c68a86a8a770c7bfc2bab8ee40b4e920f9a',
  'peppol-bis-invoice-3/rules/sch/CEN-EN16931-UBL.sch':
    '3c4d9d9161eca5f0a7e02d8a83975a90838439364d7c34007e8e4a32f342be1e',
  'peppol-bis-invoice-3/rules/sch/PEPPOL-EN16931-UBL.sch':
    '2840f5158f7bbdbf3b3f5d2ea391b9ac9e649e1fdbba8502bd8c15ec52924f23',
  'ubl-2.1/xsdrt/common/CCTS_CCT_SchemaModule-2.1.xsd':
    'dd546e4809df86b6445589f69f0d6c9df162840ae386574ddfc1da7638103e15',
  'ubl-2.1/xsdrt/common/UBL-CommonAggregateComponents-2.1.xsd':
    '580b5af6f68f7f556bd15945ba0e819cbf561442c81694f9b9468036ebedec4d',
  'ubl-2.1/xsdrt/common/UBL-CommonBasicComponents-2.1.xsd':
    'a3b349bf92e5cff26e303d2f05b7e00c884dcafcfd9e12755fb80289abf5e22e',
  'ubl-2.1/xsdrt/common/UBL-CommonExtensionComponents-2.1.xsd':
    'ad7a4e490978adfbcfc5ec0bb20941cf11ac960ccf0c4de8791a7c731a8dbe87',
  'ubl-2.1/xsdrt/common/UBL-CommonSignatureComponents-2.1.xsd':
    '4fa9e2370100040fe14c43e135ef77e2eb66b21cb8dbfc2ffb8d82ae991fe92e',
  'ubl-2.1/xsdrt/common/UBL-CoreComponentParameters-2.1.xsd':
    '8be3379dbdcbcc7802fafdd16bac72c48fff1c0bb364213a31a17911dd06100b',
  'ubl-2.1/xsdrt/common/UBL-ExtensionContentDataType-2.1.xsd':
    'fcee77a11870208e6377ea6311b9f2a050bca24bdad8606ea02d71e9f9e72f8d',
  'ubl-2.1/xsdrt/common/UBL-QualifiedDataTypes-2.1.xsd':
    '7dcb156e610239c97ae70940cf4653b88e48c3595bf5f56a2204a32e2893e6cf',
  'ubl-2.1/xsdrt/common/UBL-SignatureAggregateComponents-2.1.xsd':
    '9234c2ca48dbfa9a22a786112bb075c5922a305170920eaab1e3c04fa0b7344b',
  'ubl-2.1/xsdrt/common/UBL-SignatureBasicComponents-2.1.xsd':
    '0fbe2d7afff0c1e11164b8ec83e13f18801021c3c87e390a9d76f9cf862f6a64',
  'ubl-2.1/xsdrt/common/UBL-UnqualifiedDataTypes-2.1.xsd':
    '09052d406b4293e2a5f9c2bfee6df10ad4d8d5f0b36e24a6349d7f7936d89eb6',
  'ubl-2.1/xsdrt/common/UBL-XAdESv132-2.1.xsd': 'a4f726bcf8cc3f7d9ffa4dab99e005535a8e8b60dced1e5d94578d2e05afa96e',
  'ubl-2.1/xsdrt/common/UBL-XAdESv141-2.1.xsd': '1fa4625e9cefcb7a9abb5ac1b64315547450031eece8a55bd584e4ba4b79dbc1',
  'ubl-2.1/xsdrt/common/UBL-xmldsig-core-schema-2.1.xsd':
    '101909c9f06456d61ddcc4fb982f1d40dc357b439f393b1a2eb46e42acd60809',
  'ubl-2.1/xsdrt/maindoc/UBL-CreditNote-2.1.xsd': '1e117b6c1ab713604b29b0d685442a81a0c78a82575445ee8c43e6050cda7454',
  'ubl-2.1/xsdrt/maindoc/UBL-Invoice-2.1.xsd': '3a5aacd823f0e5b8f25ae7b5191c2002d5333ba351d87de9371ed62dca2b2b0c',
  'ubl-be-1.31/GLOBALUBL.BE.sch': 'fd9f7f2263c13a0e2167cb6455153cc94995d04d1b4215ebb7f6316897b58af7',
  'xaf-4.0.3/XAF_4_0_Test_100425.xaf': '3c3925f328fea765332b64e3d0ff31afd271f5d14aa005eb1a62c7f037aad488',
  'xaf-4.0.3/XmlAuditfileFinancieel4.0.xsd': 'f1b30dd82b22e049996f3e9b515b5f75db34268656113411f22be8a9a453607c',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [relative(VENDOR, path)];
  });
}

describe('vendor/', () => {
  const present = files(VENDOR).filter((file) => !file.endsWith('README.md'));

  it('holds exactly the pinned files', () => {
    expect(present.sort()).toEqual(Object.keys(PINS).sort());
  });

  it.each(Object.entries(PINS))('%s has its pinned SHA-256', (file, pin) => {
    expect(
      createHash('sha256')
        .update(readFileSync(join(VENDOR, file)))
        .digest('hex'),
    ).toBe(pin);
  });

  it('names each pinned schema and rule file in its folder README with the same hash', () => {
    for (const file of [
      'xaf-4.0.3/XmlAuditfileFinancieel4.0.xsd',
      'peppol-bis-invoice-3/rules/sch/CEN-EN16931-UBL.sch',
      'peppol-bis-invoice-3/rules/sch/PEPPOL-EN16931-UBL.sch',
      'ubl-be-1.31/GLOBALUBL.BE.sch',
    ]) {
      const readme = readFileSync(join(VENDOR, file.split('/')[0]!, 'README.md'), 'utf8');
      expect(readme).toContain(PINS[file]);
    }
  });
});
