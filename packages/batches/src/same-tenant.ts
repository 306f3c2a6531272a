/**
 * Whether two tenant ids are equal, in time that depends on their lengths only, never on where they
 * first differ: every UTF-16 code unit is compared, with no early exit (lone surrogates included, so
 * two different ids never compare equal). Web standards only.
 *
 * @example
 * if (!sameTenant(batch.tenant, tenant)) return notFound(id);
 */
export function sameTenant(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  for (let i = 0; i < length; i++) {
    // a missing unit reads as -1, which differs from every code unit (0 to 0xFFFF)
    difference |= (i < a.length ? a.charCodeAt(i) : -1) ^ (i < b.length ? b.charCodeAt(i) : -1);
  }
  return difference === 0;
}
