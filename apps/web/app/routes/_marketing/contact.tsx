// /contact (spec §3, §5): name, email, subject, message and type, checked in the browser and again
// by the action with the contract's schema; the server also checks the form's signed token, a
// honeypot field and the per-address limit (server/site/contact.ts). The message is stored,
// then mailed to CONTACT_EMAIL; the visitor sees a confirmation either way (and so does a
// program that filled the honeypot, though its message was dropped).
import { type SubmissionResult, useForm } from "@conform-to/react";
import {
  CONTACT_MESSAGES_PER_HOUR,
  contactSchema,
  contactTypeLabels,
  contactTypes,
} from "@packyard/contract/contact.ts";
import { BookOpen, CircleCheck, Handshake, LifeBuoy, MessageSquare, Receipt } from "lucide-react";
import { data, Form, Link, useNavigation } from "react-router";
import { z } from "zod";
import { PageIntro } from "../../components/marketing/section.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { type RadioCardOption, RadioCards } from "../../components/ui/radio-cards.tsx";
import { TextareaField } from "../../components/ui/textarea.tsx";
import { parseForm, text } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/contact";
import { contactFormToken, sendContactMessage } from "./contact.server.ts";

/** The honeypot's name: a field people never see (it is hidden), so only programs fill it. */
const HONEYPOT = "leave_blank";

const contactForm = z.object({
  name: text(contactSchema.shape.name),
  email: text(contactSchema.shape.email),
  subject: text(contactSchema.shape.subject),
  message: text(contactSchema.shape.message),
  type: text(contactSchema.shape.type),
  csrfToken: contactSchema.shape.csrfToken,
});

const typeOptions: RadioCardOption[] = contactTypes.map((type) => ({
  value: type,
  label: contactTypeLabels[type],
  icon: { general: MessageSquare, support: LifeBuoy, sales: Receipt, partnership: Handshake }[type],
  description: {
    general: "Anything else",
    support: "Help with your account or publishing",
    sales: "Plans, invoices, larger needs",
    partnership: "Integrations and working together",
  }[type],
}));

/** What the action answers: Conform's result, and who was thanked once a message went through. */
interface ContactAnswer {
  result: SubmissionResult<string[]>;
  sent?: { name: string; email: string };
}

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Contact",
    description:
      "Write to the Packyard team: support with publishing and your account, sales and plans, partnerships, or anything else.",
  });

