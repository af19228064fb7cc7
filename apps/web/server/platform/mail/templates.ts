// The text of every message Packyard sends. Plain text first (what the outbox logs link from),
// with a simple HTML alternative.
import type { MailMessage } from "./mailer.ts";

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );

function message(to: string, subject: string, lines: string[], link: { label: string; url: string }) {
  const text = `${lines.join("\n\n")}\n\n${link.url}\n\n— Packyard\n`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">${lines
    .map((l) => `<p>${escapeHtml(l)}</p>`)
    .join(
      "",
    )}<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p><p>— Packyard</p></body></html>`;
  return { to, subject, text, html } satisfies MailMessage;
}

export function verificationMail(to: string, name: string, url: string): MailMessage {
  return message(
    to,
    "Verify your email for Packyard",
    [
      `Hi ${name},`,
      "Confirm your email address to finish setting up your Packyard account. The link is valid for one hour.",
    ],
    { label: "Verify email", url },
  );
}

export function resetPasswordMail(to: string, name: string, url: string, apiKeysUrl: string): MailMessage {
  return message(
    to,
    "Reset your Packyard password",
    [
      `Hi ${name},`,
      "Someone asked to reset the password of your Packyard account. If it was you, choose a new password with the link below; it is valid for one hour. If it was not, you can ignore this message.",
      `Your API keys keep working after a password reset unless you revoke them. The reset page offers to revoke them all; you can also delete them one by one on your API keys page: ${apiKeysUrl}`,
    ],
    { label: "Choose a new password", url },
  );
}

/** A message from the contact form, to CONTACT_EMAIL; replying answers the visitor. */
export function contactMessageMail(
  to: string,
  contact: {
    name: string;
    email: string;
    subject: string;
    message: string;
    type: string;
    receivedAt: string;
  },
): MailMessage {
  const lines = [
    `From: ${contact.name} <${contact.email}>`,
    `Type: ${contact.type}`,
    `Received: ${contact.receivedAt}`,
    `Subject: ${contact.subject}`,
  ];
  const text = `${lines.join("\n")}\n\n${contact.message}\n\n— Packyard contact form (reply to answer ${contact.email})\n`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">${lines
    .map((l) => `<div>${escapeHtml(l)}</div>`)
    .join(
      "",
    )}<p style="white-space:pre-wrap">${escapeHtml(contact.message)}</p><p>— Packyard contact form</p></body></html>`;
  return {
    to,
    subject: `Contact form (${contact.type}): ${contact.subject}`,
    text,
    html,
    replyTo: contact.email,
  };
}

/** Account deletion (spec §4): the link that completes it. */
export function deleteAccountMail(to: string, name: string, url: string, validHours: number): MailMessage {
  return message(
    to,
    "Confirm the deletion of your Packyard account",
    [
      `Hi ${name},`,
      `Someone signed in to your Packyard account asked to delete it. Following the link below deletes the account for good: its projects, releases, files, APT and YUM repositories, signing keys and API keys. Machines that install from your repositories will stop receiving updates. The link is valid for ${validHours === 1 ? "one hour" : `${validHours} hours`} and works only while you are signed in.`,
      "If you did not ask for this, change your password: someone else may have access to your account.",
    ],
    { label: "Delete my account", url },
  );
}

/** Email change on the verified path (spec §4): sent to the current address to confirm. */
export function changeEmailConfirmationMail(
  to: string,
  name: string,
  newEmail: string,
  url: string,
): MailMessage {
  return message(
    to,
    "Confirm your new email address for Packyard",
    [
      `Hi ${name},`,
      `Someone signed in to your Packyard account asked to change its email address from ${to} to ${newEmail}. If it was you, confirm with the link below; we will then send a verification link to ${newEmail}. The link is valid for one hour.`,
      "If it was not you, ignore this message and change your password.",
    ],
    { label: "Confirm the change", url },
  );
}

