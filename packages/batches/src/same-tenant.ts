const encoder = new TextEncoder();

/**
 * Whether two tenant ids are equal, in time that depends on their lengths only, never on where they
 * first differ (every byte is compared; no early exit). Web standards only.
 *
 * @example
 * if (!sameTenant(batch.tenant, tenant)) return notFound(id);
 */
export function sameTenant(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let i = 0; i < length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}
