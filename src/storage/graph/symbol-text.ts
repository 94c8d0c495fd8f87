// The words a symbol is embedded by, composed from the columns its node row keeps: the index stores no copy of them
// in vector_items (an item's text is then empty, and the embedder reads it through its node; see storage/vectors.ts).

/** The qualified name (`Class.method`) in a symbol's key `sym:<path>#<qual>[~n]`. */
export function qualOfKey(key: string, path: string): string {
  return key.slice(`sym:${path}#`.length).replace(/~\d+$/, "");
}

/** A symbol's embed text: its kind, qualified name, file and signature. */
export function symbolEmbedText(kind: string | null, qual: string, path: string, signature: string | null): string {
  return `${kind} ${qual} in ${path}: ${signature ?? ""}`;
}

/** The embed text of a symbol node as stored (its summary is its redacted signature). */
export function storedSymbolText(n: {
  kind: string | null;
  key: string;
  path: string;
  summary: string | null;
}): string {
  return symbolEmbedText(n.kind, qualOfKey(n.key, n.path), n.path, n.summary);
}
