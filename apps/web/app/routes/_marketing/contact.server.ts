// The contact page's server side: the form token for the page, and a submission handed to the
// contact domain (server/site/contact.ts) with the client's address from the request context.
import type { RouterContextProvider } from "react-router";
import { requestContext } from "../../../server/platform/http/request-context.ts";
import {
  type ContactOutcome,
  type ContactSubmission,
  issueContactToken,
  submitContactMessage,
} from "../../../server/site/contact.ts";

type Context = Readonly<RouterContextProvider>;

export function contactFormToken(context: Context): string {
  return issueContactToken(context.get(requestContext).services.config.secret);
}

export function sendContactMessage(
  context: Context,
  submission: Omit<ContactSubmission, "clientAddress">,
): Promise<ContactOutcome> {
  const { services, clientAddress } = context.get(requestContext);
  // The contact domain stores each message and retries its mail itself: the direct transport.
  const { database, mailTransport, logger, config } = services;
  return submitContactMessage(
    { db: database.db, mailer: mailTransport, logger, config },
    { ...submission, clientAddress },
  );
}
