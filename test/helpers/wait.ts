// Waiting for something a background job does: poll until it holds. There is no count or deadline here on purpose;
// the test's own timeout is the hang guard, so a slow machine waits longer instead of failing.

/** Calls `probe` every `everyMs` until `done` holds for its value; returns that value. */
export async function pollUntil<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  everyMs = 100,
): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
