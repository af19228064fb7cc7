// A real OpenID Connect provider for the tests: oidc-provider on 127.0.0.1 (a free port) with one
// confidential client for Packyard (authorization code with PKCE, client_secret_post, refresh
// tokens) and users the test defines. Its login page needs no script: one button per known user,
// a small form for any other user (email, name, whether the provider vouches for the email), and
// Cancel. Tests drive it with fetch (POST /interaction/<uid>/login) or in the browser. Consent is
// implied: the client is first-party, so every sign-in is granted at once.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, {
  type Adapter,
  type AdapterPayload,
  type Configuration,
  type KoaContextWithOIDC,
} from "oidc-provider";

export interface OidcUser {
  /** The provider's stable id of the user (the account id Packyard stores). */
  sub: string;
  email: string;
  /** Whether the provider says it checked the email address (the email_verified claim). */
  emailVerified: boolean;
  name: string;
}

export interface TestOidcProvider {
  /** http://127.0.0.1:<port>, as AUTH_OIDC_ISSUER. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** AUTH_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET and _NAME for Packyard. */
  env: Record<string, string>;
  /** Adds or replaces a user (by sub). */
  addUser(user: OidcUser): void;
  users(): OidcUser[];
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  /** Packyard's public origin: the client's redirect URI is <baseUrl>/api/auth/callback/oidc. */
  packyardBaseUrl: string;
  users?: OidcUser[];
  /** The button label Packyard shows (AUTH_OIDC_NAME). */
  name?: string;
  /** Lifetime of the access tokens it issues, in seconds (default one hour). */
  accessTokenTtl?: number;
  /**
   * Also accept any redirect URI under Packyard's /api/auth/sso/callback/ (an organization's own
   * provider, whose callback names a provider id made when it is added: docs/sso.md).
   */
  ssoCallbacks?: boolean;
  /** How the client authenticates at the token endpoint (default client_secret_post). */
  tokenEndpointAuthMethod?: "client_secret_post" | "client_secret_basic";
}

/** The sub the provider gives a user signing in through the form: stable for an email. */
export function subjectFor(email: string): string {
  return `user-${Buffer.from(email.trim().toLowerCase()).toString("base64url")}`;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  const users = new Map<string, OidcUser>();
  for (const user of options.users ?? []) users.set(user.sub, user);
  const clientId = "packyard";
  const clientSecret = randomBytes(24).toString("base64url");
  const redirectUri = `${options.packyardBaseUrl.replace(/\/+$/, "")}/api/auth/callback/oidc`;

  let provider: Provider | undefined;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: "jwk" }), use: "sig", alg: "RS256" };

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: options.tokenEndpointAuthMethod ?? "client_secret_post",
      },
    ],
    jwks: { keys: [signingKey as never] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    scopes: ["openid", "email", "profile", "offline_access"],
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    // A first-party client: the grant covers what it asks for, no consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      if (existing) return existing;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope("openid email profile offline_access");
      grant.addOIDCClaims(["sub", "email", "email_verified", "name"]);
      await grant.save();
      session.ensureClientContainer(client.clientId);
      session.grantIdFor(client.clientId, grant.jti);
      return grant;
    },
    // Refresh tokens without offline_access (Packyard asks for openid email profile), valid
    // beyond the provider's own session.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 24 * 3600,
    },
    async findAccount(_ctx, sub) {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { sub, email: user.email, email_verified: user.emailVerified, name: user.name };
        },
      };
    },
    async renderError(ctx, out) {
      ctx.type = "html";
      ctx.body = page(
        "Sign-in error",
        `<h1>Sign-in error</h1><pre>${escapeHtml(JSON.stringify(out, null, 2))}</pre>`,
      );
    },
  };
  provider = new Provider(issuer, configuration);
  if (options.ssoCallbacks) {
    // oidc-provider's documented way to widen redirect URI checks: the client's own method.
    const ssoPrefix = `${options.packyardBaseUrl.replace(/\/+$/, "")}/api/auth/sso/callback/`;
    const allowed = provider.Client.prototype.redirectUriAllowed;
    provider.Client.prototype.redirectUriAllowed = function (
      this: typeof provider.Client.prototype,
      uri: string,
    ) {
      return (
        (uri.startsWith(ssoPrefix) && !uri.slice(ssoPrefix.length).includes("/")) || allowed.call(this, uri)
      );
    };
  }
  const callback = provider.callback();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", issuer);
    const match = url.pathname.match(/^\/interaction\/([^/]+)(?:\/(login|abort))?$/);
    if (!match || !provider) {
      callback(req, res);
      return;
    }
    const [, uid, step] = match;
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("interaction mismatch");
    if (req.method === "GET" && !step) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(loginPage(uid!, [...users.values()], String(details.params.client_id ?? "")));
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    if (step === "abort") {
      await provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "End-User aborted interaction" },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    let sub = form.get("sub") ?? "";
    if (!sub) {
      const email = (form.get("email") ?? "").trim().toLowerCase();
      if (!email.includes("@")) {
        res.writeHead(400, { "content-type": "text/plain" }).end("email required");
        return;
      }
      sub = subjectFor(email);
      users.set(sub, {
        sub,
        email,
        emailVerified: form.get("email_verified") === "true",
        name: form.get("name")?.trim() || email.split("@")[0]!,
      });
    }
    if (!users.has(sub)) {
      res.writeHead(400, { "content-type": "text/plain" }).end(`unknown user ${sub}`);
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: sub, remember: false } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    env: {
      AUTH_OIDC_ISSUER: issuer,
      AUTH_OIDC_CLIENT_ID: clientId,
      AUTH_OIDC_CLIENT_SECRET: clientSecret,
      ...(options.name ? { AUTH_OIDC_NAME: options.name } : {}),
    },
    addUser(user) {
      users.set(user.sub, user);
    },
    users: () => [...users.values()],
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The provider's state in memory, for this provider only (what its quick-start adapter does, without its warning). */
function memoryAdapter(): (name: string) => Adapter {
  const store = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        store.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
      },
      async find(id) {
        return live(key(id));
      },
      async findByUserCode(userCode) {
        return [...store.keys()].map((k) => live(k)).find((p) => p?.userCode === userCode);
      },
      async findByUid(uid) {
        return [...store.keys()].map((k) => live(k)).find((p) => p?.uid === uid);
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [k, entry] of store) if (entry.payload.grantId === grantId) store.delete(k);
      },
    };
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}form{margin:.75rem 0}label{display:block;margin:.5rem 0}button{padding:.4rem .8rem}</style></head><body>${body}</body></html>`;
}

function loginPage(uid: string, users: OidcUser[], clientId: string): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  const known = users
    .map(
      (u) =>
        `<form method="post" action="${action}/login"><input type="hidden" name="sub" value="${escapeHtml(u.sub)}"><button type="submit">Continue as ${escapeHtml(u.email)}</button></form>`,
    )
    .join("");
  return page(
    "Test identity provider",
    `<h1>Test identity provider</h1><p>Signing in to <strong>${escapeHtml(clientId)}</strong>.</p>${known}
<form method="post" action="${action}/login" aria-label="Another account">
<h2>Another account</h2>
<label>Email <input type="email" name="email" required></label>
<label>Name <input type="text" name="name"></label>
<label><input type="checkbox" name="email_verified" value="true" checked> Email verified by the provider</label>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${action}/abort"><button type="submit">Cancel</button></form>`,
  );
}
