// A DNS server for tests (dns2, over UDP on a loopback port): answers TXT questions from a map the
// test changes as it goes (a domain's owner publishing a record), NXDOMAIN for any other name.
// Packyard asks it through DNS_RESOLVER, as a split-horizon installation would its own server.
import dns2 from "dns2";

export interface TestDnsServer {
  /** host:port, what DNS_RESOLVER takes. */
  address: string;
  /** The TXT records at a name (each a string), replacing what was there; [] removes them. */
  setTxt(name: string, values: string[]): void;
  close(): Promise<void>;
}

/** `port`: a fixed one (the browser tests', named to the server before it starts), else any free one. */
export async function startDnsServer(port = 0): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const values = question ? records.get(question.name.toLowerCase()) : undefined;
      if (question && question.type === Packet.TYPE.TXT && values)
        for (const value of values)
          response.answers.push({
            name: question.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 0,
            data: value,
            // A plain record, as dns2's own examples push; its typings ask for a parsed Resource.
          } as unknown as (typeof response.answers)[number]);
      // No such name: NXDOMAIN (rcode 3), as a real server answers.
      else if (!values) response.header.rcode = 3;
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port, address: "127.0.0.1" } });
  return {
    address: `127.0.0.1:${addresses.udp!.port}`,
    setTxt(name, values) {
      if (values.length === 0) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), values);
    },
    close: () => server.close(),
  };
}