/** What a security notice says; each is sent after the change happened. */
export type SecurityNotice =
  | { kind: "password-changed" }
  | { kind: "email-changed"; newEmail: string }
  | { kind: "two-factor-enabled" }
  | { kind: "two-factor-disabled" }
  | { kind: "api-key-created"; keyName: string };

const noticeText: Record<SecurityNotice["kind"], (notice: never) => { subject: string; line: string }> = {
  "password-changed": () => ({
    subject: "Your Packyard password was changed",
    line: "The password of your Packyard account was just changed.",
  }),
  "email-changed": (notice: { newEmail: string }) => ({
    subject: "Your Packyard email address was changed",
    line: `The email address of your Packyard account was just changed to ${notice.newEmail}. Messages about the account now go there.`,
  }),
  "two-factor-enabled": () => ({
    subject: "Two-factor authentication is on for your Packyard account",
    line: "Two-factor authentication was just turned on for your Packyard account. Signing in now needs a code from your authenticator app or a backup code.",
  }),
  "two-factor-disabled": () => ({
    subject: "Two-factor authentication is off for your Packyard account",
    line: "Two-factor authentication was just turned off for your Packyard account. Signing in now needs only your password or a linked account.",
  }),
  "api-key-created": (notice: { keyName: string }) => ({
    subject: "A new API key was created for your Packyard account",
    line: `A new API key named “${notice.keyName}” was just created for your Packyard account. It can publish or read packages as its scope allows.`,
  }),
};

/** A security notification: something changed on the account; what to do if it was not you. */
export function securityNoticeMail(
  to: string,
  name: string,
  notice: SecurityNotice,
  settingsUrl: string,
  when: Date,
): MailMessage {
  const { subject, line } = noticeText[notice.kind](notice as never);
  return message(
    to,
    subject,
    [
      `Hi ${name},`,
      `${line} (${when.toUTCString()})`,
      "If this was you, there is nothing to do. If it was not, reset your password now, sign out your other sessions and check your API keys and linked accounts in your settings.",
    ],
    { label: "Review your account", url: settingsUrl },
  );
}

/** A subscription's payment failed (Stripe's invoice.payment_failed): fix the card. */
export function paymentFailedMail(
  to: string,
  name: string,
  details: { planName: string; amount: string; nextAttempt?: string; billingUrl: string },
): MailMessage {
  return message(
    to,
    `Your payment for Packyard ${details.planName} failed`,
    [
      `Hi ${name},`,
      `We could not charge ${details.amount} for your Packyard ${details.planName} subscription. Your plan stays in place while the payment is retried${details.nextAttempt ? ` (next attempt on ${details.nextAttempt})` : ""}.`,
      "Update your card on the Billing page to keep your plan. If every attempt fails, the subscription ends and the account returns to the Basic plan; nothing you published is deleted.",
    ],
    { label: "Update your card", url: details.billingUrl },
  );
}

/**
 * Downloads from the owner's projects reached 80 % or 100 % of the month's allowance (usage.ts):
 * a warning only, since downloads are never cut off.
 */
export function downloadAllowanceMail(
  to: string,
  name: string,
  details: {
    percent: 80 | 100;
    planName: string;
    /** "November 2026". */
    month: string;
    used: string;
    allowance: string;
    pricingUrl: string;
  },
): MailMessage {
  const reached = details.percent === 100 ? "all" : "80%";
  return message(
    to,
    details.percent === 100
      ? `You have used this month's Packyard download allowance`
      : `You have used 80% of this month's Packyard download allowance`,
    [
      `Hi ${name},`,
      `Downloads from your Packyard projects have reached ${details.used} in ${details.month} (UTC): ${reached} of the ${details.allowance} your ${details.planName} plan includes each month.`,
      "Nothing is cut off: apt, dnf and every download URL keep working, so installers in the field are not affected. The counter starts again on the first of next month.",
      details.percent === 100
        ? "If this is your usual traffic, a larger plan includes more downloads."
        : "If you expect more downloads this month, a larger plan includes more.",
    ],
    { label: "Compare plans", url: details.pricingUrl },
  );
}

