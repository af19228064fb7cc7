// /legal/terms: the terms of the hosted Packyard service. Plan rules (limits, downgrades, downloads
// never cut off) are the ones the product enforces (see the contract's plans.ts and DESIGN).
import { Link } from "react-router";
import { LegalPage, type LegalSection } from "../../../components/marketing/legal-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/terms";

const TERMS_LAST_UPDATED = "2026-11-23";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Terms of Service",
    description:
      "The terms of the hosted Packyard service: accounts, what you publish, acceptable use, plans and payment, availability, and ending the service.",
  });

const sections: LegalSection[] = [
  {
    id: "service",
    title: "The service",
    body: (
      <p>
        Packyard hosts the packages and release files you publish and serves them as signed APT and YUM/DNF
        repositories, release pages and download URLs. These terms apply to the hosted service and its
        website. By creating an account you agree to them; if you use Packyard for an organisation, you
        confirm that you may agree for it.
      </p>
    ),
  },
  {
    id: "account",
    title: "Your account",
    body: (
      <ul>
        <li>
          Give a real email address and keep it working: we send verification, security and billing messages
          there.
        </li>
        <li>
          Keep your password and API keys secret. Anything done with them counts as done by you; delete a key
          on the API keys page as soon as you think it has leaked.
        </li>
        <li>Your username appears in the URLs of your public pages and repositories.</li>
      </ul>
    ),
  },
  {
    id: "your-content",
    title: "What you publish",
    body: (
      <>
        <p>
          You keep every right to what you upload. You give us the permission we need to run the service with
          it: to store it, read package metadata from it, sign packages and repository indexes with your
          project's key, and serve it — to everyone for public projects, and to holders of your API keys for
          private ones.
        </p>
        <p>
          You are responsible for having the right to distribute what you publish, and for its licences. Files
          are immutable once uploaded; you can delete them, and yank releases so that package managers no
          longer pick them.
        </p>
      </>
    ),
  },
  {
    id: "acceptable-use",
    title: "Acceptable use",
    body: (
      <>
        <p>Do not use Packyard to:</p>
        <ul>
          <li>distribute malware, or software that hides what it does from the people who install it;</li>
          <li>publish material you have no right to distribute, or that is unlawful;</li>
          <li>
            get around your plan's limits, for example by spreading one product over several free accounts;
          </li>
          <li>attack, overload or probe the service or other users' data.</li>
        </ul>
        <p>
          We may remove content or suspend an account that breaks these rules. Unless the risk to others is
          urgent, we tell you first and give you a chance to fix it.
        </p>
      </>
    ),
  },
  {
    id: "plans",
    title: "Plans and payment",
    body: (
      <>
        <p>
          The plans, their prices and their limits are on the <Link to="/pricing">pricing page</Link>. Paid
          plans are billed in advance, monthly or annually, through our card payment processor, and renew
          until you cancel. Prices are in US dollars; taxes may be added where the law requires.
        </p>
        <ul>
          <li>
            Over a limit, new private projects and uploads are refused with a clear message until you are
            within your plan again. Downloads are never cut off: machines that install your packages keep
            working.
          </li>
          <li>
            A downgrade never deletes anything: what is over the new limit stays readable and installable.
          </li>
          <li>When you cancel, your plan continues to the end of the period you paid for.</li>
        </ul>
        <p>We announce price changes by email at least 30 days before they apply to you.</p>
      </>
    ),
  },
  {
    id: "availability",
    title: "Availability and changes",
    body: (
      <p>
        We work to keep Packyard available and your data safe, but we do not promise uninterrupted service. We
        may change or retire features; if a change removes something you rely on, we tell you in advance.
      </p>
    ),
  },
  {
    id: "ending",
    title: "Ending the service",
    body: (
      <p>
        You can stop using Packyard at any time and have your account deleted (see the{" "}
        <Link to="/legal/privacy#delete-account">Privacy Policy</Link>). We may end an account that breaks
        these terms; when we end the service for reasons of our own, we give at least 60 days' notice so that
        you can move your packages and repositories elsewhere.
      </p>
    ),
  },
  {
    id: "liability",
    title: "Warranty and liability",
    body: (
      <p>
        Packyard is provided as it is. As far as the law allows, we are not liable for indirect or
        consequential losses, and our total liability is limited to what you paid us in the twelve months
        before the claim. Nothing in these terms limits liability that the law does not allow us to limit.
      </p>
    ),
  },
  {
    id: "changes",
    title: "Changes to these terms",
    body: (
      <p>
        We update the date at the top when these terms change, and tell account holders by email at least 30
        days before a change that affects them takes effect. Questions about these terms: use the{" "}
        <Link to="/contact">contact form</Link>.
      </p>
    ),
  },
];

export default function Terms() {
  return (
    <LegalPage
      title="Terms of Service"
      lastUpdated={TERMS_LAST_UPDATED}
      intro={
        <p>
          These terms are the agreement between you and Packyard for using the hosted service. They are
          written to be read; the <Link to="/legal/privacy">Privacy Policy</Link> explains what we do with
          your data.
        </p>
      }
      sections={sections}
      other={{ to: "/legal/privacy", label: "Privacy Policy" }}
    />
  );
}
