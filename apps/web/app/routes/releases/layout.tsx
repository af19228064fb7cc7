// The public release pages share the marketing layout.
import { Outlet } from "react-router";


export default function Pending() {
  return <Outlet />;
}
