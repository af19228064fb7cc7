// The request's CSP nonce, provided by entry.server during SSR. In the browser it is empty:
// scripts added after hydration come from our own origin.
import { createContext, useContext } from "react";

const NonceContext = createContext("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
