// A fake Stripe at its HTTP boundary, for tests: a local server on 127.0.0.1 answering the
// API calls Packyard makes through the official SDK (pointed at it with STRIPE_API_BASE, which
// becomes the SDK's host, port and protocol), keeping its state in memory. It also serves the
// pages Stripe hosts — a Checkout page whose "Pay" button completes the session and redirects
// to its success_url, and a customer portal that updates the card — and sends webhook events
// signed with the SDK's own stripe.webhooks.generateTestHeaderString.
//
// Answered: customers (create, retrieve with expand, update, search, list), prices, checkout
// sessions (create, retrieve), subscriptions (list, retrieve, update, cancel), invoices (list),
// payment methods (list), billing portal sessions. Test controls (in process, or over HTTP
// under /_fake/ from another process): complete a checkout, fail a renewal, end a subscription,
// sign and deliver events.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { plans } from "@packyard/contract/plans.ts";
import Stripe from "stripe";

export const FAKE_WEBHOOK_SECRET = "whsec_fake_packyard_tests";

/** The configured prices: one per paid plan and period. */
export const FAKE_PRICES = {
  starterMonthly: "price_fake_starter_monthly",
  starterAnnual: "price_fake_starter_annual",
  proMonthly: "price_fake_pro_monthly",
  proAnnual: "price_fake_pro_annual",
} as const;

const DAY = 24 * 60 * 60;

type Json = Record<string, unknown>;
type Obj = Json & { id: string };

export interface FakeStripe {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The STRIPE_* variables that point Packyard at this fake. */
  env: Record<string, string>;
  customers: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  sessions: Map<string, Obj>;
  invoices: Map<string, Obj>;
  paymentMethods: Map<string, Obj>;
  /** Every API call, in order: "POST /v1/checkout/sessions". */
  calls: string[];
  /** Where events go when delivered (a URL, or a function in tests without a port). */
  setWebhookTarget(target: string | WebhookDeliverer | undefined): void;
  /** Deliver the events state changes cause (checkout, updates, cancels, failed renewals)? */
  autoDeliver: boolean;
  /** A signed event: the payload and its Stripe-Signature header. */
  signedEvent(
    type: string,
    object: Json,
    options?: { id?: string },
  ): { id: string; payload: string; signature: string };
  /** Signs and delivers an event; the webhook's HTTP status. */
  emit(type: string, object: Json, options?: { id?: string }): Promise<number>;
  /** Pays a checkout session as the hosted page's button does; the URL Stripe sends the user to. */
  completeCheckout(sessionId: string): Promise<string>;
  /** A renewal whose card is declined: an open invoice, the subscription past due. */
  failRenewal(subscriptionId: string): Promise<{ invoice: Obj; subscription: Obj }>;
  /** Resolves when every event delivered automatically so far has been answered. */
  settled(): Promise<void>;
  /** Stripe gave up (or the subscription was canceled at once): status canceled. */
  endSubscription(subscriptionId: string, options?: { deliver?: boolean }): Promise<Obj>;
  close(): Promise<void>;
}

export type WebhookDeliverer = (payload: string, signature: string) => Promise<{ status: number }>;

const signer = new Stripe("sk_test_fake_signer");

function newId(prefix: string) {
  return `${prefix}_fake${randomBytes(9).toString("hex")}`;
}

const now = () => Math.floor(Date.now() / 1000);

// Stripe's form encoding: a[b][0][c]=v. Objects whose keys are all indexes become arrays.
export function parseStripeParams(encoded: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(encoded)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== "");
    let node: Json = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else {
        node[part] ??= {};
        node = node[part] as Json;
      }
    });
  }
  const arrays = (value: unknown): unknown => {
    if (!value || typeof value !== "object") return value;
    const entries = Object.entries(value as Json).map(([k, v]) => [k, arrays(v)] as const);
    if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
    }
    return Object.fromEntries(entries);
  };
  return arrays(root) as Json;
}

function list(url: string, data: unknown[]) {
  return { object: "list", data, has_more: false, url };
}

