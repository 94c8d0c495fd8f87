// Test-only crash points. MEMCARDS_TEST_CRASH_AT=<step> kills this process (SIGKILL) when it reaches <step>;
// MEMCARDS_TEST_CRASH_AT=hold:<step> blocks the thread there forever (the test kills it). Inert unless set; the
// crash-safety tests use it to stop a real CLI or server between two writes.

/** Stops here when the test hook names `step`; does nothing otherwise. */
export function crashPoint(step: string): void {
  const at = process.env.MEMCARDS_TEST_CRASH_AT;
  if (!at) return;
  if (at === step) process.kill(process.pid, "SIGKILL");
  if (at === `hold:${step}`) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
