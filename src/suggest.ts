/**
 * "Did you mean": the known name closest to a misspelled one, when it is close enough to be a
 * typo (at most a third of its letters, and at least two, differ). fastest-levenshtein measures it.
 */
import { closest, distance } from 'fastest-levenshtein';

function closestName(given: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(given, known as string[]);
  return distance(given, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** ` (did you mean 'x'?)`, or nothing. */
export function didYouMean(given: string, known: readonly string[]): string {
  const best = closestName(given, known);
  return best ? ` (did you mean '${best}'?)` : '';
}
