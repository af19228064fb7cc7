// The site's stylesheet, inlined into the document's <head> by the server (entry.server reads
// it): the first paint waits for no second request. Client-side navigations never need it
// again — every page shares the one stylesheet — so the browser bundle carries none of it.
import { createContext, useContext } from "react";

const InlineStylesContext = createContext("");
export const InlineStylesProvider = InlineStylesContext.Provider;

const ID = "site-styles";
/** The server's stylesheet as the browser received it, read once when the document hydrates. */
let received: string | undefined;

/**
 * The stylesheet's text: during server rendering from entry.server; in the browser the text the
 * server sent. Root's error boundary mounts the document's <head> anew (decision 062): an empty
 * <style> would then leave the error view unstyled.
 */
export function InlineStyles() {
  const serverCss = useContext(InlineStylesContext);
  if (!import.meta.env.SSR && received === undefined) {
    received = document.getElementById(ID)?.textContent ?? "";
  }
  return <style id={ID} dangerouslySetInnerHTML={{ __html: received ?? serverCss }} />;
}
