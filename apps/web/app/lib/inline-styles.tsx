// The site's stylesheet, inlined into the document's <head> by the server (entry.server reads
// it): the first paint waits for no second request. Client-side navigations never need it
// again — every page shares the one stylesheet — so the browser bundle carries none of it.
import { createContext, useContext } from "react";

const InlineStylesContext = createContext("");
export const InlineStylesProvider = InlineStylesContext.Provider;

/** The stylesheet's text during server rendering; empty in the browser, which keeps the server's. */
export function InlineStyles() {
  const css = useContext(InlineStylesContext);
  return <style suppressHydrationWarning dangerouslySetInnerHTML={{ __html: css }} />;
}
