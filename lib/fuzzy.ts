// The command palette's filter: every typed word must appear in a name, its
// letters in order (so "nrun" finds "New run"); closer and earlier is better.

/** How well `query` matches `text`: null when it does not, otherwise higher is better. */
export function fuzzyScore(query: string, text: string): number | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return 0;
  const hay = text.toLowerCase();
  let total = 0;
  for (const word of words) {
    const score = wordScore(word, hay);
    if (score === null) return null;
    total += score;
  }
  return total;
}

function wordScore(word: string, hay: string): number | null {
  // A whole-word or substring hit beats letters scattered across the name.
  const at = hay.indexOf(word);
  if (at !== -1) return 100 + word.length * 4 - at + (at === 0 || /\W/.test(hay[at - 1]) ? 20 : 0);
  let score = 0;
  let from = 0;
  let last = -2;
  for (const ch of word) {
    const i = hay.indexOf(ch, from);
    if (i === -1) return null;
    score += i === last + 1 ? 5 : i === 0 || /\W/.test(hay[i - 1]) ? 3 : 1;
    last = i;
    from = i + 1;
  }
  return score - last / 10;
}

/** The items that match, best first; ties keep their order. */
export function fuzzyFilter<T>(query: string, items: readonly T[], text: (item: T) => string): T[] {
  if (!query.trim()) return [...items];
  return items
    .map((item, i) => ({ item, i, score: fuzzyScore(query, text(item)) }))
    .filter((x): x is { item: T; i: number; score: number } => x.score !== null)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.item);
}
