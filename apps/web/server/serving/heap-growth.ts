// How far V8 lets the old generation grow past what a full collection left alive before it
// marks again (decision 046). V8 picks the factor itself (1.1 to 4, from its measured speeds);
// on a server holding a large repository's indexes (130 MB of live objects at 50,000 packages)
// it settled near 1.1–1.5, so the room left was below the young generation's capacity and V8
// started incremental marking again as soon as one ended: every publish paid 20–55 ms of
// marking steps on the main thread (at 10,000 too, in some runs: 94 ms of CPU per publish
// against 23). Twice the live size keeps one marking per several publishes. Set once the
// start-up pass is done (maintenance.ts), not before: a first build fills a new heap, and with
// more room it touched more new pages (a fresh process's first build at 10,000: 210 ms against
// 199). Memory is given back when the server turns idle regardless (idle-collect.ts: the
// last-resort collection shrinks the heap whatever the factor).
import { setFlagsFromString } from "node:v8";

/** The old generation may reach (1 + this / 100) × its live size before V8 marks again. */
export const HEAP_GROWING_PERCENT = 100;

let set = false;

/** Sets V8's heap growing factor for this process (once; V8 reads it at every full collection). */
export function steadyHeapGrowth(): void {
  if (set) return;
  set = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
