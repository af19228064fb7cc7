import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { EntryPins, requesterOf } from "./entry-pins.ts";

const generation = (n: number) => ({ generationId: `g${n}`, generationNumber: n });

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("EntryPins", () => {
  it("answers with the connection's generation first, then the address's, within the window", () => {
    const time = clock();
    const pins = new EntryPins({ windowMs: 30_000, now: time.now });
    const mine = { connection: {}, client: "10.0.0.1" };
    const neighbour = { connection: {}, client: "10.0.0.1" };
    pins.remember(mine, "p/", generation(4));
    pins.remember(neighbour, "p/", generation(5));
    expect(pins.generations(mine, "p/")).toEqual(["g4", "g5"]);
    expect(pins.generations(neighbour, "p/")).toEqual(["g5"]);
    expect(pins.generations({ client: "10.0.0.1" }, "p/")).toEqual(["g5"]);
    expect(pins.generations(mine, "p/el9")).toEqual([]);
    expect(pins.generations({ client: "10.0.0.2" }, "p/")).toEqual([]);
    time.advance(30_001);
    expect(pins.generations(mine, "p/")).toEqual([]);
  });

  it("keeps an address's highest generation when answers finish out of order", () => {
    const time = clock();
    const pins = new EntryPins({ now: time.now });
    const who = { client: "10.0.0.1" };
    pins.remember(who, "p/", generation(7));
    pins.remember(who, "p/", generation(6));
    expect(pins.generations(who, "p/")).toEqual(["g7"]);
    // Once that one is out of the window, a lower one counts again.
    time.advance(40_000);
    pins.remember(who, "p/", generation(6));
    expect(pins.generations(who, "p/")).toEqual(["g6"]);
  });

  it("remembers a bounded number of addresses, least recently served out first", () => {
    const pins = new EntryPins({ maxClients: 3 });
    for (let i = 1; i <= 5; i++) pins.remember({ client: `10.0.0.${i}` }, "p/", generation(i));
    expect(pins.clients).toBe(3);
    expect(pins.generations({ client: "10.0.0.2" }, "p/")).toEqual([]);
    expect(pins.generations({ client: "10.0.0.5" }, "p/")).toEqual(["g5"]);
  });

  it("drops expired addresses as new ones come", () => {
    const time = clock();
    const pins = new EntryPins({ windowMs: 1_000, now: time.now });
    pins.remember({ client: "a" }, "p/", generation(1));
    pins.remember({ client: "b" }, "p/", generation(1));
    time.advance(2_000);
    pins.remember({ client: "c" }, "p/", generation(2));
    expect(pins.clients).toBe(1);
  });
});

describe("requesterOf", () => {
  const env = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } as IncomingMessage });

  it("is nobody without a socket (in-memory requests)", () => {
    expect(requesterOf(undefined, new Headers())).toEqual({});
  });

  it("is the connection and the address; behind a proxy only the forwarded client", () => {
    const direct = env("192.0.2.1");
    const who = requesterOf(direct, new Headers());
    expect(who.connection).toBe(direct.incoming.socket);
    expect(who.client).toContain("192.0.2.1");
    for (const header of ["x-forwarded-for", "forwarded", "via"]) {
      const proxied = requesterOf(direct, new Headers({ [header]: "203.0.113.9" }));
      expect(proxied.connection, header).toBeUndefined();
      if (header !== "via") expect(proxied.client, header).toContain("203.0.113.9");
    }
  });
});
