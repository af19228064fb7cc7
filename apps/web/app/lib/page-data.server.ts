// A page's data that cannot be read (the database throws) fails with the page's own sentence
// (spec §8: 'Failed to fetch project data', 'Failed to fetch release data'), the original as its
// cause: logged by entry.server's handleError, then the generic error view. What a loader throws
// on purpose — a 404 or 403 answer, a redirect — is not an Error and passes unchanged.

export const PROJECT_FETCH_FAILED = "Failed to fetch project data";
export const RELEASE_FETCH_FAILED = "Failed to fetch release data";

/** `loader`, whose unexpected failures are `new Error(message, { cause })`. */
export function failsAs<Args, Result>(
  message: string,
  loader: (args: Args) => Promise<Result>,
): (args: Args) => Promise<Result> {
  return async (args) => {
    try {
      return await loader(args);
    } catch (error) {
      if (error instanceof Error) throw new Error(message, { cause: error });
      throw error;
    }
  };
}
