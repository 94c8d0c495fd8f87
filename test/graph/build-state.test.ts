// Build records under two index runs at once: finishing one never marks the other's unfinished phases done.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { markPhase, phaseComplete, readBuild, startBuild } from "../../src/graph/build-state.js";
import { openDatabase } from "../../src/storage/db.js";
import { tmpDir } from "../helpers/tmp.js";

describe("build records", () => {
  it("a run that finishes after another started leaves the newer run's phases owed", () => {
    const db = openDatabase(join(tmpDir(), "m.db"));
    const a = startBuild(db);
    const b = startBuild(db); // a second index run starts while the first is still going
    markPhase(db, a.id, "parse", true);
    markPhase(db, a.id, "edges", true);
    expect(phaseComplete(db, "parse")).toBe(false);
    expect(phaseComplete(db, "edges")).toBe(false);
    // The newer run finishing is what completes the record.
    markPhase(db, b.id, "parse", true);
    markPhase(db, b.id, "edges", true);
    expect(readBuild(db)?.id).toBe(b.id);
    expect(phaseComplete(db, "edges")).toBe(true);
    // Marking a phase started (owed) applies whichever run does it: owing work is always safe.
    markPhase(db, a.id, "vectors", false);
    expect(phaseComplete(db, "vectors")).toBe(false);
    db.close();
  });
});
