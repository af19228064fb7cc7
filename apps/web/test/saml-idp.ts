// A real SAML 2.0 identity provider for the tests: samlify's IdentityProvider on 127.0.0.1 (a free
// port), with its own key and self-signed certificate, publishing its metadata at /metadata.
//
// Packyard sends the browser to /sso with an AuthnRequest (HTTP-Redirect binding). The IdP reads
// it (its ID becomes InResponseTo), shows a page with one button per known user and a small form
// for anyone else (email, name, groups), and answers with a page that POSTs a signed Response to
// Packyard's ACS URL, as a real IdP does. `?as=<email>` on /sso skips the page (fetch-driven
// tests). `assertion()` makes a Response directly, with what a test wants wrong: another key's
// signature, another audience, an expired NotOnOrAfter, or a fixed assertion ID (a replay).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as samlify from "samlify";
import { generate } from "selfsigned";

export interface SamlUser {
  email: string;
  name: string;
  groups?: string[];
}

export interface AssertionOptions {
  /** The AuthnRequest's ID the Response answers (InResponseTo); "" for an unsolicited one. */
  inResponseTo: string;
  /** Where it is sent: Packyard's ACS URL for the provider. */
  acsUrl: string;
  /** The audience: Packyard's entity id for the provider, unless a test wants another. */
  audience: string;
  /** Signed with another key than the metadata's certificate. */
  wrongKey?: boolean;
  /** NotOnOrAfter this many seconds from now (default 300; negative: expired). */
  validForSeconds?: number;
  /** The assertion's ID (default a fresh one): the same twice is a replay. */
  assertionId?: string;
}

export interface TestSamlIdp {
  /** http://127.0.0.1:<port>: the IdP's entity id too. */
  url: string;
  entityId: string;
  /** The IdP's metadata XML (what an organization pastes into Packyard). */
  metadata: string;
  metadataUrl: string;
  addUser(user: SamlUser): void;
  /** The AuthnRequest a redirect to the IdP carries: its ID, ACS URL and issuer (the audience). */
  readRequest(redirectUrl: string): { id: string; acsUrl: string; audience: string };
  /** A base64 SAMLResponse for `user`, signed (by the right key unless options.wrongKey). */
  assertion(user: SamlUser, options: AssertionOptions): Promise<string>;
  stop(): Promise<void>;
}

const escapeXml = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const escapeHtml = escapeXml;

