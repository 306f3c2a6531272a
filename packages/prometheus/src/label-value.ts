/**
 * What is escaped: the escape character itself, control characters (C0 and DEL), and UTF-16 code units
 * that are half of a surrogate pair without their other half (they have no UTF-8 encoding: a scrape
 * would turn each into U+FFFD, so two tenants could share one label value).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are among what is escaped
const ESCAPED = /[%\x00-\x1f\x7f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_ESCAPE = new RegExp(ESCAPED.source);

function escapeUnit(unit: string): string {
  const code = unit.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code >= 0xd800 ? `%u${hex}` : `%${hex.padStart(2, "0")}`;
}

/**
 * A tenant name as a label value: valid UTF-8, and different for different names. `%` becomes `%25`,
 * a control character `%XX` (two hex digits) and a lone surrogate `%uXXXX`; everything else is kept
 * (prom-client escapes `\`, `"` and newlines in the exposition format). Every `%` in a value starts one
 * of these escapes, so the value decodes back to exactly one name.
 *
 * @example
 * tenantLabelValue("team-a"); // "team-a"
 * tenantLabelValue("50%"); // "50%25"
 * tenantLabelValue("a\uD800"); // "a%uD800"
 */
export function tenantLabelValue(tenant: string): string {
  return NEEDS_ESCAPE.test(tenant) ? tenant.replace(ESCAPED, escapeUnit) : tenant;
}
