// "Did you mean …?" for typos in field names, extension names and runtime names.

/** Damerau-free Levenshtein distance, O(a*b) with two rows. Inputs are short identifiers. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The candidate closest to `word` when it is plausibly a typo of it (distance ≤ a third of its length). */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > 256) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of [...candidates].sort()) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(2, Math.ceil((best?.length ?? 0) / 3));
  return best !== undefined && bestDistance <= limit ? best : undefined;
}
