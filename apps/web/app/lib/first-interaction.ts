// The visitor's first interaction with the page (a pointer, a key, a touch): what the public pages
// wait for before they load the toaster (root.tsx, islands/entry.client.tsx).

const INTERACTIONS = ["pointerdown", "keydown", "touchstart"] as const;

/** Calls `callback` once, at the first interaction; the returned function stops waiting. */
export function onFirstInteraction(callback: () => void): () => void {
  const stop = () => {
    for (const event of INTERACTIONS) window.removeEventListener(event, handle, { capture: true });
  };
  const handle = () => {
    stop();
    callback();
  };
  for (const event of INTERACTIONS) window.addEventListener(event, handle, { capture: true, passive: true });
  return stop;
}
