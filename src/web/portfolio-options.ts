// The fixed choices of the portfolio form. Codes are listed here rather than taken
// from the runtime's ICU data so that what is accepted does not change with Node;
// only the English names shown beside them come from Intl.
import type { SelectOption } from './form-fields.ts';

/** ISO 4217 codes of currencies in use (funds, precious metals and testing codes left out). */
export const CURRENCY_CODES: readonly string[] = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD
GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT
LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR
NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD
SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD
XCG XOF XPF YER ZAR ZMW ZWG ZWL`.trim().split(/\s+/);

/** ISO 3166-1 alpha-2: the 249 officially assigned codes. */
export const COUNTRY_CODES: readonly string[] = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ
BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR
CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF
PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI
SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR
TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`.trim().split(/\s+/);

export const SALE_ALLOCATION_METHODS: readonly SelectOption[] = [
  { value: 'fifo', label: 'First in, first out' },
  { value: 'lifo', label: 'Last in, first out' },
  { value: 'minimise_cgt', label: 'Minimise capital gains' },
  { value: 'maximise_cgt', label: 'Maximise capital gains' },
  { value: 'average', label: 'Average cost' },
];

export const INTEREST_METHODS: readonly SelectOption[] = [
  { value: 'simple', label: 'Simple' },
  { value: 'compound', label: 'Compound' },
];

/** Capital gains discount; the empty value stands for none. */
export const CG_DISCOUNTS: readonly SelectOption[] = [
  { value: '', label: 'None' },
  { value: '50%', label: '50% (individuals and trusts)' },
  { value: '33.33%', label: '33.33% (complying super funds)' },
];

/** Whether the owner trades as a business; the empty value leaves it unsaid. */
export const TRADER_CHOICES: readonly SelectOption[] = [
  { value: '', label: 'Not set' },
  { value: 'false', label: 'No, an investor' },
  { value: 'true', label: 'Yes, a trader' },
];

function named(codes: readonly string[], type: 'currency' | 'region'): SelectOption[] {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames(['en'], { type, fallback: 'none' });
  } catch { /* a runtime without ICU names: codes alone */ }
  const options = codes.map((code) => {
    const name = names?.of(code);
    return { value: code, label: name === undefined || name === code ? code : type === 'currency' ? `${code} – ${name}` : name };
  });
  return type === 'region' ? options.sort((a, b) => a.label.localeCompare(b.label, 'en')) : options;
}

/**
 * Computed on first use, not at start: the English names and the zone list come
 * from ICU data inside the Node binary, and reading them at start kept ~15 MB of
 * it resident in every process, also in ones that only serve the API.
 */
function once<T>(compute: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= compute());
}

export const currencyOptions = once((): readonly SelectOption[] => named(CURRENCY_CODES, 'currency'));
export const countryOptions = once((): readonly SelectOption[] => named(COUNTRY_CODES, 'region'));

/** Suggestions for the time-zone field; any zone the runtime knows is accepted. */
export const timeZoneSuggestions = once((): readonly string[] => {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
});

export const countryName = (code: string) => countryOptions().find((option) => option.value === code)?.label ?? code;
