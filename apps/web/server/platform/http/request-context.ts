// The router context key under which the server hands its services and the request's CSP
// nonce to loaders and actions.
import { createContext, type RouterContext } from "react-router";
import type { Services } from "../../services.ts";

export interface RequestContext {
  services: Services;
  nonce: string;
  /** The client's address, as better-auth's rate limit sees it (TRUST_PROXY decides). */
  clientAddress: string;
}

export const requestContext: RouterContext<RequestContext> = createContext<RequestContext>();