export async function startFakeStripe(
  options: { webhookSecret?: string; autoDeliver?: boolean; webhookTarget?: string | WebhookDeliverer } = {},
): Promise<FakeStripe> {
  const secret = options.webhookSecret ?? FAKE_WEBHOOK_SECRET;
  const customers = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const paymentMethods = new Map<string, Obj>();
  const portalSessions = new Map<string, Obj>();
  const calls: string[] = [];
  let target = options.webhookTarget;
  let base = "";

  const prices = new Map<string, Obj>();
  for (const [key, id] of Object.entries(FAKE_PRICES)) {
    const plan = key.startsWith("pro") ? plans.pro : plans.starter;
    const annual = key.endsWith("Annual");
    prices.set(id, {
      id,
      object: "price",
      active: true,
      currency: "usd",
      unit_amount: annual ? plan.annualPrice : plan.monthlyPrice,
      nickname: `${plan.name} ${annual ? "annual" : "monthly"}`,
      product: `prod_fake_${plan.id}`,
      lookup_key: null,
      type: "recurring",
      recurring: { interval: annual ? "year" : "month", interval_count: 1, usage_type: "licensed" },
    });
  }

  function signedEvent(type: string, object: Json, opts: { id?: string } = {}) {
    const id = opts.id ?? newId("evt");
    const payload = JSON.stringify({
      id,
      object: "event",
      api_version: "2026-08-26.dahlia",
      created: now(),
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object },
    });
    return { id, payload, signature: signer.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  async function emit(type: string, object: Json, opts: { id?: string } = {}): Promise<number> {
    const { payload, signature } = signedEvent(type, object, opts);
    if (!target) throw new Error("fake Stripe: no webhook target set");
    if (typeof target === "function") return (await target(payload, signature)).status;
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    return res.status;
  }

  // Events of state changes go out in order, after the response that caused them.
  let queue = Promise.resolve();
  function deliverLater(events: [string, Json][]) {
    if (!fake.autoDeliver || !target) return;
    for (const [type, object] of events) {
      queue = queue.then(async () => {
        try {
          const snapshot = structuredClone(object);
          const status = await emit(type, snapshot);
          if (status >= 300) console.warn(`fake Stripe: ${type} answered ${status}`);
        } catch (error) {
          console.warn(`fake Stripe: delivering ${type} failed: ${(error as Error).message}`);
        }
      });
    }
  }

  function priceOf(id: unknown): Obj {
    const price = prices.get(String(id));
    if (!price) throw new FakeError(400, "resource_missing", `No such price: '${String(id)}'`);
    return price;
  }

  function periodEnd(start: number, price: Obj) {
    return start + ((price.recurring as Json).interval === "year" ? 365 : 30) * DAY;
  }

  function makeInvoice(subscription: Obj, amount: number, status: "paid" | "open", reason: string): Obj {
    const id = newId("in");
    const paid = status === "paid";
    const invoice: Obj = {
      id,
      object: "invoice",
      customer: subscription.customer,
      currency: "usd",
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      amount_remaining: paid ? 0 : amount,
      total: amount,
      status,
      paid,
      number: `FAKE-${String(invoices.size + 1).padStart(4, "0")}`,
      billing_reason: reason,
      attempt_count: paid ? 1 : 1,
      next_payment_attempt: paid ? null : now() + 3 * DAY,
      created: now() + invoices.size,
      period_start: now(),
      period_end: now(),
      hosted_invoice_url: `${base}/invoices/${id}`,
      invoice_pdf: `${base}/invoices/${id}.pdf`,
      parent: {
        type: "subscription_details",
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata ?? {} },
      },
    };
    invoices.set(id, invoice);
    subscription.latest_invoice = id;
    return invoice;
  }

  function attachCard(
    customerId: string,
    card: { brand: string; last4: string; exp_month: number; exp_year: number },
  ) {
    const pm: Obj = {
      id: newId("pm"),
      object: "payment_method",
      type: "card",
      customer: customerId,
      created: now(),
      card: { ...card, funding: "credit", country: "US" },
    };
    paymentMethods.set(pm.id, pm);
    const customer = customers.get(customerId);
    if (customer) customer.invoice_settings = { default_payment_method: pm.id };
    return pm;
  }

  function item(sub: Obj) {
    return ((sub.items as Json).data as Obj[])[0]!;
  }

  async function completeCheckout(sessionId: string): Promise<string> {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`fake Stripe: no checkout session ${sessionId}`);
    if (session.status !== "open")
      return String(session.success_url).replace("{CHECKOUT_SESSION_ID}", sessionId);
    let customerId = session.customer as string | null;
    if (!customerId) {
      customerId = createCustomer({ email: session.customer_email, metadata: {} }).id;
      session.customer = customerId;
    }
    attachCard(customerId, { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 });
    const line = (session.line_items as Json[])[0]!;
    const price = priceOf(line.price);
    const start = now();
    const subscriptionData = (session.subscription_data ?? {}) as Json;
    const trialDays = Number(subscriptionData.trial_period_days ?? 0);
    const sub: Obj = {
      id: newId("sub"),
      object: "subscription",
      customer: customerId,
      status: trialDays ? "trialing" : "active",
      created: start,
      start_date: start,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      trial_start: trialDays ? start : null,
      trial_end: trialDays ? start + trialDays * DAY : null,
      schedule: null,
      metadata: (subscriptionData.metadata ?? {}) as Json,
      items: {
        object: "list",
        data: [
          {
            id: newId("si"),
            object: "subscription_item",
            price,
            quantity: Number(line.quantity ?? 1),
            current_period_start: start,
            current_period_end: periodEnd(start, price),
          },
        ],
      },
    };
    subscriptions.set(sub.id, sub);
    const invoice = makeInvoice(
      sub,
      trialDays ? 0 : Number(price.unit_amount),
      "paid",
      "subscription_create",
    );
    Object.assign(session, { status: "complete", payment_status: "paid", subscription: sub.id });
    deliverLater([
      ["customer.subscription.created", sub],
      ["invoice.paid", invoice],
      ["checkout.session.completed", session],
    ]);
    return String(session.success_url).replace("{CHECKOUT_SESSION_ID}", sessionId);
  }

  async function failRenewal(subscriptionId: string) {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
    const invoice = makeInvoice(
      sub,
      Number((item(sub).price as Json).unit_amount),
      "open",
      "subscription_cycle",
    );
    sub.status = "past_due";
    deliverLater([
      ["invoice.payment_failed", invoice],
      ["customer.subscription.updated", sub],
    ]);
    return { invoice, subscription: sub };
  }

  async function endSubscription(subscriptionId: string, opts: { deliver?: boolean } = {}) {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
    Object.assign(sub, { status: "canceled", canceled_at: now(), ended_at: now() });
    if (opts.deliver ?? true) deliverLater([["customer.subscription.deleted", sub]]);
    return sub;
  }

  function createCustomer(params: Json): Obj {
    const customer: Obj = {
      id: newId("cus"),
      object: "customer",
      email: params.email ?? null,
      name: params.name ?? null,
      metadata: params.metadata ?? {},
      created: now(),
      invoice_settings: { default_payment_method: null },
    };
    customers.set(customer.id, customer);
    return customer;
  }

  function expandCustomer(customer: Obj, expand: unknown): Obj {
    const wanted = Array.isArray(expand) ? expand : [];
    if (!wanted.includes("invoice_settings.default_payment_method")) return customer;
    const settings = customer.invoice_settings as Json;
    const pm = settings.default_payment_method
      ? paymentMethods.get(String(settings.default_payment_method))
      : null;
    return { ...customer, invoice_settings: { ...settings, default_payment_method: pm ?? null } };
  }

  function updateSubscription(sub: Obj, params: Json) {
    const events: [string, Json][] = [];
    if (params.cancel_at_period_end !== undefined)
      sub.cancel_at_period_end = params.cancel_at_period_end === "true";
    if (params.cancel_at === "") sub.cancel_at = null;
    if (params.metadata) sub.metadata = { ...(sub.metadata as Json), ...(params.metadata as Json) };
    const items = params.items as Json[] | undefined;
    if (items?.length) {
      const current = item(sub);
      const change = items.find((i) => i.id === current.id) ?? items[0]!;
      const oldPrice = current.price as Obj;
      const newPrice = priceOf(change.price ?? oldPrice.id);
      if (newPrice.id !== oldPrice.id) {
        const t = now();
        const start = Number(current.current_period_start);
        const end = Number(current.current_period_end);
        const left = Math.max(0, Math.min(1, (end - t) / Math.max(1, end - start)));
        const credit = Math.round(Number(oldPrice.unit_amount) * left);
        const intervalChanged =
          (newPrice.recurring as Json).interval !== (oldPrice.recurring as Json).interval;
        current.price = newPrice;
        if (intervalChanged) {
          // A new interval starts a new period now, charged in full less the unused time.
          current.current_period_start = t;
          current.current_period_end = periodEnd(t, newPrice);
        }
        const charge = intervalChanged
          ? Number(newPrice.unit_amount) - credit
          : Math.round(Number(newPrice.unit_amount) * left) - credit;
        if (params.proration_behavior !== "none" && charge > 0) {
          events.push(["invoice.paid", makeInvoice(sub, charge, "paid", "subscription_update")]);
        }
      }
    }
    events.unshift(["customer.subscription.updated", sub]);
    deliverLater(events);
  }

  async function handleApi(method: string, path: string, params: Json): Promise<unknown> {
    let m: string[] = [];
    const at = (pattern: RegExp) => {
      const found = path.match(pattern);
      m = found ? [...found] : [];
      return found !== null;
    };
    const url = path;
    if (method === "POST" && path === "/v1/customers") return createCustomer(params);
    if (method === "GET" && path === "/v1/customers/search") {
      const email = /email:"([^"]*)"/.exec(String(params.query ?? ""))?.[1];
      const data = [...customers.values()].filter(
        (c) => c.email === email && (c.metadata as Json)?.customerType !== "organization",
      );
      return { object: "search_result", data, has_more: false, next_page: null, url };
    }
    if (method === "GET" && path === "/v1/customers") {
      return list(
        url,
        [...customers.values()].filter((c) => !params.email || c.email === params.email),
      );
    }
    if (at(/^\/v1\/customers\/([^/]+)$/)) {
      const customer = customers.get(m[1]!);
      if (!customer) throw new FakeError(404, "resource_missing", `No such customer: '${m[1]}'`);
      if (method === "POST") {
        for (const key of ["email", "name"] as const)
          if (params[key] !== undefined) customer[key] = params[key];
        if (params.metadata)
          customer.metadata = { ...(customer.metadata as Json), ...(params.metadata as Json) };
      }
      return expandCustomer(customer, params.expand);
    }
    if (method === "GET" && at(/^\/v1\/prices\/([^/]+)$/)) return priceOf(m[1]);
    if (method === "GET" && path === "/v1/prices") {
      const keys = (params.lookup_keys as string[] | undefined) ?? [];
      return list(
        url,
        [...prices.values()].filter((p) => keys.includes(String(p.lookup_key))),
      );
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const lineItems = (params.line_items as Json[] | undefined) ?? [];
      if (!lineItems.length)
        throw new FakeError(400, "parameter_missing", "Missing required param: line_items.");
      for (const line of lineItems) priceOf(line.price);
      if (!params.success_url)
        throw new FakeError(400, "parameter_missing", "Missing required param: success_url.");
      const id = newId("cs");
      const session: Obj = {
        id,
        object: "checkout.session",
        mode: params.mode ?? "payment",
        status: "open",
        payment_status: "unpaid",
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        client_reference_id: params.client_reference_id ?? null,
        metadata: params.metadata ?? {},
        subscription_data: params.subscription_data ?? {},
        line_items: lineItems,
        success_url: params.success_url,
        cancel_url: params.cancel_url ?? null,
        subscription: null,
        url: `${base}/checkout/${id}`,
        created: now(),
        expires_at: now() + DAY,
      };
      sessions.set(id, session);
      return session;
    }
    if (method === "GET" && at(/^\/v1\/checkout\/sessions\/([^/]+)$/)) {
      const session = sessions.get(m[1]!);
      if (!session) throw new FakeError(404, "resource_missing", `No such checkout.session: '${m[1]}'`);
      return session;
    }
    if (method === "GET" && path === "/v1/subscriptions") {
      const status = String(params.status ?? "");
      return list(
        url,
        [...subscriptions.values()].filter(
          (s) =>
            (!params.customer || s.customer === params.customer) &&
            (status === "all" ? true : status ? s.status === status : s.status !== "canceled"),
        ),
      );
    }
    if (at(/^\/v1\/subscriptions\/([^/]+)$/)) {
      const sub = subscriptions.get(m[1]!);
      if (!sub) throw new FakeError(404, "resource_missing", `No such subscription: '${m[1]}'`);
      if (method === "GET") return sub;
      if (sub.status === "canceled") {
        throw new FakeError(400, "resource_missing", "A canceled subscription can only update its metadata.");
      }
      if (method === "DELETE") {
        await endSubscription(sub.id);
        return sub;
      }
      updateSubscription(sub, params);
      return sub;
    }
    if (method === "GET" && path === "/v1/invoices") {
      const data = [...invoices.values()]
        .filter((i) => !params.customer || i.customer === params.customer)
        .sort((a, b) => Number(b.created) - Number(a.created))
        .slice(0, Number(params.limit ?? 10));
      return list(url, data);
    }
    if (method === "GET" && path === "/v1/payment_methods") {
      return list(
        url,
        [...paymentMethods.values()].filter((p) => !params.customer || p.customer === params.customer),
      );
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      if (!customers.has(String(params.customer))) {
        throw new FakeError(400, "resource_missing", `No such customer: '${String(params.customer)}'`);
      }
      const id = newId("bps");
      const portal: Obj = {
        id,
        object: "billing_portal.session",
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `${base}/portal/${id}`,
        created: now(),
      };
      portalSessions.set(id, portal);
      return portal;
    }
    throw new FakeError(404, "resource_missing", `Unrecognized request URL (${method}: ${path})`);
  }

  async function handlePage(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    let m: string[] = [];
    const at = (pattern: RegExp) => {
      const found = path.match(pattern);
      m = found ? [...found] : [];
      return found !== null;
    };
    if (at(/^\/checkout\/([^/]+)$/) && req.method === "GET") {
      const session = sessions.get(m[1]!);
      if (!session) return false;
      const price = priceOf((session.line_items as Json[])[0]!.price);
      html(
        res,
        `<h1>Fake Stripe Checkout</h1>
        <p data-testid="checkout-line">${escapeHtml(String(price.nickname))}: $${(Number(price.unit_amount) / 100).toFixed(2)} / ${escapeHtml(String((price.recurring as Json).interval))}</p>
        <form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay and subscribe</button></form>
        ${session.cancel_url ? `<p><a href="${escapeHtml(String(session.cancel_url))}">Back</a></p>` : ""}`,
      );
      return true;
    }
    if (at(/^\/checkout\/([^/]+)\/pay$/) && req.method === "POST") {
      if (!sessions.has(m[1]!)) return false;
      redirect(res, await completeCheckout(m[1]!));
      return true;
    }
    if (at(/^\/portal\/([^/]+)$/) && req.method === "GET") {
      const portal = portalSessions.get(m[1]!);
      if (!portal) return false;
      html(
        res,
        `<h1>Fake customer portal</h1>
        <form method="post" action="/portal/${portal.id}/card"><button type="submit">Use a new card</button></form>
        <p><a href="${escapeHtml(String(portal.return_url ?? ""))}">Return to Packyard</a></p>`,
      );
      return true;
    }
    if (at(/^\/portal\/([^/]+)\/card$/) && req.method === "POST") {
      const portal = portalSessions.get(m[1]!);
      if (!portal) return false;
      const customerId = String(portal.customer);
      attachCard(customerId, { brand: "mastercard", last4: "4444", exp_month: 8, exp_year: 2031 });
      const events: [string, Json][] = [];
      for (const invoice of invoices.values()) {
        if (invoice.customer !== customerId || invoice.status !== "open") continue;
        Object.assign(invoice, {
          status: "paid",
          paid: true,
          amount_paid: invoice.amount_due,
          amount_remaining: 0,
        });
        events.push(["invoice.paid", invoice]);
        const sub = subscriptions.get(
          String(((invoice.parent as Json).subscription_details as Json).subscription),
        );
        if (sub?.status === "past_due") {
          sub.status = "active";
          events.push(["customer.subscription.updated", sub]);
        }
      }
      deliverLater(events);
      redirect(res, String(portal.return_url ?? "/"));
      return true;
    }
    if (at(/^\/invoices\/([^/]+?)(\.pdf)?$/) && req.method === "GET") {
      const invoice = invoices.get(m[1]!);
      if (!invoice) return false;
      if (m[2]) {
        res.writeHead(200, { "content-type": "application/pdf" });
        res.end(`%PDF-1.4\n% Fake invoice ${invoice.number}\n%%EOF\n`);
      } else {
        html(res, `<h1>Invoice ${escapeHtml(String(invoice.number))}</h1>`);
      }
      return true;
    }
    // Controls for tests in another process (the browser tests).
    if (at(/^\/_fake\/subscriptions\/([^/]+)\/end$/) && req.method === "POST") {
      json(res, 200, await endSubscription(m[1]!, { deliver: false }));
      return true;
    }
    if (at(/^\/_fake\/subscriptions\/([^/]+)\/fail-renewal$/) && req.method === "POST") {
      json(res, 200, await failRenewal(m[1]!));
      return true;
    }
    if (path === "/_fake/state" && req.method === "GET") {
      json(res, 200, {
        customers: [...customers.values()],
        subscriptions: [...subscriptions.values()],
        invoices: [...invoices.values()],
      });
      return true;
    }
    return false;
  }

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://fake");
      const body = await new Promise<string>((resolve, reject) => {
        let data = "";
        req.setEncoding("utf8");
        req.on("data", (chunk: string) => {
          data += chunk;
        });
        req.on("end", () => resolve(data));
        req.on("error", reject);
      });
      if (url.pathname.startsWith("/v1/")) {
        if (!/^Bearer (sk|rk)_/.test(req.headers.authorization ?? "")) {
          json(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
          return;
        }
        const params = parseStripeParams(
          req.method === "GET" || req.method === "DELETE" ? url.search.slice(1) : body,
        );
        calls.push(`${req.method} ${url.pathname}`);
        json(res, 200, await handleApi(req.method ?? "GET", url.pathname, params));
        return;
      }
      if (await handlePage(req, res, url.pathname)) return;
      json(res, 404, { error: { type: "invalid_request_error", message: "Not found" } });
    } catch (error) {
      if (error instanceof FakeError) {
        json(res, error.status, {
          error: { type: "invalid_request_error", code: error.code, message: error.message },
        });
      } else {
        json(res, 500, { error: { type: "api_error", message: (error as Error).message } });
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  const fake: FakeStripe = {
    url: base,
    env: {
      STRIPE_SECRET_KEY: "sk_test_fake_packyard",
      STRIPE_WEBHOOK_SECRET: secret,
      STRIPE_PRICE_STARTER_MONTHLY: FAKE_PRICES.starterMonthly,
      STRIPE_PRICE_STARTER_ANNUAL: FAKE_PRICES.starterAnnual,
      STRIPE_PRICE_PRO_MONTHLY: FAKE_PRICES.proMonthly,
      STRIPE_PRICE_PRO_ANNUAL: FAKE_PRICES.proAnnual,
      STRIPE_API_BASE: base,
    },
    customers,
    subscriptions,
    sessions,
    invoices,
    paymentMethods,
    calls,
    autoDeliver: options.autoDeliver ?? false,
    setWebhookTarget(next) {
      target = next;
    },
    signedEvent,
    emit,
    completeCheckout,
    failRenewal,
    endSubscription,
    settled: () => queue,
    async close() {
      await queue;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

class FakeError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json", "request-id": newId("req") });
  res.end(JSON.stringify(body));
}

function html(res: ServerResponse, body: string) {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(
    `<!doctype html><html lang="en"><head><title>Fake Stripe</title></head><body>${body}</body></html>`,
  );
}

function redirect(res: ServerResponse, location: string) {
  res.writeHead(303, { location });
  res.end();
}

function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
