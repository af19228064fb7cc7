// The machine of a request (decision 083): the same address and client are one machine all day
// and on every server, another the next day; the hash is the entitlement usage's of before
// (tokens' machines of the day keep their count).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MachineHash } from "./machines.ts";

const SECRET = "machines-test-secret-machines-test-secret";
const APT = "Debian APT-HTTP/1.3 (2.6.1)";
const morning = new Date("2026-12-01T08:00:00Z");
const evening = new Date("2026-12-01T23:59:59Z");
const nextDay = new Date("2026-12-02T00:00:00Z");

describe("MachineHash", () => {
  it("is one machine per address and client within a UTC day, on every server", () => {
    const one = new MachineHash(SECRET);
    const other = new MachineHash(SECRET);
    const machine = one.of("203.0.113.7", APT, morning);
    expect(machine).toMatch(/^[0-9a-f]{32}$/);
    expect(one.of("203.0.113.7", APT, evening)).toBe(machine);
    expect(other.of("203.0.113.7", APT, evening)).toBe(machine);
    // Another address, another client, another server secret: another machine.
    expect(one.of("203.0.113.8", APT, morning)).not.toBe(machine);
    expect(one.of("203.0.113.7", "curl/8.5.0", morning)).not.toBe(machine);
    expect(one.of("203.0.113.7", undefined, morning)).not.toBe(machine);
    expect(new MachineHash(`${SECRET}-2`).of("203.0.113.7", APT, morning)).not.toBe(machine);
  });

  it("changes its salt every day: the same machine is another the next day, and back again", () => {
    const hash = new MachineHash(SECRET);
    const first = hash.of("203.0.113.7", APT, morning);
    const second = hash.of("203.0.113.7", APT, nextDay);
    expect(second).not.toBe(first);
    expect(hash.of("203.0.113.7", APT, evening)).toBe(first);
  });

  it("is the hash entitlement usage counted machines with", () => {
    const salt = createHmac("sha256", SECRET).update("entitlement machines 2026-12-01").digest();
    const expected = createHmac("sha256", salt).update(`203.0.113.7\n${APT}`).digest("hex").slice(0, 32);
    const machine = new MachineHash(SECRET).of("203.0.113.7", APT, morning);
    expect(machine).toBe(expected);
  });
});
