// Being written in this change; answers 404 until then.
import { data } from "react-router";

export function loader() {
  throw data(null, { status: 404 });
}

export default function Pending() {
  return null;
}