/**
 * A project's signing key expires in 30 or 7 days (signing-keys/lifecycle.ts): what Packyard
 * does about it, and what machines that trust only that key need.
 */
export function signingKeyExpiryMail(
  to: string,
  name: string,
  details: {
    /** "{username}/{slug}". */
    project: string;
    fingerprint: string;
    expiresAt: string;
    days: 30 | 7;
    /** The key that takes over, once made. */
    successor: { fingerprint: string; createdAt: string } | null;
    /** When the expiring key stops signing (after its overlap with the successor). */
    retireAt: string | null;
    /** When the successor will be made, while it is not yet. */
    successorDue: string | null;
    keyringUrl: string;
    settingsUrl: string;
  },
): MailMessage {
  const day = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  const lines = [
    `Hi ${name},`,
    `The repository signing key ${details.fingerprint} of ${details.project} expires on ${day(details.expiresAt)}, in ${details.days} days.`,
  ];
  if (details.successor) {
    lines.push(
      `Packyard made its successor, ${details.successor.fingerprint}, on ${day(details.successor.createdAt)}. Both keys sign your APT and YUM repositories${details.retireAt ? ` until ${day(details.retireAt)}` : ""}, then only the new one does, so no client ever sees an expired signature.`,
    );
  } else if (details.successorDue) {
    lines.push(
      `Packyard makes its successor on ${day(details.successorDue)} or soon after; both keys then sign your repositories until the old one retires, a day before it expires at the latest.`,
    );
  }
  lines.push(
    `Machines set up with Packyard's setup script or keyring.gpg before the successor existed trust only the old key: have them fetch the keyring again (${details.keyringUrl}) before the old key retires.`,
  );
  return message(to, `The signing key of ${details.project} expires in ${details.days} days`, lines, {
    label: "Repository settings",
    url: details.settingsUrl,
  });
}

/** A webhook whose deliveries all failed for 3 days was turned off (server/webhooks). */
export function webhookDisabledMail(
  to: string,
  name: string,
  details: { project: string; url: string; failingSince: string; settingsUrl: string },
): MailMessage {
  const day = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return message(
    to,
    `A webhook of ${details.project} was turned off`,
    [
      `Hi ${name},`,
      `Every delivery to the webhook ${details.url} of ${details.project} has failed since ${day(details.failingSince)}, so Packyard turned it off and stopped retrying its deliveries.`,
      "The delivery log on the project's Webhooks page shows what the receiver answered. Once it works again, turn the webhook back on there and redeliver what it missed.",
    ],
    { label: "Webhooks", url: details.settingsUrl },
  );
}

/** An invitation to join an organization (server/orgs/storage.ts); the link is the invitation. */
export function organizationInvitationMail(
  to: string,
  details: {
    organization: string;
    organizationName: string;
    invitedBy: string | null;
    role: string;
    url: string;
    validDays: number;
  },
): MailMessage {
  const who = details.invitedBy ? `${details.invitedBy} invited you` : "You are invited";
  return message(
    to,
    `Join ${details.organizationName} on Packyard`,
    [
      "Hi,",
      `${who} to join the organization ${details.organizationName} (${details.organization}) on Packyard as ${details.role === "admin" ? "an admin" : `a ${details.role}`}.`,
      `Open the link to accept. Sign in with this address (${to}), or create an account with it if you have none. The invitation is valid for ${details.validDays} days.`,
    ],
    { label: `Join ${details.organizationName}`, url: details.url },
  );
}

/** An owner hears of each change to the organization's single sign-on (docs/sso.md). */
export function ssoConfigurationMail(
  to: string,
  details: { organization: string; organizationName: string; change: string; by: string | null; url: string },
): MailMessage {
  return message(
    to,
    `Single sign-on changed for ${details.organizationName}`,
    [
      "Hi,",
      `${details.by ?? "Someone"} changed how members of ${details.organizationName} (${details.organization}) sign in to Packyard: ${details.change}.`,
      "If you did not expect this, review the organization's identity providers and its audit log now.",
    ],
    { label: "Review single sign-on", url: details.url },
  );
}