/** A Response with the attributes Packyard maps (email, displayName, groups). */
function responseXml(values: {
  id: string;
  assertionId: string;
  issuer: string;
  destination: string;
  audience: string;
  inResponseTo: string;
  nameId: string;
  now: Date;
  notOnOrAfter: Date;
  user: SamlUser;
}): string {
  const instant = values.now.toISOString();
  const until = values.notOnOrAfter.toISOString();
  const inResponseTo = values.inResponseTo ? ` InResponseTo="${escapeXml(values.inResponseTo)}"` : "";
  const attribute = (name: string, list: string[]) =>
    `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${list
      .map((value) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(value)}</saml:AttributeValue>`)
      .join("")}</saml:Attribute>`;
  return [
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${values.id}" Version="2.0" IssueInstant="${instant}" Destination="${escapeXml(values.destination)}"${inResponseTo}>`,
    `<saml:Issuer>${escapeXml(values.issuer)}</saml:Issuer>`,
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>`,
    `<saml:Assertion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${values.assertionId}" Version="2.0" IssueInstant="${instant}">`,
    `<saml:Issuer>${escapeXml(values.issuer)}</saml:Issuer>`,
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(values.nameId)}</saml:NameID>`,
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${escapeXml(values.destination)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>`,
    `<saml:Conditions NotBefore="${instant}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${escapeXml(values.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`,
    `<saml:AuthnStatement AuthnInstant="${instant}" SessionIndex="${values.assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
    `<saml:AttributeStatement>${attribute("email", [values.user.email])}${attribute("displayName", [values.user.name])}${
      values.user.groups?.length ? attribute("groups", values.user.groups) : ""
    }</saml:AttributeStatement>`,
    `</saml:Assertion></samlp:Response>`,
  ].join("");
}

async function keyPair(name: string) {
  const pems = await generate([{ name: "commonName", value: name }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
  });
  return { key: pems.private, cert: pems.cert };
}

const certBody = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");

export async function startSamlIdp(options: { users?: SamlUser[] } = {}): Promise<TestSamlIdp> {
  const users = new Map<string, SamlUser>();
  for (const user of options.users ?? []) users.set(user.email, user);
  const [right, wrong] = await Promise.all([keyPair("Test IdP"), keyPair("Someone else")]);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${url}/metadata`;
  const metadata = [
    `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">`,
    `<IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`,
    `<KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(right.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>`,
    `<NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</NameIDFormat>`,
    `<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${url}/sso"/>`,
    `</IDPSSODescriptor></EntityDescriptor>`,
  ].join("");

  const signed = (xml: string, key: string) =>
    samlify.SamlLib.constructSAMLSignature({
      rawSamlMessage: xml,
      privateKey: key,
      signingCert: certBody(right.cert),
      signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      isBase64Output: true,
      referenceTagXPath: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']",
      signatureConfig: {
        prefix: "ds",
        location: {
          reference: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']/*[local-name(.)='Issuer']",
          action: "after",
        },
      },
    }) as string;

  async function assertion(user: SamlUser, opts: AssertionOptions): Promise<string> {
    const now = new Date();
    const xml = responseXml({
      id: `_${randomUUID()}`,
      assertionId: opts.assertionId ?? `_${randomUUID()}`,
      issuer: entityId,
      destination: opts.acsUrl,
      audience: opts.audience,
      inResponseTo: opts.inResponseTo,
      nameId: user.email,
      now,
      notOnOrAfter: new Date(now.getTime() + (opts.validForSeconds ?? 300) * 1000),
      user,
    });
    return signed(xml, opts.wrongKey ? wrong.key : right.key);
  }

  /** The AuthnRequest of a redirect: its ID and where to answer (the ACS URL, the audience). */
  function readRequest(query: URLSearchParams): { id: string; acsUrl: string; audience: string } {
    const request = query.get("SAMLRequest");
    if (!request) throw new Error("no SAMLRequest");
    const xml = samlify.Utility.inflateString(request);
    const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? "";
    const acsUrl = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? "";
    const audience = /<(?:saml:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? "";
    return { id, acsUrl: acsUrl.replace(/&amp;/g, "&"), audience: audience.replace(/&amp;/g, "&") };
  }

  async function answer(res: ServerResponse, query: URLSearchParams, user: SamlUser) {
    const request = readRequest(query);
    const response = await assertion(user, {
      inResponseTo: request.id,
      acsUrl: request.acsUrl,
      audience: request.audience,
    });
    const relayState = query.get("RelayState") ?? "";
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html><head><title>Signing in…</title></head><body><form id="post" method="post" action="${escapeHtml(request.acsUrl)}">` +
        `<input type="hidden" name="SAMLResponse" value="${escapeHtml(response)}">` +
        `<input type="hidden" name="RelayState" value="${escapeHtml(relayState)}">` +
        `<noscript><button type="submit">Continue</button></noscript></form>` +
        `<script>document.getElementById("post").submit()</script></body></html>`,
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestUrl = new URL(req.url ?? "/", url);
    if (requestUrl.pathname === "/metadata") {
      res.writeHead(200, { "content-type": "application/samlmetadata+xml" });
      res.end(metadata);
      return;
    }
    if (requestUrl.pathname === "/sso" && req.method === "GET") {
      const as = requestUrl.searchParams.get("as");
      if (as) {
        const user = users.get(as) ?? { email: as, name: as };
        await answer(res, requestUrl.searchParams, user);
        return;
      }
      const hidden = ["SAMLRequest", "RelayState"]
        .map(
          (name) =>
            `<input type="hidden" name="${name}" value="${escapeHtml(requestUrl.searchParams.get(name) ?? "")}">`,
        )
        .join("");
      const buttons = [...users.values()]
        .map(
          (user) =>
            `<button type="submit" name="as" value="${escapeHtml(user.email)}">Sign in as ${escapeHtml(user.name)}</button>`,
        )
        .join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><html><head><title>Test IdP sign-in</title></head><body><h1>Test IdP</h1>` +
          `<form method="get" action="/sso">${hidden}${buttons}</form>` +
          `<form method="post" action="/sso">${hidden}<label>Email <input name="email"></label><label>Name <input name="name"></label><label>Groups <input name="groups"></label><button type="submit">Sign in</button></form></body></html>`,
      );
      return;
    }
    if (requestUrl.pathname === "/sso" && req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const email = form.get("email") ?? "";
      const groups = (form.get("groups") ?? "")
        .split(",")
        .map((group) => group.trim())
        .filter(Boolean);
      await answer(res, form, { email, name: form.get("name") || email, groups });
      return;
    }
    res.writeHead(404).end();
  }

  server.on("request", (req, res) => {
    handle(req, res).catch((error: Error) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(error.message);
    });
  });

  return {
    url,
    entityId,
    metadata,
    metadataUrl: `${url}/metadata`,
    addUser: (user) => users.set(user.email, user),
    readRequest: (redirectUrl) => readRequest(new URL(redirectUrl).searchParams),
    assertion,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
