// GET /readyz: whether this server can do its work now — for a load balancer or orchestrator
// deciding where to send traffic. /ok stays a liveness check (the process answers). Ready means
// a trivial query succeeds and the blob storage takes a write: a one-byte blob is staged and
// discarded, which never becomes visible (on the local disk a temporary file, on S3 a staged
// object). Each check has a time limit: a hung database or bucket is "not ready", not a hang.
import type { Context } from "hono";
import { sql } from "kysely";
import type { Services } from "../../services.ts";

export type CheckResult = "ok" | "failed" | "timeout";

export interface Readiness {
  ok: boolean;
  checks: { database: CheckResult; storage: CheckResult };
}

const PROBE = new Uint8Array([0x0a]);

async function* probeBody() {
  yield PROBE;
}

async function within(check: () => Promise<unknown>, ms: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([check().then(() => "ok" as const), timeout]);
  } catch {
    return "failed";
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(
  services: Pick<Services, "database" | "blobs">,
  timeoutMs = 5000,
): Promise<Readiness> {
  const [database, storage] = await Promise.all([
    within(() => sql`select 1`.execute(services.database.db), timeoutMs),
    within(async () => {
      const staged = await services.blobs.stage(probeBody(), { maxBytes: PROBE.length });
      await staged.discard();
    }, timeoutMs),
  ]);
  return { ok: database === "ok" && storage === "ok", checks: { database, storage } };
}

/** The warning a failed check logs: "not ready: database timeout, storage failed". */
export function notReadyMessage(result: Readiness): string {
  const failed = Object.entries(result.checks).filter(([, value]) => value !== "ok");
  return `not ready: ${failed.map(([name, value]) => `${name} ${value}`).join(", ")}`;
}

/** The /readyz handler: 200 when every check passed, 503 naming the failing ones otherwise. */
export function readinessHandler(services: Services, timeoutMs?: number) {
  return async (c: Context) => {
    const result = await checkReadiness(services, timeoutMs);
    c.header("Cache-Control", "no-store");
    if (!result.ok) services.logger.warn(notReadyMessage(result));
    return c.json(result, result.ok ? 200 : 503);
  };
}
