// The web app's in-process Packyard on a loopback port (needs the web build) and its test
// publisher, for the CLI to talk to.
export { type LiveServer, publisher, startLiveServer } from "../../../web/test/live-server.ts";
