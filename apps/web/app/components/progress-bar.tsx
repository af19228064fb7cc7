// The thin bar at the top during navigation (spec §2): starts at 10; every 300 ms adds 10
// below 20, 4 below 50, 2 otherwise, up to 90; jumps to 100 when navigation ends, then hides.
import { useEffect, useRef, useState } from "react";
import { useNavigation } from "react-router";

export const PROGRESS_START = 10;
export const PROGRESS_TICK_MS = 300;
export const PROGRESS_CAP = 90;

export function nextProgress(value: number): number {
  const step = value < 20 ? 10 : value < 50 ? 4 : 2;
  return Math.min(PROGRESS_CAP, value + step);
}

export function ProgressBar() {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const [progress, setProgress] = useState<number | null>(null);
  const hideTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (busy) {
      clearTimeout(hideTimer.current);
      setProgress(PROGRESS_START);
      const tick = setInterval(
        () => setProgress((p) => (p === null ? p : nextProgress(p))),
        PROGRESS_TICK_MS,
      );
      return () => clearInterval(tick);
    }
    setProgress((p) => (p === null ? null : 100));
    hideTimer.current = setTimeout(() => setProgress(null), 250);
    return () => clearTimeout(hideTimer.current);
  }, [busy]);

  if (progress === null) return null;
  // In a labelled section (a landmark, as the toaster's is): every part of the page is in one,
  // so the bar over a page being left is no content outside the landmarks (axe's "region").
  return (
    <section aria-label="Page loading" className="pointer-events-none fixed inset-x-0 top-0 z-50 h-0.5">
      <div
        role="progressbar"
        aria-label="Loading page"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress}
        data-testid="navigation-progress"
        className="h-full"
      >
        <div
          className="h-full bg-primary transition-[width] duration-200 ease-out"
          style={{ width: `${progress}%` }}
        />
      </div>
    </section>
  );
}
