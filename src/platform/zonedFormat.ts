const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * An `Intl.DateTimeFormat` for `zone`, made once per zone and `purpose` (formats are costly to build and
 * hold no state): `purpose` names the options, which are the same for every call with it.
 */
export function zonedFormat(zone: string, purpose: string, options: () => Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${purpose} ${zone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { ...options(), timeZone: zone });
    formats.set(key, format);
  }
  return format;
}
