/**
 * Which number a new line gets (issue 26 item 7): one bought to the customer's criteria (country,
 * number type, area code) or one the carrier account already owns, imported. Pure: what
 * libphonenumber-js (full metadata) can tell about a country, an area code or a number is checked
 * here; whether the carrier has such a number is the carrier's answer (`NumberUnavailableError`).
 */
import {
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  type CountryCode,
  type NumberType as PhoneNumberKind,
} from 'libphonenumber-js/max';
import type { LineFieldProblem } from './rules';

export const NUMBER_TYPES = ['local', 'toll_free', 'mobile'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];
export const DEFAULT_NUMBER_TYPE: NumberType = 'local';
export const DEFAULT_COUNTRY = 'US';

/** Where a line's number came from: bought for it, or brought from the carrier account (kept there on release). */
export const NUMBER_SOURCES = ['purchased', 'imported'] as const;
export type NumberSource = (typeof NUMBER_SOURCES)[number];

/** The request field a carrier's "nothing matches" names. */
export const NUMBER_CRITERIA = ['area_code', 'number_type', 'country', 'phone_number'] as const;
export type NumberCriterion = (typeof NUMBER_CRITERIA)[number];

/** The refusal code of a number the carrier cannot provide as asked (documented in the OpenAPI document). */
export const NUMBER_UNAVAILABLE = 'number_unavailable';

/** The create body's number fields (wire names). */
export interface NumberChoiceRequest {
  area_code?: string | null;
  country?: string | null;
  number_type?: string | null;
  phone_number?: string | null;
}

export type NumberChoice =
  | { source: 'purchased'; country: string; numberType: NumberType; areaCode: string | null }
  | { source: 'imported'; phoneNumber: string; country: string; numberType: NumberType };

export type NumberChoiceOutcome = { ok: true; choice: NumberChoice } | { ok: false; problems: LineFieldProblem[] };

/** NANP area codes (NPA): three digits, the first 2-9. The OpenAPI document states it too (api/openapi/fields.ts). */
export const NANP_AREA_CODE = /^[2-9]\d{2}$/;
export const NANP_AREA_CODE_MESSAGE = 'Must be a three-digit area code (NPA) whose first digit is 2-9';
/** The countries of the North American Numbering Plan (calling code 1), whose area codes take NANP_AREA_CODE's form. */
export const NANP_COUNTRIES: readonly CountryCode[] = getCountries().filter((country) => getCountryCallingCode(country) === '1');
/** A national destination code elsewhere: as dialled after the country code (Italy's keep their 0). */
const NATIONAL_DESTINATION_CODE = /^\d{1,6}$/;

/** What each number type may be, in libphonenumber's words. */
const KINDS_OF: Record<NumberType, ReadonlySet<PhoneNumberKind>> = {
  local: new Set<PhoneNumberKind>(['FIXED_LINE', 'FIXED_LINE_OR_MOBILE', 'VOIP', 'UAN', 'PERSONAL_NUMBER']),
  toll_free: new Set<PhoneNumberKind>(['TOLL_FREE']),
  mobile: new Set<PhoneNumberKind>(['MOBILE', 'FIXED_LINE_OR_MOBILE']),
};

/** Subscriber digits tried after an area code: a code is real when some number under it is valid. */
const FILLERS = ['2345678901234', '5550123456789', '1234567890123', '9876543210987', '0000000000000', '6000000000000', '3000000000000'];
const MAX_NATIONAL_DIGITS = 15;

/**
 * Validates the number fields of a create body and decides what provisioning does. `phone_number`
 * (an import) excludes the search criteria; without it the defaults are a local number in the US.
 */
export function chooseNumber(request: NumberChoiceRequest): NumberChoiceOutcome {
  const given = (field: keyof NumberChoiceRequest) => request[field] !== undefined && request[field] !== null;
  if (given('phone_number')) {
    const conflicting = (['area_code', 'country', 'number_type'] as const).filter(given);
    if (conflicting.length > 0)
      return refuse(conflicting.map((field) => ({ field, message: 'Not with phone_number: an imported number is the number it is' })));
    return importChoice(String(request.phone_number));
  }
  const problems: LineFieldProblem[] = [];
  const numberType = (request.number_type ?? DEFAULT_NUMBER_TYPE) as NumberType;
  if (!NUMBER_TYPES.includes(numberType)) problems.push({ field: 'number_type', message: `Must be one of ${NUMBER_TYPES.join(', ')}` });
  const country = request.country ?? DEFAULT_COUNTRY;
  if (!/^[A-Z]{2}$/.test(country) || !isSupportedCountry(country)) {
    problems.push({ field: 'country', message: 'Must be an ISO 3166-1 alpha-2 country code with telephone numbers (US, CA, GB…)' });
  }
  if (problems.length > 0) return refuse(problems);
  const areaCode = request.area_code ?? null;
  if (areaCode !== null) {
    const problem = areaCodeProblem(country as CountryCode, areaCode, numberType);
    if (problem) return refuse([{ field: 'area_code', message: problem }]);
  }
  return { ok: true, choice: { source: 'purchased', country, numberType, areaCode } };
}

