// An organization's verified domains (issue 43, docs/sso.md): owners claim a domain, publish the
// TXT record it is given at `_packyard-verification.{domain}`, and verify it; only a verified
// domain may route its members' sign-ins to the organization's identity provider. One domain, one
// organization: the first to verify holds it (org_domain.verified_domain is unique). Each change
// is a use case with its `organization.domain_*` entry in the organization's log. The DNS is asked
// through Node's resolver (DNS_RESOLVER names the server, for tests and split-horizon setups).
import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import {
  type AddOrgDomainInput,
  DOMAIN_VERIFICATION_LABEL,
  DOMAIN_VERIFICATION_PREFIX,
  type OrgDomain,
  orgDomainName,
} from "@packyard/contract/orgs.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError, isUniqueViolation, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import type { OrgDomainTable } from "../platform/db/schema.ts";
import { personOf, requireOrganization } from "./storage.ts";

/** The TXT records at a name, each record's strings joined; [] when the name has none. */
export interface TxtLookup {
  txt(name: string): Promise<string[]>;
}

/** How long one DNS question may take, and how often it is asked. */
const DNS_TIMEOUT_MS = 3000;
const DNS_TRIES = 2;

/** A lookup through Node's resolver: the DNS_RESOLVER server (host:port), else the system's. */
export function dnsTxtLookup(server: string | undefined): TxtLookup {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  if (server) resolver.setServers([server]);
  return {
    async txt(name) {
      try {
        return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOTFOUND" || code === "ENODATA") return [];
        throw new DomainError(
          "DOMAIN_NOT_VERIFIED",
          `The DNS did not answer for ${name} (${code ?? "no answer"}): try again in a minute`,
        );
      }
    },
  };
}

export interface DomainDeps {
  db: Db;
  dns: TxtLookup;
  clock?: () => Date;
}

/** Where the record is published, and what it says. */
export function verificationRecord(domain: string, token: string): OrgDomain["record"] {
  return {
    type: "TXT",
    name: `${DOMAIN_VERIFICATION_LABEL}.${domain}`,
    value: `${DOMAIN_VERIFICATION_PREFIX}${token}`,
  };
}

function describe(row: OrgDomainTable): OrgDomain {
  return {
    domain: row.domain,
    verified: row.verified_at !== null,
    verifiedAt: row.verified_at,
    record: verificationRecord(row.domain, row.token),
    createdAt: row.created_at,
  };
}

/** A domain as written in a URL or a form, in the form it is kept (lower case) — or a 400. */
function domainOf(domain: string): string {
  const parsed = orgDomainName.safeParse(domain);
  if (!parsed.success) throw new DomainError("VALIDATION_FAILED", parsed.error.issues[0]!.message);
  return parsed.data;
}

async function findDomain(db: Db, orgId: string, domain: string) {
  return db
    .selectFrom("org_domain")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("domain", "=", domain)
    .executeTakeFirst();
}

/** The organization's domains (admins and owners), verified first, then by name. */
export async function listDomains(db: Db, actor: Actor, organization: string): Promise<OrgDomain[]> {
  const { org } = await requireOrganization(db, actor, organization, "admin");
  const rows = await db.selectFrom("org_domain").selectAll().where("org_id", "=", org.id).execute();
  return rows
    .map(describe)
    .sort((a, b) => Number(b.verified) - Number(a.verified) || a.domain.localeCompare(b.domain));
}

/** The organization's verified domain of an email address's, if any organization has verified it. */
export async function organizationOfVerifiedDomain(db: Db, domain: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("org_domain")
    .select("org_id")
    .where("verified_domain", "=", domain.toLowerCase())
    .executeTakeFirst();
  return row?.org_id;
}

