// A browser by hand for OpenID Connect flows in the in-memory tests: two cookie jars (Packyard,
// reached in memory through app.request, and the test provider, over HTTP), redirects followed
// one by one, the provider's login form posted like a person would.
import { createHash, randomBytes } from "node:crypto";
import { TEST_ORIGIN, type TestApp } from "./harness.ts";
import type { TestOidcProvider } from "./oidc-provider.ts";

class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => {
        const [key = "", v = ""] = a.split("=").map((s) => s.trim());
        if (/^max-age$/i.test(key)) return Number(v) <= 0;
        if (/^expires$/i.test(key)) return new Date(v).getTime() <= Date.now();
        return false;
      });
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  has(name: string): boolean {
    return [...this.cookies.keys()].some((key) => key.includes(name));
  }
}

/** What a login at the provider submits: a known user by sub, or anyone by email. */
export type ProviderLogin = { sub: string } | { email: string; name?: string; emailVerified: boolean };

export interface FlowResult {
  /** Where Packyard sent the browser at the end: a path on Packyard (with its query). */
  location: string;
  /** The provider's redirect to Packyard's callback (…/api/auth/callback/oidc?code=…&state=…). */
  callbackUrl: string | undefined;
}

function loginForm(login: ProviderLogin): Record<string, string> {
  if ("sub" in login) return { sub: login.sub };
  return {
    email: login.email,
    name: login.name ?? "",
    ...(login.emailVerified ? { email_verified: "true" } : {}),
  };
}

export class FlowBrowser {
  readonly packyard = new CookieJar();
  readonly provider = new CookieJar();

  private readonly app: TestApp;
  private readonly idp: TestOidcProvider;

  constructor(app: TestApp, idp: TestOidcProvider) {
    this.app = app;
    this.idp = idp;
  }

  /** Signed in to Packyard already: start from this session cookie. */
  withSession(cookie: string): this {
    const headers = new Headers();
    for (const part of cookie.split(/;\s*/).filter(Boolean)) headers.append("set-cookie", `${part}; Path=/`);
    this.packyard.store(new Response(null, { headers }));
    return this;
  }

  cookie(): string {
    return this.packyard.header();
  }

  private isPackyard(url: string): boolean {
    return url.startsWith(`${TEST_ORIGIN}/`) || url.startsWith("/");
  }

