// One browser upload: an XMLHttpRequest POST of multipart/form-data with a single `file` part
// to /api/v1/projects/{slug}/releases/{version}/files. Same-origin, so the session cookie
// authenticates. XHR rather than fetch because only XHR reports upload progress.
import { apiErrorBody } from "@packyard/contract";

export type UploadOutcome =
  | { ok: true }
  | { ok: false; aborted: true }
  | { ok: false; aborted: false; message: string; code?: string };

export interface UploadHandle {
  abort(): void;
  done: Promise<UploadOutcome>;
}

export function uploadUrl(projectSlug: string, version: string): string {
  return `/api/v1/projects/${encodeURIComponent(projectSlug)}/releases/${encodeURIComponent(version)}/files`;
}

/** The API's `{"error":{"code","message"}}`, or a message for what came back instead. */
export function errorFromResponse(status: number, body: string): { message: string; code?: string } {
  try {
    const parsed = apiErrorBody.safeParse(JSON.parse(body));
    if (parsed.success) return { message: parsed.data.error.message, code: parsed.data.error.code };
  } catch {
    // not JSON
  }
  if (status === 413) return { message: "The file is too large", code: "PAYLOAD_TOO_LARGE" };
  if (status === 401)
    return { message: "Your session has ended. Sign in again to upload.", code: "UNAUTHENTICATED" };
  return { message: `Upload failed (HTTP ${status})` };
}

export function startUpload(
  url: string,
  file: File,
  onProgress: (loaded: number, total: number) => void,
  onSent?: () => void,
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<UploadOutcome>((resolve) => {
    xhr.open("POST", url);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (event) => {
      onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    };
    xhr.upload.onload = () => onSent?.();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve({ ok: true });
      else resolve({ ok: false, aborted: false, ...errorFromResponse(xhr.status, xhr.responseText) });
    };
    xhr.onerror = () =>
      resolve({ ok: false, aborted: false, message: "Network error: the upload was interrupted" });
    xhr.ontimeout = () => resolve({ ok: false, aborted: false, message: "The upload timed out" });
    xhr.onabort = () => resolve({ ok: false, aborted: true });
    const body = new FormData();
    body.append("file", file, file.name);
    xhr.send(body);
  });
  return { abort: () => xhr.abort(), done };
}
