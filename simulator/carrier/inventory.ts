import crypto from 'node:crypto';

/**
 * What the simulated carrier sells: per country, per number type, the area codes (national
 * destination codes) it has numbers in and how their subscriber digits run. Fixed, so tests can
 * rely on it (docs/simulator.md, "Numbers for sale"): US mobile numbers are not sold (a type not
 * offered), US area code 564 has no numbers (a valid area code with no inventory), and FR has none
 * at all. Every number is valid in libphonenumber's full metadata.
 */
export type SimNumberType = 'local' | 'toll_free' | 'mobile';

interface Range {
  /** The area code (NANP NPA, or national destination code). */
  prefix: string;
  /** The digits after the prefix, fixed part. */
  exchange: string;
  /** First and last of the variable subscriber digits (as numbers, zero-padded to `digits`). */
  from: number;
  to: number;
  digits: number;
}

/**
 * US area codes local numbers are drawn from: 555-2000…9999 in each, about two million numbers.
 * Never 650, which tests keep for remote parties, nor 564 (no inventory). Many codes, because every
 * test file's simulator draws on its own while all of them share one database, where a number may
 * be held by one line only: with ten codes (80,000 numbers) a full run drew a number another
 * file's line held, and that line never became active. The harness also withholds the numbers its
 * database's lines hold (`NumberSimulatorState.withhold`): a full run with these codes still drew one.
 */
const US_AREA_CODES =
  '201 202 203 205 206 207 208 209 210 212 213 214 215 216 217 218 219 224 225 231 234 239 240 248 251 252 253 254 256 260 262 267 269 270 272 276 281 301 302 303 304 305 307 308 309 310 312 313 314 315 316 317 318 319 320 321 323 325 330 331 334 336 337 339 347 351 352 360 361 385 386 401 402 404 405 406 407 408 409 410 412 413 414 415 417 419 423 424 425 430 432 434 435 440 442 443 469 470 475 478 479 480 484 501 502 503 504 505 507 508 509 510 512 513 515 516 517 518 520 530 540 541 551 559 561 562 563 567 570 571 573 574 575 580 585 586 601 602 603 605 606 607 608 609 610 612 614 615 616 617 618 619 620 623 626 630 631 636 641 646 657 660 661 662 678 682 701 702 703 704 706 707 708 712 713 714 715 716 717 718 719 720 724 727 731 732 734 740 754 757 760 763 765 770 772 773 774 775 781 785 786 801 802 803 804 805 806 808 810 812 813 814 815 816 817 818 828 830 831 832 843 845 847 848 850 856 857 858 859 860 862 863 864 865 870 872 878 901 903 904 906 907 908 909 910 912 913 914 915 916 917 918 919 920 925 928 931 936 937 940 941 947 949 951 952 954 956 970 971 972 973 978 979 980 985 989'.split(
    ' ',
  );
const NANP_TOLL_FREE = ['800', '833', '844', '855', '866', '877', '888'];
const CA_AREA_CODES = ['403', '416', '514', '604', '613'];

/** NANP: <NPA> 555-2000…9999 (555-0100…0199 is the reserved never-connects range, never sold). */
const nanp = (prefix: string): Range => ({ prefix, exchange: '555', from: 2000, to: 9999, digits: 4 });

/** Country → calling code and, per type sold there, its ranges. */
export const CATALOG: Record<string, { callingCode: string; types: Partial<Record<SimNumberType, Range[]>> }> = {
  US: { callingCode: '1', types: { local: US_AREA_CODES.map(nanp), toll_free: NANP_TOLL_FREE.map(nanp) } },
  CA: { callingCode: '1', types: { local: CA_AREA_CODES.map(nanp), toll_free: NANP_TOLL_FREE.map(nanp) } },
  // Ofcom's ranges for drama (020 7946 0xxx, 0161 496 0xxx, 0808 157 0xxx) and a mobile one.
  GB: {
    callingCode: '44',
    types: {
      local: [
        { prefix: '20', exchange: '7946', from: 0, to: 999, digits: 4 },
        { prefix: '161', exchange: '496', from: 0, to: 999, digits: 4 },
      ],
      mobile: [{ prefix: '7400', exchange: '900', from: 0, to: 999, digits: 3 }],
      toll_free: [{ prefix: '808', exchange: '157', from: 0, to: 999, digits: 4 }],
    },
  },
};

/** The request field a search that matched nothing names. */
export type Unmatched = 'country' | 'number_type' | 'area_code';

export interface Search {
  country: string;
  numberType: SimNumberType;
  areaCode?: string;
}

/**
 * A number for sale as searched, not in `taken`; or which criterion matched nothing (a range that
 * is sold out counts as no inventory in that area code).
 */
export function findNumber(search: Search, taken: (phoneNumber: string) => boolean): { phoneNumber: string } | { unmatched: Unmatched } {
  const country = CATALOG[search.country];
  if (!country) return { unmatched: 'country' };
  const ranges = country.types[search.numberType];
  if (!ranges) return { unmatched: 'number_type' };
  const candidates = search.areaCode === undefined ? ranges : ranges.filter((range) => range.prefix === search.areaCode);
  if (candidates.length === 0) return { unmatched: 'area_code' };
  // Random draws first (numbers spread across ranges), then a sweep, so a nearly sold-out range still sells.
  for (let attempt = 0; attempt < 50; attempt++) {
    const range = candidates[crypto.randomInt(candidates.length)];
    const phoneNumber = numberIn(country.callingCode, range, range.from + crypto.randomInt(range.to - range.from + 1));
    if (!taken(phoneNumber)) return { phoneNumber };
  }
  for (const range of candidates) {
    for (let n = range.from; n <= range.to; n++) {
      const phoneNumber = numberIn(country.callingCode, range, n);
      if (!taken(phoneNumber)) return { phoneNumber };
    }
  }
  return { unmatched: search.areaCode === undefined ? 'country' : 'area_code' };
}

function numberIn(callingCode: string, range: Range, subscriber: number): string {
  return `+${callingCode}${range.prefix}${range.exchange}${String(subscriber).padStart(range.digits, '0')}`;
}
