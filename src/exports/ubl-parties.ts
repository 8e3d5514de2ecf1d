/**
 * The parties of a Peppol BIS Billing 3.0 document: the seller (the administration) and the buyer
 * (the invoice's client), with their Peppol electronic addresses (BT-34, BT-49), which the
 * network requires. A VAT number gives one where its country has an EAS scheme for it.
 */
import type { Address, Customer, Seller } from './model.js';
import { text, type XmlElement } from './xml.js';

// Electronic address schemes (EAS code list) of VAT numbers, by the number's country prefix; a
// Belgian party is reached by its enterprise number (the VAT number's digits).
const VAT_SCHEMES: Record<string, { scheme: string; digitsOnly?: boolean }> = {
  NL: { scheme: '9944' },
  BE: { scheme: '0208', digitsOnly: true },
  DE: { scheme: '9930' },
  FR: { scheme: '9957' },
  ES: { scheme: '9920' },
  AT: { scheme: '9914' },
  GB: { scheme: '9932' },
};

/** The Peppol address a VAT number stands for, when its country has a scheme here. */
export function endpointOfVat(vatNumber: string | undefined): { scheme: string; id: string } | undefined {
  if (!vatNumber) return undefined;
  const known = VAT_SCHEMES[vatNumber.slice(0, 2).toUpperCase()];
  if (!known) return undefined;
  return { scheme: known.scheme, id: known.digitsOnly ? vatNumber.replaceAll(/\D/g, '') : vatNumber };
}

export const withAttribute = (value: string, name: string, attribute: string): XmlElement => ({
  '#text': value,
  [`@_${name}`]: attribute,
});

function postalAddress(address: Address): XmlElement {
  return {
    'cbc:StreetName': text(address.street),
    'cbc:CityName': text(address.city),
    'cbc:PostalZone': text(address.postalCode),
    'cac:Country': { 'cbc:IdentificationCode': address.country ?? '' },
  };
}

const taxScheme = (vatNumber: string) => ({ 'cbc:CompanyID': vatNumber, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });

export function sellerParty(seller: Seller): XmlElement {
  const endpoint = seller.endpoint ?? endpointOfVat(seller.vatNumber)!;
  return {
    'cac:Party': {
      'cbc:EndpointID': withAttribute(endpoint.id, 'schemeID', endpoint.scheme),
      'cac:PartyName': { 'cbc:Name': text(seller.name) },
      'cac:PostalAddress': postalAddress({ ...seller.address, country: seller.address.country ?? seller.country }),
      'cac:PartyTaxScheme': taxScheme(seller.vatNumber),
      'cac:PartyLegalEntity': {
        'cbc:RegistrationName': text(seller.name),
        'cbc:CompanyID': seller.kvk ? withAttribute(seller.kvk, 'schemeID', '0106') : undefined,
      },
      'cac:Contact': seller.email ? { 'cbc:ElectronicMail': text(seller.email) } : undefined,
    },
  };
}

export function buyerParty(customer: Customer, endpoint: { scheme: string; id: string }): XmlElement {
  return {
    'cac:Party': {
      'cbc:EndpointID': withAttribute(endpoint.id, 'schemeID', endpoint.scheme),
      'cac:PartyName': { 'cbc:Name': text(customer.name) },
      'cac:PostalAddress': postalAddress(customer.address),
      'cac:PartyTaxScheme': customer.vatNumber ? taxScheme(customer.vatNumber) : undefined,
      'cac:PartyLegalEntity': { 'cbc:RegistrationName': text(customer.name) },
      'cac:Contact': customer.email ? { 'cbc:ElectronicMail': text(customer.email) } : undefined,
    },
  };
}

export function deliveryTo(date: string, address: Address): XmlElement {
  return { 'cbc:ActualDeliveryDate': date, 'cac:DeliveryLocation': { 'cac:Address': postalAddress(address) } };
}
