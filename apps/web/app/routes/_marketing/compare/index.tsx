// /compare/ has no page of its own: it always sends the visitor on to the GitHub Releases
// comparison (spec §2), on the server too. In the browser the redirect takes the place of the
// /compare/ entry, so Back goes to the page before it.
import { redirect } from "react-router";

export function loader() {
  throw redirect("/compare/github-releases");
}

export default function CompareIndex() {
  return null;
}
