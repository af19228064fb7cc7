// The router context key under which the server hands its services and the request's CSP
// nonce to loaders and actions. The server and the route bundle are separate module graphs,
// so the key is kept in one process-wide slot both of them resolve to.
import { createContext, type RouterContext } from "react-router";
import type { Services } from "../services.ts";

export interface RequestContext {
  services: Services;
  nonce: string;
  /** The client's address, as better-auth's rate limit sees it (TRUST_PROXY decides). */
  clientAddress: string;
}

const slot = Symbol.for("packyard.request-context");
const registry = globalThis as { [slot]?: RouterContext<RequestContext> };

if (!registry[slot]) registry[slot] = createContext<RequestContext>();
export const requestContext: RouterContext<RequestContext> = registry[slot];
