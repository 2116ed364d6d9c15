/**
 * Country and language names as users write them, mapped to the codes the
 * providers take (ISO 3166-1 alpha-2, ISO 639-1). Data only; unknown names
 * resolve to null and the adapters then pass the name as free text.
 */

const COUNTRIES: Record<string, string> = {
  argentina: 'AR',
  australia: 'AU',
  austria: 'AT',
  bangladesh: 'BD',
  belgium: 'BE',
  brazil: 'BR',
  bulgaria: 'BG',
  canada: 'CA',
  chile: 'CL',
  china: 'CN',
  colombia: 'CO',
  croatia: 'HR',
  czechia: 'CZ',
  'czech republic': 'CZ',
  denmark: 'DK',
  egypt: 'EG',
  estonia: 'EE',
  finland: 'FI',
  france: 'FR',
  germany: 'DE',
  greece: 'GR',
  'hong kong': 'HK',
  hungary: 'HU',
  iceland: 'IS',
  india: 'IN',
  indonesia: 'ID',
  ireland: 'IE',
  israel: 'IL',
  italy: 'IT',
  japan: 'JP',
  kenya: 'KE',
  latvia: 'LV',
  lithuania: 'LT',
  luxembourg: 'LU',
  malaysia: 'MY',
  mexico: 'MX',
  morocco: 'MA',
  netherlands: 'NL',
  'the netherlands': 'NL',
  'new zealand': 'NZ',
  nigeria: 'NG',
  norway: 'NO',
  pakistan: 'PK',
  peru: 'PE',
  philippines: 'PH',
  poland: 'PL',
  portugal: 'PT',
  romania: 'RO',
  'saudi arabia': 'SA',
  serbia: 'RS',
  singapore: 'SG',
  slovakia: 'SK',
  slovenia: 'SI',
  'south africa': 'ZA',
  'south korea': 'KR',
  korea: 'KR',
  spain: 'ES',
  sweden: 'SE',
  switzerland: 'CH',
  taiwan: 'TW',
  thailand: 'TH',
  turkey: 'TR',
  türkiye: 'TR',
  ukraine: 'UA',
  'united arab emirates': 'AE',
  uae: 'AE',
  'united kingdom': 'GB',
  uk: 'GB',
  'great britain': 'GB',
  england: 'GB',
  'united states': 'US',
  'united states of america': 'US',
  usa: 'US',
  us: 'US',
  vietnam: 'VN',
  'viet nam': 'VN',
};

const LANGUAGES: Record<string, string> = {
  arabic: 'ar',
  bengali: 'bn',
  bulgarian: 'bg',
  catalan: 'ca',
  chinese: 'zh',
  croatian: 'hr',
  czech: 'cs',
  danish: 'da',
  dutch: 'nl',
  english: 'en',
  estonian: 'et',
  finnish: 'fi',
  french: 'fr',
  german: 'de',
  greek: 'el',
  hebrew: 'he',
  hindi: 'hi',
  hungarian: 'hu',
  icelandic: 'is',
  indonesian: 'id',
  italian: 'it',
  japanese: 'ja',
  korean: 'ko',
  latvian: 'lv',
  lithuanian: 'lt',
  malay: 'ms',
  norwegian: 'no',
  persian: 'fa',
  polish: 'pl',
  portuguese: 'pt',
  romanian: 'ro',
  russian: 'ru',
  serbian: 'sr',
  slovak: 'sk',
  slovenian: 'sl',
  spanish: 'es',
  swahili: 'sw',
  swedish: 'sv',
  tagalog: 'tl',
  thai: 'th',
  turkish: 'tr',
  ukrainian: 'uk',
  urdu: 'ur',
  vietnamese: 'vi',
};

const COUNTRY_NAMES = new Map<string, string>();
for (const [name, code] of Object.entries(COUNTRIES)) {
  // First spelling listed wins, so codes read back as the common name.
  if (!COUNTRY_NAMES.has(code) && name.length > 3)
    COUNTRY_NAMES.set(
      code,
      name.replace(/\b\w/g, (c) => c.toUpperCase()),
    );
}
const LANGUAGE_NAMES = new Map(
  Object.entries(LANGUAGES).map(([name, code]) => [code, name.replace(/^\w/, (c) => c.toUpperCase())]),
);

export interface Locale {
  code: string | null;
  name: string | null;
}

/** "United States", "US" or "us" -> { code: "US", name: "United States" }. */
export function resolveCountry(input: string | null | undefined): Locale {
  const raw = input?.trim();
  if (!raw) return { code: null, name: null };
  const byName = COUNTRIES[raw.toLowerCase()];
  if (byName) return { code: byName, name: COUNTRY_NAMES.get(byName) ?? raw };
  if (/^[A-Za-z]{2}$/.test(raw) && COUNTRY_NAMES.has(raw.toUpperCase())) {
    const code = raw.toUpperCase();
    return { code, name: COUNTRY_NAMES.get(code) ?? raw };
  }
  return { code: null, name: raw };
}

/** "English", "en" or "en-US" -> { code: "en", name: "English" }. */
export function resolveLanguage(input: string | null | undefined): Locale {
  const raw = input?.trim();
  if (!raw) return { code: null, name: null };
  const byName = LANGUAGES[raw.toLowerCase()];
  if (byName) return { code: byName, name: LANGUAGE_NAMES.get(byName) ?? raw };
  const primary = raw.toLowerCase().split(/[-_]/)[0] ?? '';
  if (/^[a-z]{2}$/.test(primary) && LANGUAGE_NAMES.has(primary))
    return { code: primary, name: LANGUAGE_NAMES.get(primary) ?? raw };
  return { code: null, name: raw };
}

/** Google's `gl` differs from ISO for the United Kingdom. */
export function googleCountry(code: string | null): string | null {
  if (!code) return null;
  return code === 'GB' ? 'uk' : code.toLowerCase();
}

/** Google's `hl` takes regional Chinese variants. */
export function googleLanguage(code: string | null, countryCode: string | null): string | null {
  if (!code) return null;
  if (code === 'zh') return countryCode === 'TW' || countryCode === 'HK' ? 'zh-tw' : 'zh-cn';
  return code;
}
