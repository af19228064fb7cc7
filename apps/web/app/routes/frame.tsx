// The parent of every route below root (decision 062). It renders nothing of its own; its error
// boundary takes the errors of the pages below, so that root's Layout stays as it is: on the
// server root's loader still runs when an action throws (React Router skips the loaders of the
// boundary's route and below), so the views know who is signed in, and in the browser the
// document's <head> is not mounted anew.
import { Outlet } from "react-router";
import { RouteErrorBoundary } from "../components/route-error-boundary.tsx";

export default function Frame() {
  return <Outlet />;
}

export const ErrorBoundary = RouteErrorBoundary;
