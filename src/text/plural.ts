// Counts in words: "1 unit", "2 units", never "unit(s)".

/** `n` with the noun in the number it needs: `count(1, "unit")` is "1 unit", `count(3, "entry", "entries")` "3 entries". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
