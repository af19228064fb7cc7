// The periods the Downloads page offers (routes/_app/project-downloads.tsx).

/** The periods the page offers, in days (today included). */
export const DOWNLOAD_PERIODS = [7, 30, 90] as const;
export type DownloadPeriod = (typeof DOWNLOAD_PERIODS)[number];

/** The ?days= of the page's URL, 30 unless it is one of the periods offered. */
export function downloadPeriod(value: string | null): DownloadPeriod {
  const days = Number(value);
  return (DOWNLOAD_PERIODS as readonly number[]).includes(days) ? (days as DownloadPeriod) : 30;
}
