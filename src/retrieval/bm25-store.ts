// Incremental whole-file BM25: each file's term counts are kept by path and content hash, so after a re-index
// only changed or added files are read again and removed ones are dropped. A large first build is read in
// slices in the background; until it is complete the caller ranks with another channel.
import { realpathSync } from "node:fs";

import { MAX_SCAN_FILE_BYTES, readInsideRoot } from "../repo/scan.js";
import { redact } from "../text/redact.js";
import { BM25_DEFAULTS, type Bm25Doc, bm25Doc, type Bm25Index, indexBm25Docs } from "./bm25.js";

/** An indexed file: its repo path and the content hash the index stored for it. */
export interface Bm25Source {
  path: string;
  hash: string;
}

/** Reads one file's text by repo path; undefined when it must not or cannot be read. */
export type Bm25Reader = (path: string) => string | undefined;

export interface Bm25StoreOptions {
  /** Files read per slice (one synchronous step); a build needing more finishes in the background. */
  sliceFiles?: number;
  /** Bytes read per slice. */
  sliceBytes?: number;
  /** Bytes kept over all files; files past it are left out of BM25. */
  maxTotalBytes?: number;
}

export interface Bm25Store {
  /**
   * The index over exactly `files`, re-reading only files whose hash changed. Undefined while more than one
   * slice of files is still to be read: the rest is then read in the background, and a later call completes.
   */
  index(files: readonly Bm25Source[]): Bm25Index | undefined;
  /**
   * Starts reading `files` in the background in small slices (a server's warm-up). Until that is done, `index`
   * answers undefined at once instead of reading the rest itself: the caller ranks with another channel meanwhile.
   */
  warm(files: readonly Bm25Source[]): void;
  /** How many files were read so far (for tests and logs). */
  readonly reads: number;
}

/** Reads files the way the scan does: inside the project's real root, regular files, at most the scan's cap. */
export function rootReader(root: string): Bm25Reader {
  let realRoot: string | undefined;
  return (path) => {
    try {
      realRoot ??= realpathSync(root);
    } catch {
      return undefined;
    }
    return readInsideRoot(realRoot, path, MAX_SCAN_FILE_BYTES);
  };
}

interface Entry {
  hash: string;
  /** Undefined when the file could not be read or was over the byte budget: not a candidate. */
  doc?: Bm25Doc;
  bytes: number;
}

/** A warm-up's slices: small, so a request arriving meanwhile waits at most one of them. */
const WARM_SLICE_FILES = 32;
const WARM_SLICE_BYTES = 2 * 1024 * 1024;

export function createBm25Store(read: Bm25Reader, options: Bm25StoreOptions = {}): Bm25Store {
  const sliceFiles = options.sliceFiles ?? 2000;
  const sliceBytes = options.sliceBytes ?? 64 * 1024 * 1024;
  const maxTotalBytes = options.maxTotalBytes ?? 512 * 1024 * 1024;
  const entries = new Map<string, Entry>();
  let totalBytes = 0;
  let reads = 0;
  let queue: Bm25Source[] = [];
  let scheduled = false;
  /** A warm-up's background read is under way. */
  let warming = false;

  const stale = (f: Bm25Source) => entries.get(f.path)?.hash !== f.hash;

  /** Reads up to one slice of `queue`; true when nothing stale is left in it. */
  const step = (maxFiles = sliceFiles, maxBytes = sliceBytes): boolean => {
    let files = 0;
    let bytes = 0;
    while (queue.length > 0 && files < maxFiles && bytes < maxBytes) {
      const f = queue.pop()!;
      if (!stale(f)) continue;
      const old = entries.get(f.path);
      if (old) totalBytes -= old.bytes;
      const text = totalBytes < maxTotalBytes ? read(f.path) : undefined;
      reads++;
      files++;
      const size = text === undefined ? 0 : Buffer.byteLength(text);
      bytes += size;
      if (text === undefined || totalBytes + size > maxTotalBytes) {
        entries.set(f.path, { hash: f.hash, bytes: 0 });
      } else {
        totalBytes += size;
        entries.set(f.path, {
          hash: f.hash,
          doc: bm25Doc(f.path, redact(text), BM25_DEFAULTS.pathWeight),
          bytes: size,
        });
      }
    }
    return queue.length === 0;
  };

  const background = () => {
    if (scheduled) return;
    scheduled = true;
    // A timer, not an unref'd immediate: that would wait in the event loop's poll for the next input before it ran.
    setTimeout(() => {
      scheduled = false;
      const done = warming ? step(WARM_SLICE_FILES, WARM_SLICE_BYTES) : step();
      if (done) warming = false;
      else background();
    }, 0).unref();
  };

  return {
    get reads() {
      return reads;
    },
    warm(files) {
      if (warming) return;
      queue = files.filter(stale).reverse();
      if (queue.length === 0) return;
      warming = true;
      background();
    },
    index(files) {
      if (warming) return undefined;
      const wanted = new Set(files.map((f) => f.path));
      for (const [path, e] of entries) {
        if (wanted.has(path)) continue;
        totalBytes -= e.bytes;
        entries.delete(path);
      }
      // Read in the caller's order (the queue is popped from its end).
      queue = files.filter(stale).reverse();
      if (!step()) {
        background();
        return undefined;
      }
      const docs: Bm25Doc[] = [];
      for (const f of files) {
        const doc = entries.get(f.path)?.doc;
        if (doc) docs.push(doc);
      }
      return indexBm25Docs(docs, BM25_DEFAULTS);
    },
  };
}
