// Toasts: top-centre, following the system light/dark preference, 4000 ms, at most 3 visible.
import { Toaster as Sonner } from "sonner";

export const TOAST_DURATION_MS = 4000;
export const TOAST_VISIBLE = 3;

export function Toaster() {
  return (
    <Sonner
      position="top-center"
      theme="system"
      duration={TOAST_DURATION_MS}
      visibleToasts={TOAST_VISIBLE}
      closeButton
      richColors
    />
  );
}
