// A CI's OpenID Connect issuer for the tests of trusted publishing, on 127.0.0.1 (a free port):
// its own signing keys, a discovery document and a JWKS, as GitHub Actions and GitLab publish
// them, and GitHub's ID-token endpoint (what ACTIONS_ID_TOKEN_REQUEST_URL points to: GET with
// the request token as bearer and `audience=` in the query, answering {"value": "<ID token>"}).
// Tests sign tokens with any claims, with a key it does not publish, or after rotating its keys,
// and count the fetches of its documents.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { kid, privateKey, jwk };
}

export interface SignOptions {
  /** Sign with a key the issuer does not publish (a forger's). */
  foreignKey?: boolean;
  /** The kid header to send (default: the key's own). */
  kid?: string;
  /** Seconds from `now` the token expires (default 300) and was issued (default 0). */
  expiresIn?: number;
  issuedAt?: number;
  notBefore?: number;
  /** The clock the token is made at (default: the real one). */
  now?: Date;
}

export interface CiIssuer {
  /** http://127.0.0.1:<port>: the `iss` of its tokens. */
  issuer: string;
  /** GitHub's ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN for the CLI. */
  requestUrl: string;
  requestToken: string;
  /** The claims the token endpoint puts in the tokens it hands out (besides iss, aud, …). */
  defaultClaims: Record<string, unknown>;
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** A new signing key; the old one stays published unless `dropOld`. */
  rotate(options?: { dropOld?: boolean }): Promise<void>;
  /** Requests for the discovery document and for the JWKS so far. */
  fetches(): { discovery: number; jwks: number };
  /** The discovery document answers this status (e.g. 500) until set back to 200. */
  failWith(status: number): void;
  stop(): Promise<void>;
}

export async function startCiIssuer(defaultClaims: Record<string, unknown> = {}): Promise<CiIssuer> {
  let keys = [await newKey()];
  const foreign = await newKey();
  const counts = { discovery: 0, jwks: 0 };
  let status = 200;
  const requestToken = `request-${randomUUID()}`;
  let issuer = "";

  const sign = async (claims: JWTPayload, options: SignOptions = {}) => {
    const key = options.foreignKey ? foreign : keys[keys.length - 1]!;
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const jwt = new SignJWT({ jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: "RS256", kid: options.kid ?? key.kid, typ: "JWT" })
      .setIssuer(typeof claims.iss === "string" ? claims.iss : issuer)
      .setIssuedAt(now + (options.issuedAt ?? 0))
      .setExpirationTime(now + (options.expiresIn ?? 300));
    if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
    return jwt.sign(key.privateKey);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      counts.discovery++;
      if (status !== 200) return send(status, { error: "unavailable" });
      return send(200, {
        issuer,
        jwks_uri: `${issuer}/.well-known/jwks`,
        subject_types_supported: ["public"],
        response_types_supported: ["id_token"],
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (url.pathname === "/.well-known/jwks") {
      counts.jwks++;
      return send(200, { keys: keys.map((k) => k.jwk) });
    }
    if (url.pathname === "/actions/token") {
      if (req.headers.authorization !== `Bearer ${requestToken}`)
        return send(401, { message: "Bad credentials" });
      const audience = url.searchParams.get("audience");
      void sign({ ...defaultClaims, ...(audience ? { aud: audience } : {}) }).then((value) =>
        send(200, { value }),
      );
      return;
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    requestUrl: `${issuer}/actions/token?api-version=2.0`,
    requestToken,
    defaultClaims,
    sign,
    async rotate(options = {}) {
      const key = await newKey();
      keys = options.dropOld ? [key] : [...keys, key];
    },
    fetches: () => ({ ...counts }),
    failWith(code) {
      status = code;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The claims GitHub Actions puts in a job's ID token for a tag push of octo/app's release.yml. */
export function githubClaims(repository = "octo/app", ref = "refs/tags/v1.0.0", workflow = "release.yml") {
  const [owner] = repository.split("/");
  return {
    sub: `repo:${repository}:ref:${ref}`,
    repository,
    repository_owner: owner,
    repository_id: "123456",
    ref,
    ref_type: ref.startsWith("refs/tags/") ? "tag" : "branch",
    sha: "0123456789abcdef0123456789abcdef01234567",
    workflow: "Release",
    workflow_ref: `${repository}/.github/workflows/${workflow}@${ref}`,
    job_workflow_ref: `${repository}/.github/workflows/${workflow}@${ref}`,
    event_name: "push",
    run_id: "987654321",
    run_attempt: "1",
    actor: "octocat",
  };
}

/** The claims GitLab CI puts in an `id_tokens:` token of a pipeline of group/project. */
export function gitlabClaims(
  projectPath = "group/project",
  ref = "main",
  refType: "branch" | "tag" = "branch",
) {
  return {
    sub: `project_path:${projectPath}:ref_type:${refType}:ref:${ref}`,
    project_path: projectPath,
    project_id: "42",
    namespace_path: projectPath.split("/")[0],
    ref,
    ref_type: refType,
    pipeline_id: "1001",
    pipeline_source: "push",
    user_login: "gitlab-user",
  };
}