  async request(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown } = {}) {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    }
    const method = init.method ?? (body === undefined ? "GET" : "POST");
    if (this.isPackyard(url)) {
      const path = url.startsWith("/") ? url : url.slice(TEST_ORIGIN.length);
      const response = await this.app.request(path, {
        method,
        headers,
        body,
        cookie: this.packyard.header(),
      });
      this.packyard.store(response);
      return response;
    }
    if (!url.startsWith(this.idp.issuer)) throw new Error(`unexpected URL ${url}`);
    const response = await fetch(url, {
      method,
      body,
      redirect: "manual",
      headers: { ...headers, cookie: this.provider.header() },
    });
    this.provider.store(response);
    return response;
  }

  /**
   * Follows redirects from `url` until the browser reaches a page: a Packyard page (not under
   * /api/auth, returned as its path without loading it) or a provider page (its response).
   */
  async follow(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown } = {},
    /** Stop before requesting a URL this accepts; it is returned as `location`, in full. */
    until?: (target: string) => boolean,
  ): Promise<{ location?: string; response?: Response; url: string; visited: string[] }> {
    const visited: string[] = [];
    let next = url;
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      visited.push(next);
      const response = await this.request(next, request);
      request = {};
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location)
        return { response, url: next, visited };
      const base = this.isPackyard(next) && next.startsWith("/") ? TEST_ORIGIN : next;
      const target = new URL(location, base).href;
      if (until?.(target)) return { location: target, url: next, visited: [...visited, target] };
      if (target.startsWith(`${TEST_ORIGIN}/`) && !new URL(target).pathname.startsWith("/api/auth/")) {
        const parsed = new URL(target);
        return { location: `${parsed.pathname}${parsed.search}`, url: next, visited: [...visited, target] };
      }
      next = target;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Logs in at the provider's login page (already reached) and follows back to Packyard. */
  async loginAtProvider(pageUrl: string, login: ProviderLogin): Promise<FlowResult> {
    const result = await this.follow(`${pageUrl}/login`, { form: loginForm(login) });
    if (!result.location) throw new Error(`the flow stopped at ${result.url} (${result.response?.status})`);
    return {
      location: result.location,
      callbackUrl: result.visited.find((u) => u.includes("/api/auth/callback/oidc")),
    };
  }

  /**
   * Starts sign-in (or linking, with `link`) through Packyard's API and follows it to the
   * provider's login page; returns that page's URL.
   */
  async startAt(
    endpoint: "/api/auth/sign-in/social" | "/api/auth/link-social",
    body: Record<string, unknown>,
  ): Promise<string> {
    const started = await this.request(endpoint, { json: { provider: "oidc", ...body } });
    if (started.status !== 200) throw new Error(`${endpoint}: ${started.status} ${await started.text()}`);
    const { url } = (await started.json()) as { url: string };
    const reached = await this.follow(url);
    if (reached.response?.status !== 200 || !/\/interaction\/[^/]+$/.test(reached.url)) {
      throw new Error(`expected the provider's login page, got ${reached.url} (${reached.response?.status})`);
    }
    return reached.url;
  }

  /**
   * Logs in at the provider's login page and stops at the provider's redirect to Packyard's
   * callback, without following it: returns that URL.
   */
  async loginUntilCallback(pageUrl: string, login: ProviderLogin): Promise<string> {
    const result = await this.follow(`${pageUrl}/login`, { form: loginForm(login) }, (target) =>
      target.includes("/api/auth/callback/oidc"),
    );
    if (!result.location?.includes("/api/auth/callback/oidc"))
      throw new Error(`no callback from ${result.url}`);
    return result.location;
  }

  /**
   * The provider's tokens for a user, fetched like a client of the provider would (its own PKCE
   * and nonce, Packyard's client credentials), without Packyard seeing the code.
   */
  async providerTokens(
    login: ProviderLogin,
  ): Promise<{ idToken: string; accessToken: string; nonce: string }> {
    const discovery = (await (await fetch(`${this.idp.issuer}/.well-known/openid-configuration`)).json()) as {
      authorization_endpoint: string;
      token_endpoint: string;
    };
    const verifier = randomBytes(48).toString("base64url");
    const nonce = randomBytes(16).toString("base64url");
    const redirectUri = `${TEST_ORIGIN}/api/auth/callback/oidc`;
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: this.idp.clientId,
      response_type: "code",
      scope: "openid email profile",
      redirect_uri: redirectUri,
      state: randomBytes(16).toString("base64url"),
      nonce,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const page = await this.follow(authorize.href);
    if (page.response?.status !== 200) throw new Error(`no login page at ${page.url}`);
    const callback = new URL(await this.loginUntilCallback(page.url, login));
    const code = callback.searchParams.get("code");
    if (!code) throw new Error(`no code in ${callback.href}`);
    const token = await fetch(discovery.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: this.idp.clientId,
        client_secret: this.idp.clientSecret,
      }),
    });
    const tokens = (await token.json()) as { id_token: string; access_token: string };
    if (!token.ok) throw new Error(`token endpoint: ${token.status} ${JSON.stringify(tokens)}`);
    return { idToken: tokens.id_token, accessToken: tokens.access_token, nonce };
  }

  /** Sign-in as the sign-in page starts it, through to where Packyard sends the browser. */
  async signIn(login: ProviderLogin, body: Record<string, unknown> = {}): Promise<FlowResult> {
    const page = await this.startAt("/api/auth/sign-in/social", {
      callbackURL: "/dashboard",
      newUserCallbackURL: "/onboarding",
      errorCallbackURL: "/auth/signin",
      ...body,
    });
    return this.loginAtProvider(page, login);
  }
}
