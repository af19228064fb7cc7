// Where webhooks and importers may not go (no server-side request forgery): loopback,
// link-local (the cloud metadata service at 169.254.169.254), private networks (RFC 1918, ULA
// fc00::/7), CGNAT 100.64.0.0/10, the 6to4 relay 192.88.99.0/24, unspecified, multicast and
// reserved ranges, in every IPv6 form that embeds an IPv4 address (::ffff:a.b.c.d,
// ::ffff:0:a.b.c.d, ::a.b.c.d, 64:ff9b::/96, 2002::/16), and the IPv6 blocks that lead
// elsewhere or nowhere: the rest of ::/8, local-use NAT64 64:ff9b:1::/48, discard 100::/64 and
// 2001::/23 (Teredo 2001::/32 among them). The check is made on the resolved address at connect
// time (webhookLookup), so a name that resolves elsewhere later (DNS rebinding) is caught too;
// WEBHOOK_ALLOW_PRIVATE=true lifts it for tests and private installations.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";

const FORBIDDEN_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function v4ToInt(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function isForbiddenV4(address: string): boolean {
  const n = v4ToInt(address);
  return FORBIDDEN_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = v4ToInt(base);
    return n >= start && n < start + size;
  });
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail, too). */
function v6Groups(address: string): number[] {
  let text = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1]) {
    const n = v4ToInt(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

function embeddedV4(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

function isForbiddenV6(address: string): boolean {
  const g = v6Groups(address);
  if (g.length !== 8 || g.some((n) => Number.isNaN(n))) return true;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h = 0, i = 0] = g;
  const firstFourZero = a === 0 && b === 0 && c === 0 && d === 0;
  // ::, ::1, ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT), ::a.b.c.d (compatible): judged by
  // the IPv4 address.
  if (firstFourZero && e === 0 && f === 0xffff) return isForbiddenV4(embeddedV4(h, i));
  if (firstFourZero && e === 0xffff && f === 0) return isForbiddenV4(embeddedV4(h, i));
  if (firstFourZero && e === 0 && f === 0) return h === 0 ? true : isForbiddenV4(embeddedV4(h, i));
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) carry an IPv4 address too.
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0)
    return isForbiddenV4(embeddedV4(h, i));
  if (a === 0x2002) return isForbiddenV4(embeddedV4(b, c));
  if (a < 0x100) return true; // the rest of ::/8, local-use NAT64 64:ff9b:1::/48 among it
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return true; // 100::/64 discard
  if (a === 0x2001 && b < 0x200) return true; // 2001::/23: Teredo, benchmarking, ORCHID
  if ((a & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((a & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((a & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0xdb8) return true; // documentation
  return false;
}

/** True when an IP address (either family) is one webhooks may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/^\[|\]$/g, ""));
  if (family === 4) return isForbiddenV4(address);
  if (family === 6) return isForbiddenV6(address);
  return true;
}

export class ForbiddenAddressError extends Error {
  readonly code = "WEBHOOK_URL_FORBIDDEN";
  constructor(host: string, address: string) {
    super(
      address === host
        ? `${host} is a loopback, link-local or private address`
        : `${host} resolves to ${address}, a loopback, link-local or private address`,
    );
    this.name = "ForbiddenAddressError";
  }
}

type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/**
 * Every address `host` resolves to, after checking each: a ForbiddenAddressError when any is
 * forbidden (an IP literal is checked as it is). Used when a webhook is saved and before each
 * connection.
 */
export async function resolvePublicAddresses(
  host: string,
  resolver: Resolver = systemResolver,
): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  const addresses = family ? [{ address: bare, family }] : await resolver(bare);
  for (const { address } of addresses) {
    if (isForbiddenAddress(address)) throw new ForbiddenAddressError(bare, address);
  }
  return addresses;
}

/**
 * A `lookup` for node:http(s) that connects only to checked addresses: the connection goes to
 * the very address that was checked, so a second answer of the DNS cannot redirect it.
 */
export function webhookLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublicAddresses(hostname, resolver).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else {
          const first = addresses[0];
          if (!first) callback(new Error(`${hostname} has no address`), "", 0);
          else callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
