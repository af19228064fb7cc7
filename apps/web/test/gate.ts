// A gate a test holds code at: the held side calls `wait()` (which tells `reached` it arrived) and
// stays until the test calls `open()`. Used to reproduce one exact interleaving of two requests.
export function gate() {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    /** Resolves once the held side has arrived. */
    reached,
    open,
    async wait() {
      arrive();
      await opened;
    },
  };
}

/** Waits for the promise or `ms`, whichever is first; true when the promise settled. */
export const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
