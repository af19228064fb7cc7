// A project page of the signed-in area. Until a project exists, every slug is a 404.
import { data } from "react-router";

export async function loader() {
  throw data(null, { status: 404 });
}

export default function ProjectNotFound() {
  return null;
}
