// A server clock a test moves by whole days: real time plus an offset, so the server's jobs, keys
// and signatures see the day the test chose while time still runs (createTestApp and
// startLiveServer take it as `clock`).
export const DAY = 24 * 60 * 60 * 1000;

export interface MovingClock {
  /** The server's clock: now, moved by the current offset. */
  clock: () => Date;
  /** Puts the clock this many days from today (negative: in the past). */
  moveTo: (daysFromToday: number) => void;
}

export function movingClock(): MovingClock {
  let offset = 0;
  return {
    clock: () => new Date(Date.now() + offset),
    moveTo: (daysFromToday) => {
      offset = daysFromToday * DAY;
    },
  };
}
