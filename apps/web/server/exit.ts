// Ending the process after a clean shutdown, around a deadlock in Node's exit (nodejs/node#54918,
// still in 24.21): process.exit joins V8's background threads, and a background compile job
// that ran out of heap waits for a garbage collection only the main thread can run — which is
// exiting, so the process hangs for ever. It happened in 2 of ~10 stops right after a first
// page had been rendered (a burst of concurrent compilation). A full collection just before the
// exit gives such a job its room; one waiting already is released by it.
import { fullCollection } from "./serving/idle-collect.ts";

export function exitProcess(code: number): never {
  fullCollection()?.();
  process.exit(code);
}
