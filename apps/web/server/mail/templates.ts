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

export function resetPasswordMail(to: string, name: string, url: string): MailMessage {
  return message(
    to,
    "Reset your Packyard password",
    [
      `Hi ${name},`,
      "Someone asked to reset the password of your Packyard account. If it was you, choose a new password with the link below; it is valid for one hour. If it was not, you can ignore this message.",
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
