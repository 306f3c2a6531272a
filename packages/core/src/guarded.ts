/**
 * `callback` made safe to call where nobody could take its error (a timer, a background loop): what it
 * throws goes to `onError`, or is dropped without one; a missing callback does nothing.
 *
 * @example
 * const onError = guarded(options.onError); // never throws
 * const onStatusChange = guarded(options.onStatusChange, onError); // its throws go to onError
 */
export function guarded<A extends unknown[]>(
  callback: ((...args: A) => unknown) | undefined,
  onError?: (error: unknown) => void,
): (...args: A) => void {
  if (callback === undefined) return () => {};
  return (...args) => {
    try {
      callback(...args);
    } catch (error) {
      onError?.(error);
    }
  };
}
