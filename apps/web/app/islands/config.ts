// Names the server's islands document and the islands entry agree on (decision 054).

/** The id of the JSON script element that carries the entry's settings. */
export const ISLANDS_CONFIG_ID = "packyard-islands";

/** Set on <html> once every island has hydrated (tests wait for it, as for React Router's). */
export const ISLANDS_HYDRATED_ATTRIBUTE = "data-islands-hydrated";

/** A route whose `handle` has `hydrate: "islands"` is served as an islands document. */
export interface IslandsHandle {
  hydrate?: "islands";
}
