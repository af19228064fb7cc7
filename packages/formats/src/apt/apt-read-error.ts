// The one error of the APT index readers (importing an existing repository): the text is not
// an index apt would accept. The caller adds which URL it came from.
export class AptReadError extends Error {
  override readonly name = "AptReadError";
}
