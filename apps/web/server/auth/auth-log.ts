// better-auth's own log lines, written by Packyard's logger: one JSON line each, like every
// other line, instead of better-auth's default — coloured, multi-line dumps on the console.
import type { BetterAuthOptions } from "better-auth";
import { isAPIError } from "better-auth/api";
import type { LogFields, Logger, LogLevel } from "../platform/observability/logger.ts";

type AuthLogLevel = "debug" | "info" | "warn" | "error";

/**
 * better-auth's `logger` option: its messages go to `logger`, prefixed "better-auth:", from
 * warnings up as by default (its info lines, such as a sign-up for an existing address with the
 * address, only at LOG_LEVEL=debug). An error the client caused (an APIError below 500, e.g. an
 * invalid API key, which better-auth logs as an error) is an info line with its status and code,
 * not an error with a stack: the request's own line already says 401, and it is not a failure of
 * the server.
 */
export function authLogger(logger: Logger, level: LogLevel): NonNullable<BetterAuthOptions["logger"]> {
  if (level === "silent") return { disabled: true };
  return {
    level: level === "info" ? "warn" : level,
    log(authLevel: AuthLogLevel, message: string, ...args: unknown[]) {
      // better-auth's messages end with ":" before the value it prints after them.
      const msg = `better-auth: ${message.replace(/[:\s]+$/, "")}`;
      const error = args.find((arg) => arg instanceof Error || isAPIError(arg));
      const rest = args.filter((arg) => arg !== error);
      const fields: LogFields = rest.length > 0 ? { args: rest } : {};
      if (error !== undefined && isAPIError(error) && error.statusCode < 500) {
        const body = error.body as { code?: unknown; message?: unknown } | undefined;
        logger.info(msg, {
          ...fields,
          status: error.statusCode,
          ...(typeof body?.code === "string" ? { code: body.code } : {}),
          ...(typeof body?.message === "string" ? { reason: body.message } : {}),
        });
        return;
      }
      if (authLevel === "error") logger.error(msg, error, fields);
      else logger[authLevel](msg, error === undefined ? fields : { ...fields, err: error });
    },
  };
}