/** Claims a domain (owners): answered with the TXT record to publish. */
export async function addDomain(
  deps: DomainDeps,
  caller: Caller,
  input: { organization: string } & AddOrgDomainInput,
): Promise<OrgDomain> {
  const actor = personOf(caller);
  const domain = domainOf(input.domain);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  if (await findDomain(deps.db, org.id, domain))
    throw new DomainError("DOMAIN_TAKEN", `${domain} is already one of ${org.slug}'s domains`);
  if (await organizationOfVerifiedDomain(deps.db, domain))
    throw new DomainError("DOMAIN_TAKEN", `${domain} is verified by another organization`);
  const row: OrgDomainTable = {
    id: newRowId(),
    org_id: org.id,
    domain,
    token: randomBytes(16).toString("hex"),
    created_at: (deps.clock?.() ?? new Date()).toISOString(),
    verified_at: null,
    verified_domain: null,
  };
  try {
    await change(deps.db, caller, async (tx, record) => {
      await tx.insertInto("org_domain").values(row).execute();
      record.audit({ ownerId: org.id, action: "organization.domain_added", target: domain });
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("DOMAIN_TAKEN", `${domain} is already one of ${org.slug}'s domains`);
    throw error;
  }
  return describe(row);
}

/**
 * Looks for the domain's TXT record (owners) and, when it is there, marks the domain verified for
 * the organization: DOMAIN_NOT_VERIFIED while it is not (saying what was found), DOMAIN_TAKEN when
 * another organization verified it first. Verifying a verified domain again changes nothing.
 */
export async function verifyDomain(
  deps: DomainDeps,
  caller: Caller,
  input: { organization: string; domain: string },
): Promise<OrgDomain> {
  const actor = personOf(caller);
  const domain = domainOf(input.domain);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  const row = await findDomain(deps.db, org.id, domain);
  if (!row) throw notFound(`${domain} is not one of ${org.slug}'s domains`);
  if (row.verified_at) return describe(row);
  const expected = verificationRecord(domain, row.token);
  const found = await deps.dns.txt(expected.name);
  if (!found.includes(expected.value)) {
    const seen = found.filter((value) => value.startsWith(DOMAIN_VERIFICATION_PREFIX));
    throw new DomainError(
      "DOMAIN_NOT_VERIFIED",
      seen.length > 0
        ? `The TXT record at ${expected.name} says ${seen.join(", ")}, not ${expected.value}`
        : `No TXT record ${expected.value} at ${expected.name} yet: publish it, then verify (DNS changes can take a few minutes to appear)`,
    );
  }
  const verifiedAt = (deps.clock?.() ?? new Date()).toISOString();
  try {
    await change(deps.db, caller, async (tx, record) => {
      await tx
        .updateTable("org_domain")
        .set({ verified_at: verifiedAt, verified_domain: domain })
        .where("id", "=", row.id)
        .execute();
      record.audit({
        ownerId: org.id,
        action: "organization.domain_verified",
        target: domain,
        details: { record: expected.name },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("DOMAIN_TAKEN", `${domain} is verified by another organization`);
    throw error;
  }
  return describe({ ...row, verified_at: verifiedAt, verified_domain: domain });
}

/** Gives a domain up (owners): its sign-ins no longer go to the organization's provider. */
export async function removeDomain(
  deps: DomainDeps,
  caller: Caller,
  input: { organization: string; domain: string },
): Promise<void> {
  const actor = personOf(caller);
  const domain = domainOf(input.domain);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  const row = await findDomain(deps.db, org.id, domain);
  if (!row) throw notFound(`${domain} is not one of ${org.slug}'s domains`);
  await change(deps.db, caller, async (tx, record) => {
    // Its sign-ins would otherwise still go to the provider (orgs/sso.ts).
    const provider = await tx
      .selectFrom("ssoProvider")
      .select("providerId")
      .where("organizationId", "=", org.id)
      .where("domain", "=", domain)
      .executeTakeFirst();
    if (provider)
      throw new DomainError(
        "DOMAIN_IN_USE",
        `${domain} signs in through the identity provider ${provider.providerId}: remove the provider first`,
      );
    await tx.deleteFrom("org_domain").where("id", "=", row.id).execute();
    record.audit({
      ownerId: org.id,
      action: "organization.domain_removed",
      target: domain,
      details: { wasVerified: row.verified_at !== null },
    });
  });
}