/** A refusal for sending too often says when to try again, on the page's own response too. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : {};
}

export function loader({ context, url }: Route.LoaderArgs) {
  const type = url.searchParams.get("type");
  return {
    csrfToken: contactFormToken(context),
    type: contactTypes.find((t) => t === type) ?? "general",
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  const submission = parseForm(formData, contactForm);
  if (submission.status !== "success")
    return data<ContactAnswer>({ result: submission.reply() }, { status: 400 });
  const { csrfToken, ...values } = submission.value;
  const honeypot = formData.get(HONEYPOT);
  const outcome = await sendContactMessage(context, {
    values,
    csrfToken,
    honeypot: typeof honeypot === "string" ? honeypot : undefined,
  });
  // A filled honeypot is a program's post: it is told what a person is told, so that it learns
  // nothing to retry with, while nothing was stored or sent.
  if (outcome.ok || outcome.reason === "honeypot") {
    return data<ContactAnswer>({
      result: submission.reply({ resetForm: true }),
      sent: { name: values.name, email: values.email },
    });
  }
  switch (outcome.reason) {
    case "token":
      return data<ContactAnswer>(
        {
          result: submission.reply({
            formErrors: [
              outcome.check === "expired"
                ? "This form has expired. Your text is still here: send it again."
                : "This form could not be verified. Reload the page and send your message again.",
            ],
          }),
        },
        { status: 403 },
      );
    case "rate-limited": {
      const minutes = Math.ceil(outcome.retryAfterSeconds / 60);
      return data<ContactAnswer>(
        {
          result: submission.reply({
            formErrors: [
              `You have sent ${CONTACT_MESSAGES_PER_HOUR} messages in the last hour, the most we accept from one address. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
            ],
          }),
        },
        { status: 429, headers: { "Retry-After": String(outcome.retryAfterSeconds) } },
      );
    }
    default:
      return outcome satisfies never;
  }
}

export default function Contact({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const sent = actionData?.sent;
  const [form, fields] = useForm({
    lastResult: actionData?.result,
    defaultValue: { type: loaderData.type },
    onValidate: ({ formData }) => parseForm(formData, contactForm),
    shouldRevalidate: "onInput",
  });

  return (
    <main>
      <PageIntro
        eyebrow="Contact"
        title="Talk to the people who build Packyard"
        lead="Questions about publishing, your account, plans or working together: write to us and a person answers, by email."
      />
      <div className="mx-auto grid max-w-6xl gap-10 px-4 pb-20 sm:px-6 lg:grid-cols-[1fr_1.4fr]">
        <aside className="grid content-start gap-4 text-sm">
          <Card className="p-5">
            <h2 className="flex items-center gap-2 font-semibold">
              <BookOpen className="size-4 text-primary" aria-hidden="true" /> Before you write
            </h2>
            <ul className="mt-3 grid gap-2 text-muted-foreground">
              <li>
                <Link to="/features" className="text-primary underline underline-offset-2">
                  Features
                </Link>{" "}
                explains publishing, signing, private repositories and the CLI.
              </li>
              <li>
                <Link to="/pricing" className="text-primary underline underline-offset-2">
                  Pricing
                </Link>{" "}
                lists what each plan includes.
              </li>
              <li>Every project page in the dashboard shows the exact apt and dnf lines for that project.</li>
            </ul>
          </Card>
          <Card className="p-5">
            <h2 className="font-semibold">What happens next</h2>
            <p className="mt-2 text-muted-foreground">
              Your message is stored and sent to our team. We reply to the email address you give; nothing you
              write here is published. See the{" "}
              <Link to="/legal/privacy" className="text-primary underline underline-offset-2">
                Privacy Policy
              </Link>{" "}
              for how long we keep it.
            </p>
          </Card>
        </aside>

        <Card className="p-6 sm:p-8">
          {sent ? (
            <div role="status" className="grid justify-items-start gap-3">
              <span className="flex size-12 items-center justify-center rounded-full bg-success/15 text-success">
                <CircleCheck className="size-6" aria-hidden="true" />
              </span>
              <h2 className="text-2xl font-semibold">{`Thank you, ${sent.name}. Your message has been sent.`}</h2>
              <p className="text-muted-foreground">
                We have received it and will reply to{" "}
                <strong className="text-foreground">{sent.email}</strong>.
              </p>
              <Button asChild variant="outline" className="mt-2">
                <Link to="/contact" replace>
                  Send another message
                </Link>
              </Button>
            </div>
          ) : (
            <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="grid gap-5">
              <h2 className="text-xl font-semibold">Send us a message</h2>
              {form.errors?.[0] ? (
                <Alert variant="error" id={form.errorId}>
                  {form.errors[0]}
                </Alert>
              ) : null}
              <input type="hidden" name="csrfToken" value={loaderData.csrfToken} />
              <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
                <label>
                  Leave this field empty
                  <input type="text" name={HONEYPOT} tabIndex={-1} autoComplete="off" defaultValue="" />
                </label>
              </div>
              <div className="grid gap-5 sm:grid-cols-2">
                <FormField
                  label="Name"
                  name={fields.name.name}
                  autoComplete="name"
                  defaultValue={fields.name.defaultValue}
                  error={fields.name.errors?.[0]}
                />
                <FormField
                  label="Email"
                  type="email"
                  name={fields.email.name}
                  autoComplete="email"
                  defaultValue={fields.email.defaultValue}
                  error={fields.email.errors?.[0]}
                />
              </div>
              <RadioCards
                legend="What is it about?"
                name={fields.type.name}
                options={typeOptions}
                defaultValue={fields.type.defaultValue ?? loaderData.type}
                error={fields.type.errors?.[0]}
              />
              <FormField
                label="Subject"
                name={fields.subject.name}
                defaultValue={fields.subject.defaultValue}
                error={fields.subject.errors?.[0]}
              />
              <TextareaField
                label="Message"
                name={fields.message.name}
                rows={7}
                defaultValue={fields.message.defaultValue}
                error={fields.message.errors?.[0]}
                hint="Include the project and version if your question is about a release."
              />
              <div className="flex flex-wrap items-center gap-4">
                <Button type="submit" disabled={sending}>
                  {sending ? "Sending…" : "Send message"}
                </Button>
                <p className="text-xs text-muted-foreground">
                  Up to {CONTACT_MESSAGES_PER_HOUR} messages an hour from one address.
                </p>
              </div>
            </Form>
          )}
        </Card>
      </div>
    </main>
  );
}
