import { z } from 'zod';
import { labelText } from './text.ts';
import { organizationNameSchema } from './signup.ts';

/** ISO 3166-1 alpha-2 codes (plus XK, Kosovo); the console shows their names with Intl.DisplayNames. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
  'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
  'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
  'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
  'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
  'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
  'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

export const INDUSTRIES = [
  'Agriculture',
  'Construction',
  'Education',
  'Energy and utilities',
  'Financial services',
  'Government and public sector',
  'Healthcare',
  'Hospitality and tourism',
  'Information technology',
  'Legal services',
  'Manufacturing',
  'Media and entertainment',
  'Non-profit',
  'Professional services',
  'Real estate',
  'Retail and e-commerce',
  'Telecommunications',
  'Transport and logistics',
  'Other',
] as const;

export const ORGANIZATION_SIZES = ['1-10', '11-50', '51-200', '201-1000', '1001-5000', '5001+'] as const;

/** IANA time zones this runtime knows (Node and every current browser expose the same list). */
export function isKnownTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** An empty select or text box means "not given". */
const optional = <T extends z.ZodType<string | null>>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), schema.nullable());

export const organizationProfileBodySchema = z.object({
  name: organizationNameSchema,
  legalName: optional(labelText(z.string().trim().max(200, 'Use at most 200 characters'))),
  industry: optional(z.enum(INDUSTRIES, { message: 'Choose an industry from the list' })),
  size: optional(z.enum(ORGANIZATION_SIZES, { message: 'Choose a size from the list' })),
  country: optional(
    z.string().refine((v) => COUNTRY_CODES.includes(v), { message: 'Choose a country from the list' }),
  ),
  timeZone: optional(
    z.string().refine(isKnownTimeZone, { message: 'Choose a time zone from the list, e.g. Europe/Paris' }),
  ),
});
export type OrganizationProfileInput = z.input<typeof organizationProfileBodySchema>;
export type OrganizationProfileBody = z.output<typeof organizationProfileBodySchema>;

export const organizationProfileSchema = z.object({
  id: z.string(),
  name: z.string(),
  legalName: z.string().nullable(),
  industry: z.string().nullable(),
  size: z.string().nullable(),
  country: z.string().nullable(),
  timeZone: z.string().nullable(),
  /** Read-only: chosen at sign-up. */
  siteName: z.string(),
  siteUrl: z.string(),
});
export type OrganizationProfile = z.infer<typeof organizationProfileSchema>;
