// Loaded with the first http request (see httpPost.ts): a module of its own, so that the bundled CLI, which
// cannot import node's built-ins dynamically, loads them lazily too.
export { request as httpRequest } from "node:http";
export { request as httpsRequest } from "node:https";
