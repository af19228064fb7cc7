// /legal/privacy: what the hosted Packyard keeps about its users and visitors, why, for how long,
// who processes it for us, and how to have it deleted. Retention periods here are the ones the
// code applies (sessions: server/auth/auth.ts; contact messages: server/site/contact.ts; machine
// hashes and entitlement tokens' last-use addresses: server/downloads/forget.ts; the audit log:
// server/audit/retention.ts).
import { Link } from "react-router";
import { LegalPage, type LegalSection } from "../../../components/marketing/legal-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/privacy";

const PRIVACY_LAST_UPDATED = "2026-12-07";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Privacy Policy",
    description:
      "What Packyard keeps about you — account, sessions, uploads, install and download counts, contact messages — why, for how long, who processes it, and how to delete your account.",
  });

const sections: LegalSection[] = [
  {
    id: "what-we-keep",
    title: "What we keep",
    body: (
      <>
        <p>We keep only what running the service needs:</p>
        <ul>
          <li>
            <strong>Your account:</strong> your email address, name, username, whether your email is verified,
            a hash of your password (never the password itself), and when the account was created and changed.
            If you sign in with a social provider, the identifiers and tokens that provider gives us.
          </li>
          <li>
            <strong>Sessions:</strong> for each device you sign in on, a session with its token, its expiry,
            the IP address and the browser's user agent it was created from, and when it was created and last
            refreshed. We use them to keep you signed in and to let you recognise your own sessions.
          </li>
          <li>
            <strong>What you publish:</strong> your projects, releases, release notes and files, the package
            metadata read from them, and each project's signing keys (private keys encrypted at rest).
          </li>
          <li>
            <strong>API keys:</strong> a hash of each key, its name, first characters, scope, expiry and when
            it was last used.
          </li>
          <li>
            <strong>Download counts:</strong> per file, day, kind of client (told from its user agent, such as
            apt or a browser) and distribution, how often the file was installed by a package manager and
            downloaded by anything else, and the bytes served; per account and month, the files and bytes
            served. They make your statistics and your plan's allowance. We do not record who downloaded a
            file.
          </li>
          <li>
            <strong>Machines per day:</strong> to count how many different machines installed or downloaded a
            project's files in a day, the server keeps a hash of each client's address and user agent, made
            with a secret value (a salt) that changes every day, so a machine cannot be followed from one day
            to the next. The address itself is not stored. The hashes are deleted once their day is over
            (within two days); only the number of machines stays. The same counts the use of a customer's
            entitlement token.
          </li>
          <li>
            <strong>Entitlement tokens:</strong> when a customer's token was last used, with the address and
            user agent of that use, shown to the token's owner so they can recognise misuse.
          </li>
          <li>
            <strong>Audit log:</strong> sign-ins and changes to an account, its projects and its keys, who
            made them and the address they came from, shown to the account&apos;s owners.
          </li>
          <li>
            <strong>YUM signatures:</strong> to serve a YUM client a consistent signature, the server
            remembers the address of a client that fetched a repository index for 30 seconds: in memory, or
            with several servers as a hash in the database, removed within ten minutes.
          </li>
          <li>
            <strong>Sign-in protection:</strong> failed password sign-ins are counted per email address
            (stored as a hash) for 15 minutes, to stop password guessing.
          </li>
          <li>
            <strong>Contact messages:</strong> what you send through the{" "}
            <Link to="/contact">contact form</Link> — name, email address, subject, message and its type — and
            the address it came from, which limits how many messages one address can send.
          </li>
          <li>
            <strong>Server logs:</strong> errors, each request with its time, path, status and the address it
            came from, and the recipient of each email we send, to find faults and stop abuse.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "why",
    title: "Why we keep it",
    body: (
      <>
        <p>
          To provide the service you signed up for (your account, sessions, projects and files, downloads), to
          keep it secure (sign-in protection, signing keys, session records), to apply the limits of your plan
          (storage and download counts), and to answer you when you write to us. We do not sell personal data
          and do not use it for advertising of our own.
        </p>
        <p>
          Public projects are public by design: their release pages, files and repositories, and your username
          in their URLs, can be seen and downloaded by anyone. Private projects can be seen only by you and by
          API keys you create for them.
        </p>
      </>
    ),
  },
  {
    id: "cookies",
    title: "Cookies",
    body: (
      <>
        <p>
          Packyard itself sets one kind of cookie: the session cookie that keeps you signed in (
          <code>better-auth.session_token</code>, marked HttpOnly, sent only to Packyard). It is set when you
          sign in and removed when you sign out. Pages work without it; you are simply signed out.
        </p>
        <p>
          The optional analytics, ads, chat and heatmap scripts described below may set cookies of their own
          when we enable them; their providers' policies apply to those cookies.
        </p>
      </>
    ),
  },
  {
    id: "processors",
    title: "Who processes data for us",
    body: (
      <>
        <p>We use a few outside services. Each receives only what its job needs:</p>
        <ul>
          <li>
            <strong>Card payments — Stripe.</strong> When you buy a paid plan, Stripe takes your card details
            and processes the payment. We receive a customer reference, your plan and the invoices, never your
            card number.
          </li>
          <li>
            <strong>Email delivery — our outgoing mail provider.</strong> Verification, password-reset and
            account emails, and contact messages, pass through the SMTP service that delivers our mail.
          </li>
          <li>
            <strong>Error reporting — Sentry.</strong> When enabled, an error in the application sends a
            report with the page or request where it happened, the browser and a technical trace; for errors
            in the browser, a short replay of the page (text and inputs masked) may be attached.
          </li>
          <li>
            <strong>Optional site scripts.</strong> When enabled, and only on the public site in production:
            analytics (Plausible, which uses no cookies), ads (Google AdSense), chat (Crisp) and heatmaps
            (Microsoft Clarity). Each sees the pages you visit and your browser's usual request data.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "retention",
    title: "How long we keep it",
    body: (
      <ul>
        <li>
          Account, projects, releases, files, keys and install and download counts: until you delete them or
          your account.
        </li>
        <li>
          Machines per day: the hashes of a day's addresses are deleted within two days; the number of
          machines stays with the counts.
        </li>
        <li>
          The address of an entitlement token's last use: erased 30 days after that use (the time and user
          agent stay until the token is deleted).
        </li>
        <li>Audit log entries, with their addresses: one year.</li>
        <li>
          Sessions: until you sign out, or 30 days after the session was last refreshed (it is refreshed once
          a day while you use Packyard).
        </li>
        <li>Email verification and password-reset links: one hour.</li>
        <li>Failed sign-in counts: 15 minutes.</li>
        <li>
          Contact messages: the address a message came from is erased after 24 hours; the message itself is
          deleted two years after we received it.
        </li>
        <li>Payment records: as long as tax and accounting law requires.</li>
      </ul>
    ),
  },
  {
    id: "delete-account",
    title: "Deleting your account",
    body: (
      <>
        <p>
          You can delete projects, releases, files and API keys yourself at any time from the dashboard; what
          you delete is no longer served at once.
        </p>
        <p>
          To delete your whole account, write to us through the <Link to="/contact">contact form</Link>, type{" "}
          <em>Support</em>, from the email address of the account. We confirm with you by email, then delete
          the account with its sessions, projects, releases, files, repositories, signing keys and API keys,
          and tell you when it is done — within 30 days. Nothing of it stays served.
        </p>
      </>
    ),
  },
  {
    id: "your-rights",
    title: "Your rights",
    body: (
      <p>
        You can ask us what we keep about you, ask us to correct it, export it or delete it, and object to how
        we use it. Most of it you can see and change yourself on your profile and in the dashboard; for the
        rest, use the <Link to="/contact">contact form</Link>. You may also complain to your data protection
        authority.
      </p>
    ),
  },
  {
    id: "changes",
    title: "Changes to this policy",
    body: (
      <p>
        When we change this policy we update the date at the top; if a change affects how we use your data, we
        tell account holders by email before it takes effect.
      </p>
    ),
  },
];

export default function Privacy() {
  return (
    <LegalPage
      title="Privacy Policy"
      lastUpdated={PRIVACY_LAST_UPDATED}
      intro={
        <p>
          This policy explains what the hosted Packyard service keeps about the people who use it and visit
          its site, why, for how long, and who processes it for us. If you run Packyard on your own server,
          you are the one keeping this data.
        </p>
      }
      sections={sections}
      other={{ to: "/legal/terms", label: "Terms of Service" }}
    />
  );
}
