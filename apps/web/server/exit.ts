// Ending the process after a clean shutdown. Node's exit can deadlock (nodejs/node#54918, still
// open in 24.21): process.exit joins V8's background threads, and a background compile job that
// ran out of heap waits for a garbage collection only the exiting main thread could run. A
// forced collection here narrowed that race, but only through V8's internals (its gc extension
// switched on at run time); it is gone (decision 071), and a stop that hangs is ended by the
// supervisor's stop timeout (TimeoutStopSec in docs/self-hosting.md's unit). One place to exit,
// so a work-around Node may need again goes here.
export function exitProcess(code: number): never {
  process.exit(code);
}
