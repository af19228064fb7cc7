// What the download counts keep about who downloaded, and for how long (decision 083; the
// privacy policy says the same): the machines of a day (hashes of address and client under the
// day's salt, machines.ts) are kept only while that day can still be counted — today and
// yesterday, for counts written just after midnight — then deleted, leaving their number; an
// entitlement token's last-use address is erased LAST_USE_ADDRESS_DAYS after that use (its time
// and client stay). Run with the collect-garbage job (maintenance.ts), every ten minutes.
import { addDays, utcDay } from "@packyard/contract/stats.ts";
import type { Db } from "../platform/core/use-case.ts";

/** Days an entitlement token's last-use address is kept, counted from that use. */
export const LAST_USE_ADDRESS_DAYS = 30;

const DAY_MS = 86_400_000;

export interface Forgotten {
  /** Machine hashes of past days deleted (projects' and tokens'). */
  machines: number;
  /** Last-use addresses erased. */
  addresses: number;
}

export async function forgetMachinesAndAddresses(db: Db, now: Date): Promise<Forgotten> {
  const yesterday = addDays(utcDay(now), -1);
  const projects = await db.deleteFrom("download_machine").where("day", "<", yesterday).executeTakeFirst();
  const tokens = await db.deleteFrom("entitlement_machine").where("day", "<", yesterday).executeTakeFirst();
  const cutoff = new Date(now.getTime() - LAST_USE_ADDRESS_DAYS * DAY_MS).toISOString();
  const addresses = await db
    .updateTable("entitlement")
    .set({ last_used_address: null })
    .where("last_used_address", "is not", null)
    .where("last_used_at", "<", cutoff)
    .executeTakeFirst();
  return {
    machines: Number(projects.numDeletedRows) + Number(tokens.numDeletedRows),
    addresses: Number(addresses.numUpdatedRows),
  };
}
