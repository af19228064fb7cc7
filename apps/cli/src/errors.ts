// Every way the CLI fails: a stable code (the API's own when the server answered with one), a
// one-line message, and the documented exit code the process ends with.

export const exitCodes = {
  ok: 0,
  /** Anything else: the network, the server, a refused upload, a checksum mismatch. */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing or invalid argument. */
  usage: 2,
  /** No token, a token the server refuses, a key without the needed scope, the wrong owner. */
  auth: 3,
  notFound: 4,
  /** Something already exists: project, release, or a file with different contents. */
  conflict: 5,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

export class CliError extends Error {
  override readonly name = "CliError";
  readonly code: string;
  readonly exitCode: ExitCode;
  /** The HTTP status when the server answered. */
  readonly status: number | undefined;

  constructor(code: string, message: string, exitCode: ExitCode, status?: number) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
    this.status = status;
  }
}

export function usageError(message: string): CliError {
  return new CliError("USAGE", message, exitCodes.usage);
}

/** The exit code an API error implies: the status decides, except a plan limit, which is not about auth. */
export function exitCodeForApiError(status: number, code: string): ExitCode {
  if (code === "PLAN_LIMIT") return exitCodes.failure;
  if (status === 401 || status === 403) return exitCodes.auth;
  if (status === 404) return exitCodes.notFound;
  if (status === 409) return exitCodes.conflict;
  return exitCodes.failure;
}
