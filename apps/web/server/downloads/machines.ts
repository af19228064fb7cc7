// Distinct machines per day (decision 083): a machine is its address and client (User-Agent),
// hashed under a salt of the UTC day derived from the server's secret — the same on every
// server, another every day — so machines are told apart within a day, never across days, and
// no address is kept. The statistics and an entitlement token's usage count the same hash. The
// hashes themselves are deleted once their day is over (forget.ts): only the daily counts stay.
import { createHmac } from "node:crypto";

/** Characters of the hash kept: 128 bits, plenty to tell a day's machines apart. */
const HASH_CHARS = 32;

export class MachineHash {
  readonly #secret: string;
  /** The day (days since the epoch) whose salt is kept, and the salt: one HMAC a day. */
  #day = Number.NaN;
  #salt: Buffer = Buffer.alloc(0);

  constructor(secret: string) {
    this.#secret = secret;
  }

  /** The machine of an address and client on the UTC day of `now`: 32 hex characters. */
  of(address: string, userAgent: string | null | undefined, now: Date): string {
    const day = Math.floor(now.getTime() / 86_400_000);
    if (day !== this.#day) {
      // The label predates the project statistics: tokens' machines of the day keep their hash.
      const label = `entitlement machines ${now.toISOString().slice(0, 10)}`;
      this.#salt = createHmac("sha256", this.#secret).update(label).digest();
      this.#day = day;
    }
    return createHmac("sha256", this.#salt)
      .update(`${address}\n${userAgent ?? ""}`)
      .digest("hex")
      .slice(0, HASH_CHARS);
  }
}

const hashes = new WeakMap<object, MachineHash>();

/** The server's machine hash, made at its first use. */
export function machineHashOf(services: { config: { secret: string } }): MachineHash {
  let found = hashes.get(services);
  if (!found) {
    found = new MachineHash(services.config.secret);
    hashes.set(services, found);
  }
  return found;
}