function refuse(problems: LineFieldProblem[]): NumberChoiceOutcome {
  return { ok: false, problems };
}

function importChoice(raw: string): NumberChoiceOutcome {
  const parsed = raw.startsWith('+') ? parsePhoneNumberFromString(raw, { extract: false }) : undefined;
  if (!parsed || !parsed.isValid() || parsed.number !== raw) {
    return refuse([{ field: 'phone_number', message: 'Must be a valid phone number in E.164 (+14155550123)' }]);
  }
  if (!parsed.country) return refuse([{ field: 'phone_number', message: 'Must be a number of a country, not a non-geographic one' }]);
  return {
    ok: true,
    choice: { source: 'imported', phoneNumber: parsed.number, country: parsed.country, numberType: typeOfNumber(parsed) },
  };
}

/** The number type of an owned number, as libphonenumber classifies it (anything not toll-free or mobile is local). */
function typeOfNumber(parsed: { getType(): PhoneNumberKind | undefined }): NumberType {
  const kind = parsed.getType();
  if (kind === 'TOLL_FREE') return 'toll_free';
  if (kind === 'MOBILE') return 'mobile';
  return 'local';
}

/**
 * Whether `areaCode` can hold numbers of `numberType` in `country`: its form (NANP: three digits,
 * the first 2-9), then libphonenumber's metadata (some valid number of that kind begins with it).
 * Undefined when it can; otherwise what is wrong.
 */
export function areaCodeProblem(country: CountryCode, areaCode: string, numberType: NumberType): string | undefined {
  const callingCode = getCountryCallingCode(country);
  const nanp = callingCode === '1';
  if (!(nanp ? NANP_AREA_CODE : NATIONAL_DESTINATION_CODE).test(areaCode)) {
    return nanp ? NANP_AREA_CODE_MESSAGE : 'Must be the digits of a national destination code (1-6)';
  }
  const kinds = kindsUnder(country, callingCode, areaCode);
  if (kinds.size === 0) return `Not an area code of ${country}`;
  if (![...kinds].some((kind) => KINDS_OF[numberType].has(kind)))
    return `Not an area code of ${numberType.replace('_', '-')} numbers in ${country}`;
  return undefined;
}

function kindsUnder(country: CountryCode, callingCode: string, areaCode: string): Set<PhoneNumberKind> {
  const kinds = new Set<PhoneNumberKind>();
  for (const filler of FILLERS) {
    for (let digits = areaCode.length + 1; digits <= MAX_NATIONAL_DIGITS; digits++) {
      const parsed = parsePhoneNumberFromString(`+${callingCode}${(areaCode + filler).slice(0, digits)}`);
      const kind = parsed?.country === country && parsed.isValid() ? parsed.getType() : undefined;
      if (kind) kinds.add(kind);
    }
  }
  return kinds;
}

/**
 * What the customer reads when the carrier has no number as asked. Built here from the request,
 * never from the carrier's text; an import says the same whatever the reason, so whether another
 * workspace holds a number, or the account owns it at all, cannot be learnt from it.
 */
export function numberUnavailableMessage(choice: NumberChoice, field: NumberCriterion): string {
  if (choice.source === 'imported' || field === 'phone_number') {
    return 'This number cannot be imported: the carrier account does not own it for this workspace, or it is in use';
  }
  const type = choice.numberType.replace('_', '-');
  switch (field) {
    case 'number_type':
      return `The carrier does not offer ${type} numbers in ${choice.country}`;
    case 'area_code':
      return `No ${type} numbers are available in area code ${choice.areaCode} (${choice.country}); try another area code or none`;
    case 'country':
      return `No ${type} numbers are available in ${choice.country}`;
  }
}
