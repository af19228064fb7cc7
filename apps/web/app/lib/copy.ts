// Copying text for the user (spec §8): a toast says whether it worked. Uses the Clipboard API,
// falling back to a hidden textarea and execCommand where the API is missing (plain-HTTP
// self-hosted installs are not a secure context). The toast library is loaded on the first
// copy, so pages with copy buttons (the home page's install lines) do not ship it up front.

export const COPY_SUCCESS_MESSAGE = "Copied to clipboard!";
export const COPY_FAILURE_MESSAGE = "Failed to copy to clipboard";

function legacyCopy(text: string): boolean {
  if (typeof document === "undefined") return false;
  const textarea = document.createElement("textarea");
  textarea.value = text;
  textarea.setAttribute("readonly", "");
  textarea.style.position = "fixed";
  textarea.style.opacity = "0";
  document.body.appendChild(textarea);
  const selection = document.getSelection();
  const previous = selection && selection.rangeCount > 0 ? selection.getRangeAt(0) : null;
  textarea.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    textarea.remove();
    if (previous && selection) {
      selection.removeAllRanges();
      selection.addRange(previous);
    }
  }
}

/** Copies `text`, toasts the outcome, and resolves to whether it worked. */
export async function copyToClipboard(text: string, successMessage = COPY_SUCCESS_MESSAGE): Promise<boolean> {
  let copied = false;
  try {
    if (typeof navigator !== "undefined" && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      copied = true;
    } else {
      copied = legacyCopy(text);
    }
  } catch {
    copied = false;
  }
  const { toast } = await import("sonner");
  if (copied) toast.success(successMessage);
  else toast.error(COPY_FAILURE_MESSAGE);
  return copied;
}
